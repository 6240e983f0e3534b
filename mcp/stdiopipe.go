package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/howl-mcp/howl/render"
)

// MaxUnreadAnswerBytes bounds howl's answers a stdio server has not read
// yet. mcp-go answers each of a server's requests on a goroutine of its
// own, which used to wait in the pipe's write while the server did not
// read: a server that sent 100k requests and read nothing held 100k
// goroutines (about 800 MB). Answers now wait as bytes in a queue (about
// 100 bytes each), and past this bound howl reads nothing more from the
// server until it reads its answers.
const MaxUnreadAnswerBytes = 32 << 20

// maxUnsentBytes bounds everything queued for a stdio server (howl's own
// requests too): past it a write waits, as on a full pipe.
const maxUnsentBytes = 2 * MaxUnreadAnswerBytes

// stdioPipe is a stdio child's stdin and stdout as mcp-go's transport
// sees them: writes are queued and written by one goroutine, so a server
// that does not read costs bytes, not goroutines; reads pause while too
// many answers wait unread.
type stdioPipe struct {
	w    io.WriteCloser // the child's stdin
	r    io.Reader      // the child's stdout
	name string
	// notice tells the server's log that reading paused.
	notice func(string)

	mu   sync.Mutex
	cond *sync.Cond
	// queue are the writes not written yet; bytes and answers are their
	// sizes, all and only the answers.
	queue          []queued
	bytes, answers int
	closed         bool
	err            error
	paused         bool
	done           chan struct{} // the writer goroutine ended
}

type queued struct {
	b      []byte
	answer bool
}

// startStdio starts cmd (startServerProcess) with its stdin and stdout
// piped through a stdioPipe; notice gets howl's lines about it for the
// server's log.
func startStdio(cmd *exec.Cmd, name string, notice func(string)) (*stdioPipe, serverProcess, error) {
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	proc, err := startServerProcess(cmd)
	if err != nil {
		return nil, nil, err
	}
	if notice == nil {
		notice = func(string) {}
	}
	p := &stdioPipe{w: w, r: r, name: name, notice: notice, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.writeLoop() // ends on Close, or when a write fails (the child is gone)
	return p, proc, nil
}

// Write queues one JSON-RPC message (mcp-go writes each in one call).
func (p *stdioPipe) Write(b []byte) (int, error) {
	q := queued{b: bytes.Clone(b), answer: isAnswer(b)}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.bytes > maxUnsentBytes && p.err == nil && !p.closed {
		p.cond.Wait()
	}
	switch {
	case p.err != nil:
		return 0, p.err
	case p.closed:
		return 0, io.ErrClosedPipe
	}
	p.queue = append(p.queue, q)
	p.bytes += len(q.b)
	if q.answer {
		p.answers += len(q.b)
	}
	p.cond.Broadcast()
	return len(b), nil
}

// writeLoop writes the queue to the child, in order.
func (p *stdioPipe) writeLoop() {
	defer close(p.done)
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && !p.closed {
			p.cond.Wait()
		}
		if p.closed {
			p.mu.Unlock()
			return
		}
		q := p.queue[0]
		p.queue[0] = queued{}
		p.queue = p.queue[1:]
		p.mu.Unlock()
		_, err := p.w.Write(q.b)
		p.mu.Lock()
		p.bytes -= len(q.b)
		if q.answer {
			p.answers -= len(q.b)
		}
		if err != nil {
			p.err = err
		}
		p.cond.Broadcast()
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Read reads the child's stdout, waiting first while more than
// MaxUnreadAnswerBytes of answers are unread.
func (p *stdioPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	for p.answers > MaxUnreadAnswerBytes && p.err == nil && !p.closed {
		if !p.paused {
			p.paused = true
			unread := p.answers
			p.mu.Unlock() // notice may take its time; the writer goes on
			p.notice(fmt.Sprintf("howl: %s has not read %s of howl's answers (MaxUnreadAnswerBytes): howl reads nothing more from it until it does",
				p.name, render.HumanBytes(int64(unread))))
			p.mu.Lock()
			continue
		}
		p.cond.Wait()
	}
	p.paused = false
	p.mu.Unlock()
	return p.r.Read(b)
}

// Close closes the child's stdin at once, dropping what it has not read
// (it is going away), and ends the writer.
func (p *stdioPipe) Close() error {
	p.mu.Lock()
	p.closed = true
	p.queue, p.bytes, p.answers = nil, 0, 0
	p.cond.Broadcast()
	p.mu.Unlock()
	return p.w.Close() // also ends a write blocked on a full pipe
}

// wait blocks until the writer goroutine has ended (after Close, or once
// the child is gone).
func (p *stdioPipe) wait() { <-p.done }

// isAnswer reports whether a JSON-RPC message is a response (howl's
// answer to a server's request): its object has "result" or "error"
// before any "method".
func isAnswer(msg []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		switch k {
		case "result", "error":
			return true
		case "method":
			return false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
