package main

import (
	"os/exec"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitUnreaped waits for cmd to exit without reaping it (waitid WNOWAIT)
// and returns its exit status as a shell would.
func waitUnreaped(cmd *exec.Cmd) int {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 1
		}
		break
	}
	// The union after si_signo, si_errno, si_code and padding (16 bytes)
	// holds si_pid, si_uid, then si_status.
	status := *(*int32)(unsafe.Add(unsafe.Pointer(&info), 24))
	if info.Code != 1 { // not CLD_EXITED: a signal ended it
		status += 128
	}
	return int(status) & 0xff
}
