package mcp

import "golang.org/x/sys/unix"

// noteExit asks kqueue for the child's exit and its wait status.
const noteExit = unix.NOTE_EXIT | unix.NOTE_EXITSTATUS
