package mcp

import (
	"fmt"
	"os"
	"time"
)

// modesApply: Windows keeps no Unix modes (os.Stat reports 0666 or
// 0444); a user's files are guarded by the ACLs of their profile
// directories, where howl keeps them.
const modesApply = false

// openTempsHaveNoName: an open FILE_FLAG_DELETE_ON_CLOSE file keeps its
// name until its handle closes (createUnlinkedTemp).
const openTempsHaveNoName = false

// killedReasonWords is how a server's status says Process.Kill ended it
// (TerminateProcess with exit code 1).
const killedReasonWords = "exited with status 1"

// statusControlCExit is the exit code of a console process ended by a
// CTRL_BREAK it did not handle (STATUS_CONTROL_C_EXIT).
const statusControlCExit = 0xC000013A

// notTerminated says what is wrong when a server that ignored stdin EOF
// was neither ended by Terminate's CTRL_BREAK nor, where no console can
// carry one (a service; Wine without a terminal, as in CI), killed right
// after the grace, without waiting shutdownTermWait for nothing; "" when
// it was one or the other.
func notTerminated(ps *os.ProcessState, took, grace time.Duration) string {
	switch code := uint32(ps.ExitCode()); {
	case code == statusControlCExit:
		return ""
	case code == 1 && took < grace+shutdownTermWait:
		return ""
	}
	return fmt.Sprintf("the server ended with %v after %v: want CTRL_BREAK after the grace (%v), or the kill at once where it cannot be sent", ps, took, grace)
}
