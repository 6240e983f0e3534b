//go:build unix

package mcp

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// groupProcess is a Unix server in a process group of its own: signals
// go to the group, so the server's children end with it, and a Ctrl+C in
// howl's terminal does not reach them.
type groupProcess struct {
	cmd  *exec.Cmd
	pid  int
	once sync.Once
	// released is closed by Release; a wait that cannot watch the process
	// (no waitid, no kqueue) ends there.
	released chan struct{}
}

// startServerProcess starts cmd as the leader of a new process group.
func startServerProcess(cmd *exec.Cmd) (serverProcess, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &groupProcess{cmd: cmd, pid: cmd.Process.Pid, released: make(chan struct{})}, nil
}

func (g *groupProcess) Terminate() error { return g.signal(unix.SIGTERM) }

// Kill sends SIGKILL to the group. Until cmd.Wait reaps the server its
// pid, and so its group id, cannot be reused: the signal reaches only
// what the server started.
func (g *groupProcess) Kill() { _ = g.signal(unix.SIGKILL) }

func (g *groupProcess) signal(sig unix.Signal) error {
	err := unix.Kill(-g.pid, sig)
	if errors.Is(err, unix.ESRCH) {
		return nil // the group is empty: nothing left to end
	}
	if err != nil {
		// Not our group after all (the child changed it): the server alone.
		return g.cmd.Process.Signal(sig)
	}
	return nil
}

func (g *groupProcess) WaitExit(wait time.Duration) string {
	select {
	case <-g.released:
		return ""
	default:
	}
	return waitExit(g.pid, wait, g.released)
}

func (g *groupProcess) Release() { g.once.Do(func() { close(g.released) }) }
