//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// sessionDir is <runtime dir>/howl ($XDG_RUNTIME_DIR, else the temp dir
// with the uid), made 0700; it must be a directory this user owns that
// nobody else may enter, or the session would be open to them.
func sessionDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	name := "howl"
	if base == "" {
		base, name = os.TempDir(), fmt.Sprintf("howl-%d", os.Getuid())
	}
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the session directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("the session directory %s is not a directory (a link or a file): remove it", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("the session directory %s belongs to another user: remove it, or set XDG_RUNTIME_DIR to a directory of yours", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("the session directory %s is open to others (mode %v): chmod 700 it", dir, fi.Mode().Perm())
	}
	return dir, nil
}
