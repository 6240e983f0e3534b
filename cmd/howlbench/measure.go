package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// sample is one measured run of a subject.
type sample struct {
	seconds float64 // wall time, start to exit
	// work is the time to the last byte the process wrote to stdout: its
	// answer. seconds - work is its shutdown. 0 when not tracked.
	work     float64
	rssMB    float64 // the measured process's own peak RSS, 0 if unknown
	serverMB float64 // its server's peak RSS when detach ran it, else 0
	value    float64 // a rate (calls/s) or size, for value comparisons
}

// proc is one process to measure.
type proc struct {
	dir  string
	env  []string
	name string
	args []string
	// pidfile, when set, is where detach writes the server's pid, so the
	// server is reaped here and its peak reported apart.
	pidfile string
}

// measure runs p to completion and reports its wall time, the time of its
// last output, and its own peak RSS (and its server's, when detached).
func measure(ctx context.Context, p proc) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	if p.pidfile != "" {
		os.Remove(p.pidfile)
	}
	cmd := exec.CommandContext(ctx, p.name, p.args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	var last time.Time
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // ends when the process's stdout closes
		defer wg.Done()
		buf := make([]byte, 64<<10)
		for {
			n, err := out.Read(buf)
			if n > 0 {
				last = time.Now()
			}
			if err != nil {
				return
			}
		}
	}()
	wg.Wait()
	err = cmd.Wait()
	took := time.Since(start)
	s := sample{seconds: took.Seconds(), rssMB: peakRSSMB(cmd.ProcessState)}
	if !last.IsZero() {
		s.work = last.Sub(start).Seconds()
	}
	if p.pidfile != "" {
		s.serverMB = reapServer(p.pidfile)
	}
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v: %s", filepath.Base(p.name), strings.Join(p.args, " "), err, firstLine(stderr.String()))
	}
	return s, nil
}

// detached is the command line that runs a server under detach, writing
// its pid to pidfile.
func (e *env) detached(pidfile, command string, args ...string) (string, []string) {
	if e.detach == "" {
		return command, args
	}
	return e.detach, append([]string{pidfile, command}, args...)
}
