//go:build darwin

package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// groupRSS is the resident memory of every process in the process group
// led by pid, as ps reports it (KiB each) for every process.
func groupRSS(pid int) (int64, string, error) {
	out, err := exec.Command("ps", "-A", "-o", "pgid=", "-o", "rss=").Output()
	if err != nil {
		return 0, "", fmt.Errorf("ps: %v", err)
	}
	var total int64
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || f[0] != strconv.Itoa(pid) {
			continue
		}
		if kib, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			total += kib << 10
			n++
		}
	}
	if n == 0 {
		return 0, "", fmt.Errorf("process group %d has no processes", pid)
	}
	return total, "resident memory of the server's process group (" + processes(n) + "), from ps", nil
}
