package mcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The si_code values of a SIGCHLD siginfo (Linux <asm-generic/siginfo.h>).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// siginfoStatusOffset is where si_status sits in a SIGCHLD siginfo on
// 64-bit Linux: signo, errno, code and padding (16 bytes), then the union's
// si_pid (int32) and si_uid (uint32). x/sys/unix exposes only the header.
const siginfoStatusOffset = 24

// siginfoPidOffset is where si_pid sits: right after the 16-byte header.
const siginfoPidOffset = 16

// siginfoPid is si_pid: 0 when a WNOHANG waitid found no child that
// changed state.
func siginfoPid(info *unix.Siginfo) int {
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), siginfoPidOffset)))
}

// siginfoCodeStatus extracts si_code and si_status from a waitid siginfo.
func siginfoCodeStatus(info *unix.Siginfo) (code, status int) {
	st := (*int32)(unsafe.Add(unsafe.Pointer(info), siginfoStatusOffset))
	return int(info.Code), int(*st)
}
