//go:build unix

package mcp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// editOverSizeLimit runs in a child: with the file size limit below what
// the edit writes, the temporary file's write fails for real (EFBIG).
func editOverSizeLimit() int {
	path := os.Getenv("HOWL_EDIT_PATH")
	// Rlimit's fields are uint64 on Linux and macOS, int64 on the BSDs:
	// Sscan fills either.
	lim := &syscall.Rlimit{}
	n := fmt.Sprint(len(handFormatted) + 8)
	if _, err := fmt.Sscan(n+" "+n, &lim.Cur, &lim.Max); err != nil {
		fmt.Println("rlimit:", err)
		return 3
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
		fmt.Println("setrlimit:", err)
		return 3
	}
	err := EditConfigFile(path, func(old []byte) ([]byte, error) {
		return SetServerEntry(path, old, "big", []byte(`{"command": "`+strings.Repeat("x", 4096)+`"}`))
	})
	fmt.Println(err)
	if err == nil {
		return 0
	}
	return 1
}

func TestAFailedWriteLeavesTheConfigByteIdentical(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(handFormatted), 0o600)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fixtureEnv+"=edit-over-size-limit", "HOWL_EDIT_PATH="+path)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the write over the size limit succeeded: %s", out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("the child must fail on the write itself: %s (%v)", out, err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, []byte(handFormatted)) {
		t.Errorf("the config changed after a failed write:\n%s", data)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("a temporary file was left behind: %v", left)
	}
}
