//go:build !linux

package main

import "os/exec"

// waitUnreaped waits for cmd; off Linux its memory is not told apart.
func waitUnreaped(cmd *exec.Cmd) int {
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode()
}
