package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
)

// A session that stays open for scripts: `howl serve-session` starts every
// configured server once and holds the connections; a verb given --session
// runs inside it (same code, same output, same exit code) instead of
// starting the servers again. It listens only on a Unix socket in a
// directory only its owner can enter; never on a network port.

// MaxSessionRequestBytes bounds one request line a session reads: a verb's
// arguments, never more.
const MaxSessionRequestBytes = 1 << 20

// MaxSessionConnections bounds the connections a session serves at once
// (a verb each, or a client yet to send its request): one more is told
// the limit and closed, so a flood of connects holds no more than this.
const MaxSessionConnections = 64

// DefaultSessionIdle is how long a session waits for its next request
// before it ends on its own.
const DefaultSessionIdle = 30 * time.Minute

// sessionRequest is one line a client sends: a verb's arguments, or stop.
type sessionRequest struct {
	Args []string `json:"args,omitempty"`
	Stop bool     `json:"stop,omitempty"`
	// Dir is the client's working directory: a verb runs in the session's,
	// so one sent from elsewhere is refused (./.mcp.json, --config FILE,
	// howl trust would be the session's directory's, not the person's).
	Dir string `json:"dir,omitempty"`
}

// sessionFrame is one line a session answers: output on stdout (Out) or
// stderr (Err) as the verb writes it, then the exit code (Done).
type sessionFrame struct {
	Out  string `json:"o,omitempty"`
	Err  string `json:"e,omitempty"`
	Done bool   `json:"done,omitempty"`
	Code int    `json:"code,omitempty"`
}

// sessionSocket is where the session listens: a Unix socket in a
// directory made (0700) and checked (owned by this user, no access for
// others) first; on Windows a named pipe only this user may open
// (sessionAddress, per platform).
func sessionSocket() (string, error) { return sessionAddress() }

func newServeSessionCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var idle time.Duration
	var stop bool
	cmd := &cobra.Command{
		Use:   "serve-session",
		Short: "Hold the servers' connections open for verbs run with --session",
		Long: `Start every configured server once and keep the connections open; a verb
run with --session (howl call --session demo add a=1 b=2) runs inside this
session instead of starting its servers again, with the same output and
exit code. The session listens on a Unix socket in <runtime dir>/howl
($XDG_RUNTIME_DIR, else the temp dir with your uid), a directory only you
may enter (on Windows a named pipe only you may open), never on a network
port. It ends after --idle without a
request, on Ctrl+C, or with howl serve-session --stop. A server's question
waits for howl answer (--elicit park, the default here: nobody sits at the
session's terminal); sampling follows --sample (decline by default).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := sessionSocket()
			if err != nil {
				return err
			}
			if stop {
				return stopSession(path, stdout)
			}
			if idle <= 0 {
				return usagef("--idle %s: give a positive duration like 30m", idle)
			}
			return serveSession(cmd.Context(), g, path, idle, stdout, stderr)
		},
	}
	cmd.Flags().DurationVar(&idle, "idle", DefaultSessionIdle, "end after this long without a request")
	cmd.Flags().BoolVar(&stop, "stop", false, "stop the running session")
	return cmd
}

// serveSession starts the servers, then answers requests until stopped.
func serveSession(ctx context.Context, g *globalFlags, path string, idle time.Duration, stdout, stderr io.Writer) error {
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	c, err := sessionDial(dctx, path)
	dcancel()
	if err == nil {
		c.Close()
		return usagef("a session is already running at %s: use it with --session, or stop it with howl serve-session --stop", path)
	}
	g.parked = newParkedQuestions()
	if g.elicit == "" {
		g.elicit = "park" // nobody sits at the session's terminal: howl answer replies
	}
	s, err := open(ctx, g)
	if err != nil {
		return err
	}
	defer s.close()
	s.parked = g.parked
	ln, err := sessionListen(path)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "howl session at %s holds %s; run verbs with --session; ends after %s idle or with howl serve-session --stop\n",
		path, heldServers(s.cfg), idle)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &sessionServer{s: s, g: g, idle: idle, stop: cancel, activity: make(chan struct{}, 1), errs: map[*frameOut]bool{}}
	logw := &lockedWriter{w: stdout}
	if g.oneOff() == "" {
		// The config files are watched as the TUI watches them: an edit
		// starts, stops or restarts servers, and the next verb sees it.
		// The watch ends before the runtime closes (defers run last first).
		rl := mcp.NewReloader(s.rt, s.cfg, loadOptions(g))
		s.current = rl.Config
		var watched sync.WaitGroup
		watched.Go(func() {
			rl.WatchReporting(ctx, mcp.WatchInterval, func(res mcp.ReloadResult, err error) {
				if err != nil || res.Changed() {
					fmt.Fprintln(logw, "howl session: "+clean(res.String()))
				}
			})
		})
		defer func() { cancel(); watched.Wait() }()
	}
	g.parked.notify = func(line string) { srv.tell(logw, line) }
	go func() { // ends when the listener closes
		<-ctx.Done()
		ln.Close()
	}()
	go srv.idleTimer(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, MaxSessionConnections)
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "howl: session ended")
				return nil
			}
			if t, ok := err.(interface{ Temporary() bool }); ok && t.Temporary() {
				// Out of file descriptors, say: wait, do not end the session.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
				}
				continue
			}
			return err
		}
		backoff = 0
		select {
		case slots <- struct{}{}:
		default:
			refuseBusy(c)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			srv.handle(ctx, c)
		}()
	}
}

// refuseBusy tells a connection past MaxSessionConnections why, and
// closes it: a short write to an empty socket, bounded all the same.
func refuseBusy(c net.Conn) {
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_ = json.NewEncoder(c).Encode(sessionFrame{Err: fmt.Sprintf("howl: the session serves at most %d connections at once (MaxSessionConnections) and all are taken: run fewer verbs at a time, or retry when one ends\n", MaxSessionConnections), Done: true, Code: exitUsage})
}

// sessionServer answers a session's requests over one shared runtime.
type sessionServer struct {
	s        *session
	g        *globalFlags
	idle     time.Duration
	stop     context.CancelFunc
	activity chan struct{}
	// busy counts the verbs running: the idle timer never ends one.
	busy atomic.Int32
	// errs are the running verbs' stderr: a parked question is told there.
	mu   sync.Mutex
	errs map[*frameOut]bool
}

// tell writes a line to the session's log and every running verb's stderr.
func (v *sessionServer) tell(log io.Writer, line string) {
	fmt.Fprintln(log, line)
	v.mu.Lock()
	defer v.mu.Unlock()
	for w := range v.errs {
		fmt.Fprintln(w, line)
	}
}

// lockedWriter writes from several goroutines, one write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sessionReadWait bounds how long a session waits for a connection's
// request line, so a client that sends nothing holds nothing for long (a
// variable for the tests).
var sessionReadWait = 10 * time.Second

// sessionWriteWait bounds how long one answer frame waits for a client
// that stopped reading: the verb's next write fails instead of holding its
// connection, and its goroutine, for good.
const sessionWriteWait = 30 * time.Second

// idleTimer ends the session after idle without a request.
func (v *sessionServer) idleTimer(ctx context.Context) {
	t := time.NewTimer(v.idle)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-v.activity:
			if !t.Stop() {
				<-t.C
			}
			t.Reset(v.idle)
		case <-t.C:
			if v.busy.Load() > 0 {
				t.Reset(v.idle)
				continue
			}
			v.stop()
			return
		}
	}
}

// touch restarts the idle timer.
func (v *sessionServer) touch() {
	select {
	case v.activity <- struct{}{}:
	default:
	}
}

// handle runs one request: a verb inside the session, its output streamed back.
func (v *sessionServer) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	// The session ending closes the connection: a verb blocked writing to a
	// client that stopped reading does not hold the session open.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	v.busy.Add(1)
	defer v.busy.Add(-1)
	defer v.touch()
	v.touch()
	_ = c.SetReadDeadline(time.Now().Add(sessionReadWait))
	line, err := bufio.NewReaderSize(io.LimitReader(c, MaxSessionRequestBytes+1), 64<<10).ReadBytes('\n')
	var req sessionRequest
	switch {
	case len(line) > MaxSessionRequestBytes:
		err = fmt.Errorf("a request line longer than %d bytes (MaxSessionRequestBytes) was cut off there", MaxSessionRequestBytes)
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("no request line within %s of connecting (sessionReadWait)", sessionReadWait)
	case err == nil:
		err = json.Unmarshal(line, &req)
	}
	enc := &frameWriter{c: c, enc: json.NewEncoder(c)}
	if err != nil {
		enc.send(sessionFrame{Err: fmt.Sprintf("howl: a session request is a verb's arguments as one JSON line of at most %d bytes (MaxSessionRequestBytes), sent at once: %v\n", MaxSessionRequestBytes, err), Done: true, Code: exitUsage})
		return
	}
	if req.Stop {
		enc.send(sessionFrame{Out: "howl: session stopped\n", Done: true})
		v.stop()
		return
	}
	if len(req.Args) > 0 && req.Args[0] == "serve-session" {
		enc.send(sessionFrame{Err: "howl: serve-session cannot run inside a session\n", Done: true, Code: exitUsage})
		return
	}
	if here, _ := os.Getwd(); !sameDir(req.Dir, here) && (len(req.Args) == 0 || req.Args[0] != "answer") {
		enc.send(sessionFrame{Err: fmt.Sprintf("howl: the session runs in %s, not in %s, where you are: its ./.mcp.json, relative paths and howl trust would be that directory's; run the verb without --session, or start howl serve-session here\n", here, req.Dir), Done: true, Code: exitUsage})
		return
	}
	errw := &frameOut{w: enc, err: true}
	v.mu.Lock()
	v.errs[errw] = true
	v.mu.Unlock()
	code := runShared(ctx, req.Args, v.s, &frameOut{w: enc}, errw)
	v.mu.Lock()
	delete(v.errs, errw)
	v.mu.Unlock()
	enc.send(sessionFrame{Done: true, Code: code})
}

// frameWriter sends frames one at a time (stdout and stderr write at once).
type frameWriter struct {
	mu  sync.Mutex
	c   net.Conn
	enc *json.Encoder
}

func (f *frameWriter) send(fr sessionFrame) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.c.SetWriteDeadline(time.Now().Add(sessionWriteWait))
	return f.enc.Encode(fr)
}

// frameOut is a verb's stdout or stderr inside a session.
type frameOut struct {
	w   *frameWriter
	err bool
}

func (o *frameOut) Write(p []byte) (int, error) {
	fr := sessionFrame{Out: string(p)}
	if o.err {
		fr = sessionFrame{Err: string(p)}
	}
	if err := o.w.send(fr); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sessionFlag reports whether args ask for the session (--session before
// any "--"), and returns them without it.
func sessionFlag(args []string) ([]string, bool) {
	if len(args) > 0 && args[0] == "answer" { // it answers the session's questions
		rest, _ := sessionFlag(args[1:])
		return append([]string{"answer"}, rest...), true
	}
	// howl ask --session ID and howl --session ID (the TUI) name a stored
	// conversation: there only --session=true means the running session.
	conversation := len(args) > 0 && (args[0] == "ask" || args[0] == "--session")
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--session=true" || a == "--session" && !conversation {
			return append(append([]string(nil), args[:i]...), args[i+1:]...), true
		}
	}
	return args, false
}

// runInSession sends a verb to the running session and prints what it
// prints; the exit code is the verb's.
func runInSession(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	path, err := sessionSocket()
	if err != nil {
		fmt.Fprintln(stderr, "howl:", err)
		return exitUsage
	}
	dir, _ := os.Getwd()
	code, err := sessionCall(ctx, path, sessionRequest{Args: args, Dir: dir}, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "howl:", err)
		return code
	}
	return code
}

// sessionCall sends one request and copies the answer's frames.
func sessionCall(ctx context.Context, path string, req sessionRequest, stdout, stderr io.Writer) (int, error) {
	c, err := sessionDial(ctx, path)
	if err != nil {
		return exitUsage, err
	}
	defer c.Close()
	go func() { // a Ctrl+C ends the wait
		<-ctx.Done()
		c.Close()
	}()
	b, _ := json.Marshal(req)
	// A session that refused the connection (all its connections taken)
	// said why and closed: the write fails, the answer is still there.
	_, werr := c.Write(append(b, '\n'))
	dec := json.NewDecoder(bufio.NewReader(c))
	for {
		var fr sessionFrame
		if err := dec.Decode(&fr); err != nil {
			if werr != nil {
				return exitServer, fmt.Errorf("sending the verb to the session at %s: %v", path, werr)
			}
			return exitServer, fmt.Errorf("the session at %s ended before the verb did: %v", path, err)
		}
		if fr.Out != "" {
			io.WriteString(stdout, fr.Out)
		}
		if fr.Err != "" {
			io.WriteString(stderr, fr.Err)
		}
		if fr.Done {
			return fr.Code, nil
		}
	}
}

// stopSession asks the running session to end.
func stopSession(path string, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errb strings.Builder
	code, err := sessionCall(ctx, path, sessionRequest{Stop: true}, stdout, &errb)
	if err != nil {
		return usageError{err}
	}
	if code != exitOK {
		return errors.New(strings.TrimSpace(errb.String()))
	}
	return nil
}

// heldServers names the servers a session holds, and apart those it does
// not start: disabled ones, and an untrusted project file's (whose names
// that file chose, so they are cleaned and never listed as held).
func heldServers(cfg *mcp.Config) string {
	var held, off, untrusted []string
	for _, sc := range cfg.Servers {
		switch {
		case sc.Untrusted != "":
			untrusted = append(untrusted, clean(sc.Name))
		case sc.Disabled:
			off = append(off, clean(sc.Name))
		default:
			held = append(held, clean(sc.Name))
		}
	}
	out := "no servers"
	if len(held) > 0 {
		out = strings.Join(held, ", ")
	}
	if len(off) > 0 {
		out += " (disabled, not started: " + strings.Join(off, ", ") + ")"
	}
	if len(untrusted) > 0 {
		out += " (not started, from an untrusted project file until you run howl trust: " + strings.Join(untrusted, ", ") + ")"
	}
	return out
}

// sameDir reports whether a and b name the same directory, links
// resolved; an empty one is no directory.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return real(a) == real(b)
}
