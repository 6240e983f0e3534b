//go:build !linux

package main

import (
	"os"
	"syscall"
	"time"
)

// becomeSubreaper is Linux only: elsewhere a server's memory is counted in
// its client's, and the report says servers' peaks are unknown.
func becomeSubreaper() bool { return false }

func reapServer(string) float64 { return 0 }

// reapPID: elsewhere howlbench adopts no orphans; it waits for pid to go.
func reapPID(pid int, grace time.Duration) float64 {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
	return 0
}

// livePeakMB and childPIDs read /proc: Linux only.
func livePeakMB(int) float64 { return 0 }
func childPIDs(int) []int    { return nil }
