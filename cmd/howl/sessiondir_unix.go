//go:build !windows

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// sessionSocketName is the socket's file name in the session directory.
const sessionSocketName = "session.sock"

// sessionAddress is the session's socket in the checked session directory.
func sessionAddress() (string, error) {
	dir, err := sessionDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, sessionSocketName), nil
}

// sessionListen listens on the socket, replacing a stale one of a session
// that died; only the owner may connect (0600, in a 0700 directory). The
// socket is removed when the listener closes.
func sessionListen(path string) (net.Listener, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// sessionDial connects to the session's socket.
func sessionDial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("no session at %s (%v): start one with howl serve-session", path, errors.Unwrap(err))
	}
	return c, nil
}

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
