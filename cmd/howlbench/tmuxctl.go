package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// tmuxControl is one tmux client in control mode (tmux -C) attached to
// the bench's session: it sends keys and reads the screen as commands on
// one pipe, and tells when a pane wrote something (tmux's %output
// notice). The TUI timing used to run a tmux process for every
// capture-pane and poll with it back to back: each read cost a fork and
// exec of tmux, so the harness kept a core of the two busy by itself and
// the timings were howl's on one core plus the harness's queueing. Here a
// read runs only after the pane wrote, and costs tmux a command, not a
// process.
type tmuxControl struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex // one command on the pipe at a time
	replies chan reply // closed when the client's output ends

	wrote map[string]chan struct{} // by pane id: a pane wrote since the last take
}

// reply is the output of one command, between tmux's %begin and its %end
// (or %error).
type reply struct {
	lines []string
	err   bool
}

// attachControl starts a control client attached to session, and watches
// the panes given by id (%N) for output.
func attachControl(srv tmuxServer, session string, panes ...string) (*tmuxControl, error) {
	c := &tmuxControl{
		cmd:     exec.Command(srv.tmux, "-L", srv.socket, "-C", "attach-session", "-t", session),
		replies: make(chan reply, 16),
		wrote:   map[string]chan struct{}{},
	}
	for _, p := range panes {
		c.wrote[p] = make(chan struct{}, 1)
	}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmux -C attach-session: %w", err)
	}
	go c.read(out) // ends when the client does (close, or kill-server)
	// attach-session's own reply comes first: a command of ours that
	// answers with a token we know lines the replies up.
	if _, err := io.WriteString(c.in, "display-message -p howlbench-ready\n"); err != nil {
		return nil, fmt.Errorf("tmux -C attach-session -t %s: %w", session, err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-c.replies:
			if !ok {
				return nil, fmt.Errorf("tmux -C attach-session -t %s: the client ended before it answered", session)
			}
			if len(r.lines) == 1 && r.lines[0] == "howlbench-ready" {
				return c, nil
			}
		case <-deadline:
			c.close()
			return nil, fmt.Errorf("tmux -C attach-session -t %s: no answer within 10 s", session)
		}
	}
}

// read parses the client's output: command replies go to replies, a
// pane's %output marks that pane as written.
func (c *tmuxControl) read(out io.Reader) {
	defer close(c.replies)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var block []string
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case in && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			c.replies <- reply{lines: block, err: strings.HasPrefix(line, "%error ")}
			block, in = nil, false
		case in:
			block = append(block, line)
		case strings.HasPrefix(line, "%begin "):
			in = true
		case strings.HasPrefix(line, "%output "):
			pane, _, _ := strings.Cut(strings.TrimPrefix(line, "%output "), " ")
			if ch, ok := c.wrote[pane]; ok {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}
	}
}

// run sends one command line and returns its reply's lines.
func (c *tmuxControl) run(command string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		return nil, fmt.Errorf("tmux -C: sending %q: %w", command, err)
	}
	select {
	case r, ok := <-c.replies:
		if !ok {
			return nil, fmt.Errorf("tmux -C: the client ended before it answered %q", command)
		}
		if r.err {
			return nil, fmt.Errorf("tmux -C: %q failed: %s", command, strings.Join(r.lines, " "))
		}
		return r.lines, nil
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("tmux -C: no answer to %q within 10 s", command)
	}
}

// screen is the pane's visible text, a line each, as capture-pane -p
// prints it.
func (c *tmuxControl) screen(pane string) string {
	lines, err := c.run("capture-pane -p -t " + pane)
	if err != nil {
		return err.Error()
	}
	return strings.Join(lines, "\n") + "\n"
}

// send sends keys to the pane (tmux key names, or with "-l" first the
// literal text of the next argument; the keys here are letters, digits
// and names, which need no quoting).
func (c *tmuxControl) send(pane string, keys ...string) {
	_, _ = c.run("send-keys -t " + pane + " " + strings.Join(keys, " "))
}

// forget drops a pane's pending output mark: a wait after it is for
// output that comes later.
func (c *tmuxControl) forget(pane string) {
	select {
	case <-c.wrote[pane]:
	default:
	}
}

// waitOutput returns when the pane writes, or after limit: a screen that
// did not match yet is read again only once something changed on it. The
// limit covers output tmux coalesced into a notice that came before the
// read.
func (c *tmuxControl) waitOutput(pane string, limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-c.wrote[pane]:
	case <-t.C:
	}
}

// close ends the client; its reader ends with it.
func (c *tmuxControl) close() {
	_ = c.in.Close()
	_ = c.cmd.Wait()
}
