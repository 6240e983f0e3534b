//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package mcp

import "time"

// waitExit cannot watch a child here without reaping it: a wait ends when
// it times out or the process is released, and a server's death is noticed
// at its next call.
func waitExit(_ int, wait time.Duration, released <-chan struct{}) string {
	if wait < 0 {
		<-released
		return ""
	}
	select {
	case <-released:
	case <-time.After(wait):
	}
	return ""
}
