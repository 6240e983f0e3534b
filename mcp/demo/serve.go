package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// diag receives the transport's own diagnostics. It writes to stderr: on
// stdio, stdout is the protocol and nothing else may appear there.
var diag = log.New(os.Stderr, "demo-server: ", log.LstdFlags)

// ShutdownTimeout bounds how long ServeHTTP waits for open requests and
// streams when its context ends.
const ShutdownTimeout = 2 * time.Second

// ServeStdio serves s over newline-delimited JSON-RPC: requests arrive on in,
// responses and notifications leave on out (nothing else is written there).
//
// It returns nil when in reaches EOF, or ctx's error when ctx is done; either
// way it first cancels the requests still running and waits for them (the
// slow tool stops at once). One goroutine reading in may outlive a return
// caused by ctx: a blocked Read cannot be interrupted, so it ends when in is
// closed.
//
// Each call has its own client session, so any number of ServeStdio calls,
// on one server or several, can run in one process. Requests run
// concurrently; a notification the server sends while handling a request is
// written before that request's response, and the response to a request the
// client cancelled (notifications/cancelled) is not sent at all.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sess := newStdioSession()
	if err := s.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("demo server: registering stdio session %s: %w", sess.id, err)
	}
	ctx = s.WithContext(ctx, sess)

	c := &stdioConn{srv: s, sess: sess, responses: make(chan []byte), inflight: map[string]bool{}}
	// Only handlers ask the client, and they end before responses closes.
	sess.asker.mu.Lock()
	sess.asker.send = func(line []byte) { c.responses <- line }
	sess.asker.mu.Unlock()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop(&lineWriter{out: out, quiet: &c.inputEnded})
	}()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go readLines(ctx, in, lines, readErr)

	var err error
	var handlers sync.WaitGroup
loop:
	for {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		case line, ok := <-lines:
			if !ok {
				if err = <-readErr; errors.Is(err, io.EOF) {
					err = nil
				}
				break loop
			}
			c.dispatch(ctx, line, &handlers)
		}
	}

	c.inputEnded.Store(true) // the client is leaving: failed writes are expected now
	cancel()
	handlers.Wait()
	s.UnregisterSession(context.WithoutCancel(ctx), sess.id)
	close(c.responses)
	<-writerDone
	return err
}

// readLines sends each non-blank line of in to lines, then the read error
// (io.EOF at the end) to errc and closes lines.
func readLines(ctx context.Context, in io.Reader, lines chan<- []byte, errc chan<- error) {
	defer close(lines)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case lines <- line:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
		if err != nil {
			errc <- err
			return
		}
	}
}

// stdioConn is the state of one ServeStdio call.
type stdioConn struct {
	srv       *server.MCPServer
	sess      *stdioSession
	responses chan []byte // encoded responses, one line each, to the writer

	inputEnded atomic.Bool

	mu       sync.Mutex
	inflight map[string]bool // request id -> cancelled by the client
}

// dispatch handles one incoming line. Requests run on their own goroutine;
// responses to the session's own requests go to their askers; notifications
// (notably notifications/cancelled) and stray responses are handled in
// order, on the read loop.
func (c *stdioConn) dispatch(ctx context.Context, line []byte, handlers *sync.WaitGroup) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(line, &head) // a malformed line gets mcp-go's parse error below
	id := idKey(head.ID)
	if id != "" && head.Method == "" && c.sess.asker.answer(id, line) {
		return
	}
	if id == "" || head.Method == "" {
		if head.Method == string(mcp.MethodNotificationCancelled) {
			c.markCancelled(idKey(head.Params.RequestID))
		}
		c.send(c.handle(ctx, head.ID, line))
		return
	}
	c.mu.Lock()
	c.inflight[id] = false
	c.mu.Unlock()
	handlers.Go(func() {
		resp := c.handle(ctx, head.ID, line)
		c.mu.Lock()
		cancelled := c.inflight[id]
		delete(c.inflight, id)
		c.mu.Unlock()
		if !cancelled {
			c.send(resp)
		}
	})
}

