//go:build unix

package mcp

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// modesApply: Unix file modes guard howl's files (0600, 0700).
const modesApply = true

// openTempsHaveNoName: createUnlinkedTemp unlinks the file it made.
const openTempsHaveNoName = true

// killedReasonWords is how a server's status says Process.Kill ended it.
const killedReasonWords = "killed by signal 9"

// notTerminated says what is wrong when a server that ignored stdin EOF
// did not end on Terminate's SIGTERM; "" when it did.
func notTerminated(ps *os.ProcessState, _, _ time.Duration) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
		return ""
	}
	return fmt.Sprintf("the server ended with %v: want it ended by SIGTERM after the grace, not killed", ps)
}
