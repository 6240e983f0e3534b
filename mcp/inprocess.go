package mcp

import (
	"context"
	"io"
	"os"
	"time"
)

// A server with ServerConfig.Serve runs in howl's own process, over the
// framing a child's stdin and stdout would carry (newline-delimited
// JSON-RPC on two OS pipes), through the same transport. The embedded
// demo runs this way: as `howl demo-server` it was a second howl process
// paying howl's whole start-up (some 40 ms of package initialisation,
// most of it the TUI's libraries) before it could answer.

// inProcess is a server running on a goroutine of its own, owned by its
// Conn: Close ends it.
type inProcess struct {
	cancel context.CancelFunc
	done   chan struct{}
	out    *os.File // howl's end of the server's output
}

// startInProcess starts sc.Serve on two pipes and returns howl's ends:
// the server's input and its output.
func startInProcess(lifetime context.Context, sc ServerConfig) (io.WriteCloser, io.Reader, *inProcess, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithCancel(lifetime)
	p := &inProcess{cancel: cancel, done: make(chan struct{}), out: outR}
	go func() { // ends when its input ends (Close) or ctx does
		defer close(p.done)
		_ = sc.Serve(ctx, inR, outW)
		outW.Close() // howl's reader sees the end
		inR.Close()
	}()
	return inW, outR, p, nil
}

// stop waits for the server to end once its input is closed, as long as
// grace, then cancels its context (its SIGTERM) and waits for it.
func (p *inProcess) stop(grace time.Duration) {
	select {
	case <-p.done:
	case <-time.After(grace):
		p.cancel()
		<-p.done
	}
	p.cancel()
	p.out.Close()
}
