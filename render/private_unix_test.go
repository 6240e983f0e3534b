//go:build unix

package render

import (
	"os"
	"strings"
	"testing"
)

func TestPrivateDirOfAnotherUserIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := dirProblem(fi, os.Getuid()); p != "" {
		t.Fatalf("our own 0700 directory: %s", p)
	}
	if p := dirProblem(fi, os.Getuid()+1); !strings.Contains(p, "belongs to user id") {
		t.Errorf("a directory of another user must be refused, saying whose it is: %q", p)
	}
}
