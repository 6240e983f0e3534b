//go:build dragonfly || freebsd || netbsd || openbsd

package mcp

import "golang.org/x/sys/unix"

// noteExit asks kqueue for the child's exit; the BSDs put its wait status
// in the event's data unasked.
const noteExit = unix.NOTE_EXIT
