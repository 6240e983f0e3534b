package mcp

import "fmt"

// ServerPID is the process id of a stdio server howl started (the leader
// of its process group): what a load test measures the memory of. A
// remote server has none.
func (r *Runtime) ServerPID(name string) (int, error) {
	c, err := r.Conn(name)
	if err != nil {
		return 0, err
	}
	if c.inproc != nil {
		return 0, fmt.Errorf("server %s runs inside howl's own process (the built-in demo), so it has no memory of its own to measure: configure it as a command (howl demo-server) to measure it", name)
	}
	if c.cmd == nil || c.cmd.Process == nil {
		return 0, fmt.Errorf("server %s is not a local process howl started (it is reached over the network)", name)
	}
	return c.cmd.Process.Pid, nil
}
