//go:build linux || darwin

package main

import "fmt"

// processes is "1 process" or "N processes": how groupRSS counts the
// server's process group on the platforms that measure it (rss_other.go
// measures nothing, so it lives beside them).
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
