// Command detach runs a server for howlbench so that its memory is
// measured apart from its client's. A client that spawns a server and
// waits for it inherits the server's peak RSS in its own (Linux counts a
// reaped child's peak in its parent's), so "howl's peak RSS" used to be
// the demo server's on a big read. On Linux detach starts the server,
// writes its pid to a file, waits for it to exit without reaping it and
// exits with its status: the client reaps detach, not the server, whose
// zombie goes to howlbench (a child subreaper), which reaps it and reads
// its peak alone. A signal the client sends to stop its server (SIGTERM
// after a grace period) is passed on. Elsewhere it only runs the server.
//
//	detach PIDFILE COMMAND [ARGS...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: detach PIDFILE COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "detach:", err)
		os.Exit(127)
	}
	if err := os.WriteFile(os.Args[1], []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "detach:", err)
	}
	// Ends with the process: os.Exit below.
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	os.Exit(waitUnreaped(cmd))
}
