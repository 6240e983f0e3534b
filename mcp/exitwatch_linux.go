package mcp

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitExit waits up to wait (forever when negative) for the child pid to
// exit, without reaping it (waitid WNOWAIT: cmd.Wait still does that),
// and says how it ended; "" while it runs.
func waitExit(pid int, wait time.Duration, _ <-chan struct{}) string {
	opts := unix.WEXITED | unix.WNOWAIT
	if wait >= 0 {
		opts |= unix.WNOHANG
	}
	deadline := time.Now().Add(wait)
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, opts, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			if wait >= 0 {
				return ""
			}
			return fmt.Sprintf("server process is gone (%v)", err)
		case siginfoPid(&info) != 0:
			return siginfoReason(&info)
		case time.Now().After(deadline):
			return ""
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The si_code values of a SIGCHLD siginfo (Linux <asm-generic/siginfo.h>).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// siginfoPidOffset is where si_pid sits in a SIGCHLD siginfo: after the
// header of three int32s (signo, errno, code), where the union starts,
// aligned to a pointer (16 on 64-bit Linux, 12 on 32-bit). x/sys/unix
// exposes only the header.
const siginfoPidOffset = (12 + ptrSize - 1) &^ (ptrSize - 1)

const ptrSize = unsafe.Sizeof(uintptr(0))

// siginfoStatusOffset is where si_status sits: after si_pid (int32) and
// si_uid (uint32).
const siginfoStatusOffset = siginfoPidOffset + 8

// siginfoPid is si_pid: 0 when a WNOHANG waitid found no child that
// changed state.
func siginfoPid(info *unix.Siginfo) int {
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), siginfoPidOffset)))
}

// siginfoReason reads the child's fate from a waitid siginfo.
func siginfoReason(info *unix.Siginfo) string {
	status := int(*(*int32)(unsafe.Add(unsafe.Pointer(info), siginfoStatusOffset)))
	switch info.Code {
	case cldExited:
		return exitedReason(status)
	case cldKilled, cldDumped:
		return killedReason(status, unix.SignalName(unix.Signal(status)))
	}
	return "server process ended"
}
