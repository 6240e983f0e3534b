//go:build darwin

package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// groupRSS is the resident memory of every process in the process group
// led by pid, as ps reports it (KiB each).
func groupRSS(pid int) (int64, string, error) {
	out, err := exec.Command("ps", "-o", "rss=", "-g", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0, "", fmt.Errorf("ps: %v", err)
	}
	var total int64
	n := 0
	for _, l := range strings.Fields(string(out)) {
		kib, err := strconv.ParseInt(l, 10, 64)
		if err == nil {
			total += kib << 10
			n++
		}
	}
	if n == 0 {
		return 0, "", fmt.Errorf("process group %d has no processes", pid)
	}
	return total, "resident memory of the server's process group (" + processes(n) + "), from ps", nil
}
