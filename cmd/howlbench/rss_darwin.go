package main

import (
	"os"
	"syscall"
)

// peakRSSMB is a finished process's peak resident set in MiB (ru_maxrss
// is in bytes on macOS); 0 if unknown.
func peakRSSMB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return 0
}
