package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes howlbench the parent of orphaned descendants, so a
// server that detach started is reaped here, with its own peak RSS.
func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}

// reapServer reaps the server whose pid detach wrote to pidfile and
// returns its peak RSS in MB (0 when unknown). A server still running
// once its client has exited (a client that gave up waiting for it) is
// killed first.
func reapServer(pidfile string) float64 {
	b, err := os.ReadFile(pidfile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	deadline := time.Now().Add(250 * time.Millisecond) // its client is gone: it has no more to do
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, &ru)
		if err != nil {
			return 0 // not ours (the client reaped it) or gone
		}
		if got == pid {
			return float64(ru.Maxrss) / 1024
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			deadline = time.Now().Add(time.Hour)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
