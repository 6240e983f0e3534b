//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package mcp

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitExit waits up to wait (forever when negative) for the child pid to
// exit, and says how it ended; "" while it runs. A kqueue EVFILT_PROC
// NOTE_EXIT event comes when the child exits, before anyone reaps it,
// with its wait status in the event's data (asked for with
// NOTE_EXITSTATUS on macOS; always there on the BSDs).
func waitExit(pid int, wait time.Duration, _ <-chan struct{}) string {
	kq, err := unix.Kqueue()
	if err != nil {
		if wait >= 0 {
			return ""
		}
		return fmt.Sprintf("server process cannot be watched (kqueue: %v)", err)
	}
	defer unix.Close(kq)
	var change unix.Kevent_t
	unix.SetKevent(&change, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	change.Fflags = noteExit
	var timeout *unix.Timespec
	if wait >= 0 {
		ts := unix.NsecToTimespec(int64(wait))
		timeout = &ts
	}
	events := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, []unix.Kevent_t{change}, events, timeout)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ESRCH:
			// Already gone (macOS refuses to watch a zombie); how it
			// ended is for cmd.Wait to learn.
			return "server process ended"
		case err != nil:
			if wait >= 0 {
				return ""
			}
			return fmt.Sprintf("server process cannot be watched (kevent: %v)", err)
		case n == 0:
			return ""
		}
		if events[0].Fflags&unix.NOTE_EXIT == 0 {
			continue
		}
		return waitStatusReason(syscall.WaitStatus(events[0].Data))
	}
}

// waitStatusReason words a wait status (kqueue's NOTE_EXIT data).
func waitStatusReason(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return exitedReason(ws.ExitStatus())
	case ws.Signaled():
		return killedReason(int(ws.Signal()), unix.SignalName(ws.Signal()))
	}
	return "server process ended"
}
