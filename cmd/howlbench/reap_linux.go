package main

import (
	"fmt"
	"os"
	"path/filepath"
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
	return reapPID(pid, 250*time.Millisecond) // its client is gone: it has no more to do
}

// reapPID waits for pid, an orphan howlbench adopted, to exit, killing it
// after grace, and returns its peak RSS in MB (0 when it is not ours).
func reapPID(pid int, grace time.Duration) float64 {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	deadline := time.Now().Add(grace)
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, &ru)
		if err != nil {
			return 0 // not ours (its parent reaped it) or gone
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

// livePeakMB is a running process's own peak RSS so far (VmHWM), in MB;
// 0 when unknown. Its children are not in it.
func livePeakMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// childPIDs are a running process's children: each thread lists those it
// started (a Go program starts them from any of its threads).
func childPIDs(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(w); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
