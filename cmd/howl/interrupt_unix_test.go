//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
)

// selfInterrupter returns what sends this process SIGINT, as a Ctrl+C would.
func selfInterrupter(*testing.T) func() error {
	return func() error { return syscall.Kill(os.Getpid(), syscall.SIGINT) }
}
