package main

import "testing"

// selfInterrupter skips the test: on Windows os.Interrupt cannot be sent
// to a process, and a console's Ctrl+C would reach every process attached
// to it (the test runner too).
func selfInterrupter(t *testing.T) func() error {
	t.Helper()
	t.Skip("SKIP on Windows: a Ctrl+C cannot be sent to this process alone; the interrupt path is tested on Unix")
	return nil
}
