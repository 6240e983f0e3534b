package mcp

import (
	"fmt"
	"time"
)

// serverProcess is a started stdio server and everything it starts, as
// the platform ends and watches them. Each platform has its own file:
// process_unix.go (a process group) with exitwatch_linux.go (waitid
// WNOWAIT) or exitwatch_kqueue.go (kqueue EVFILT_PROC), and
// process_windows.go (a job object and the process handle).
//
// startServerProcess (one per platform) starts cmd and returns it.
type serverProcess interface {
	// Terminate asks the server and its children to end: SIGTERM to its
	// process group on Unix, CTRL_BREAK to its console process group on
	// Windows. An error means the request could not be sent.
	Terminate() error
	// Kill ends the server and everything it started, at once; after the
	// server exited on its own it ends what it left behind.
	Kill()
	// WaitExit waits up to wait (forever when wait is negative) for the
	// server process to exit, without reaping it (cmd.Wait still does
	// that), and says in words how it ended; "" while it runs.
	WaitExit(wait time.Duration) string
	// Release lets go of what the platform holds for the process. It is
	// called once, after cmd.Wait; WaitExit then returns at once.
	Release()
}

// stopServer ends a stdio server whose stdin is already closed, in the
// spec's order: the grace period for it to exit by itself, then Terminate
// and shutdownTermWait, then Kill. Kill runs in every case, so children
// the server leaves behind end with it.
func stopServer(p serverProcess, grace time.Duration) {
	if p.WaitExit(grace) == "" && p.Terminate() == nil {
		p.WaitExit(shutdownTermWait)
	}
	p.Kill()
}

// exitedReason is how every platform words a server's exit; killedReason
// (exitwatch_signal.go) words its death by a signal where one is seen.
func exitedReason(status int) string {
	return fmt.Sprintf("server process exited with status %d", status)
}
