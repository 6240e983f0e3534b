//go:build unix

package mcp

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openLockFile opens (creating 0600) a lock file, never through a symlink.
func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// tryLockFile takes f's exclusive flock without waiting: false when
// another open file holds it.
func tryLockFile(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EWOULDBLOCK), errors.Is(err, unix.EINTR):
		return false, nil
	}
	return false, err
}
