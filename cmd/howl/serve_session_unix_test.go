//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The session's socket sits in a directory only its owner may enter
// (0700), and a session directory others may enter is refused with the fix.
func TestServeSessionDirectoryIsTheOwnersAloneAndAnOpenOneIsRefused(t *testing.T) {
	sock, done, _ := startSession(t, "--idle", "10m")
	fi, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the session directory: %v, %v", fi.Mode(), err)
	}
	howl(t, "serve-session", "--stop")
	waitExit(t, done)
	if err := os.Chmod(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := howl(t, "call", "--session", "demo", "add", "a=1", "b=2")
	if code != exitUsage || !strings.Contains(errOut, "is open to others (mode -rwxr-xr-x): chmod 700 it") {
		t.Errorf("an open session directory: exit %d: %s", code, errOut)
	}
}