// idKey normalises a JSON-RPC id ("" for none or null).
func idKey(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil || buf.String() == "null" {
		return ""
	}
	return buf.String()
}

func (c *stdioConn) markCancelled(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.inflight[id]; ok {
		c.inflight[id] = true
	}
}

// handle runs one message through mcp-go, turning a panic into an error
// response instead of a crash.
func (c *stdioConn) handle(ctx context.Context, rawID json.RawMessage, line []byte) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			diag.Printf("panic while handling %.200s: %v", line, r)
			if idKey(rawID) != "" {
				var id any
				_ = json.Unmarshal(rawID, &id)
				resp = mcp.NewJSONRPCError(mcp.NewRequestId(id), mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", r), nil)
			}
		}
	}()
	if resp, ok := skillAnswer(c.srv, line); ok {
		return json.RawMessage(resp)
	}
	return c.srv.HandleMessage(ctx, bytes.TrimSpace(line))
}

// send encodes a response and hands it to the writer.
func (c *stdioConn) send(resp mcp.JSONRPCMessage) {
	if resp == nil {
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		diag.Printf("encoding a response: %v", err)
		return
	}
	c.responses <- b
}

// writeLoop is the only writer of out. Before each response it writes every
// notification already queued, so a handler's progress and log
// notifications always precede its response. It returns when responses is
// closed, after writing the notifications still queued.
func (c *stdioConn) writeLoop(w *lineWriter) {
	for {
		select {
		case n := <-c.sess.notifications:
			w.writeJSON(n)
		case b, ok := <-c.responses:
			c.drainNotifications(w)
			if !ok {
				return
			}
			w.writeLine(b)
		}
	}
}

func (c *stdioConn) drainNotifications(w *lineWriter) {
	for {
		select {
		case n := <-c.sess.notifications:
			w.writeJSON(n)
		default:
			return
		}
	}
}

// lineWriter writes JSON lines. It reports only its first failure (a client
// that went away would otherwise fill stderr), and none once quiet is set.
type lineWriter struct {
	out    io.Writer
	quiet  *atomic.Bool
	failed bool
}

func (w *lineWriter) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		diag.Printf("encoding a notification: %v", err)
		return
	}
	w.writeLine(b)
}

func (w *lineWriter) writeLine(b []byte) {
	if _, err := w.out.Write(append(b, '\n')); err != nil && !w.failed {
		w.failed = true
		if w.quiet.Load() {
			return
		}
		diag.Printf("writing to stdout failed, dropping output until stdin closes: %v", err)
	}
}

// ServeHTTP serves s over streamable HTTP at path /mcp on addr (e.g.
// "127.0.0.1:0" for any free port). Once it listens it calls ready, if not
// nil, with the endpoint URL, e.g. http://127.0.0.1:41234/mcp. When ctx is
// done it closes the MCP sessions, shuts the HTTP server down (waiting at most
// ShutdownTimeout) and returns nil; it returns an error only if it cannot
// listen or serving fails.
func ServeHTTP(ctx context.Context, s *server.MCPServer, addr string, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("demo server: cannot listen on %q: %w (use host:port, e.g. 127.0.0.1:8080, or port 0 for any free port)", addr, err)
	}
	mcpHandler := server.NewStreamableHTTPServer(s,
		server.WithEndpointPath("/mcp"),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", skillsHTTP(s, mcpHandler))
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          diag,
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if ready != nil {
		ready("http://" + dialAddr(ln.Addr()) + "/mcp")
	}

	select {
	case err := <-served:
		return fmt.Errorf("demo server: serving HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	mcpHandler.CloseSessions(shutdownCtx)
	if err := hs.Shutdown(shutdownCtx); err != nil {
		_ = hs.Close()
	}
	<-served // http.ErrServerClosed
	return nil
}

// dialAddr turns a listening address into one a client can dial: a wildcard
// host (0.0.0.0 or ::) becomes the loopback address.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
