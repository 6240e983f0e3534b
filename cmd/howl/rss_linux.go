//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// groupRSS is the resident memory of every process in the process group
// led by pid (a stdio server and whatever it started: node, a shell
// wrapper's child), from /proc/*/stat: the pages each holds resident.
func groupRSS(pid int) (int64, string, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, "", err
	}
	page := int64(os.Getpagesize())
	var total int64
	n := 0
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		// The command name is in parentheses and may hold spaces: the
		// fields start after the last ')'. pgrp is field 5, rss field 24.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(data[i+1:])
		if len(f) < 22 {
			continue
		}
		pgrp, _ := strconv.Atoi(string(f[2]))
		if pgrp != pid && p != pid {
			continue
		}
		rss, _ := strconv.ParseInt(string(f[21]), 10, 64)
		total += rss * page
		n++
	}
	if n == 0 {
		return 0, "", fmt.Errorf("process %d is not running", pid)
	}
	return total, "resident memory of the server's process group (" + processes(n) + "), from /proc", nil
}
