package mcp

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// waitExit blocks until the stdio child exits, without reaping it (WNOWAIT:
// Close still does the real Wait), and describes how it ended.
// It returns at once when there is no child.
func (c *Conn) waitExit() string {
	if c.cmd == nil || c.cmd.Process == nil {
		return ""
	}
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, c.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Sprintf("server process is gone (%v)", err)
		}
		break
	}
	return exitReason(info)
}

// exitReason reads the child's fate from a waitid siginfo.
func exitReason(info unix.Siginfo) string {
	// The siginfo union's layout: si_code, then si_pid, si_uid, si_status.
	code, status := siginfoCodeStatus(&info)
	switch code {
	case cldExited:
		return fmt.Sprintf("server process exited with status %d", status)
	case cldKilled, cldDumped:
		return fmt.Sprintf("server process was killed by signal %d (%s)", status, unix.SignalName(unix.Signal(status)))
	}
	return "server process ended"
}

// exitedBy describes how the stdio child ended when it has ended within
// wait, without reaping it; "" when it is still running (or there is
// none). A handshake that failed because the child went away says why.
func (c *Conn) exitedBy(wait time.Duration) string {
	if c.cmd == nil || c.cmd.Process == nil {
		return ""
	}
	deadline := time.Now().Add(wait)
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, c.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		if err == nil && siginfoPid(&info) != 0 {
			return exitReason(info)
		}
		if err != nil && err != unix.EINTR || time.Now().After(deadline) {
			return ""
		}
		time.Sleep(5 * time.Millisecond)
	}
}
