//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package mcp

import "fmt"

// killedReason is how a server's death by a signal is worded, on the
// platforms whose exit watch sees the signal (exitwatch_linux.go,
// exitwatch_kqueue.go); Windows has no signals and exitwatch_other.go
// sees no exit.
func killedReason(signal int, name string) string {
	return fmt.Sprintf("server process was killed by signal %d (%s)", signal, name)
}
