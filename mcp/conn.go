package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// Shutdown timing for stdio children, per the spec's stdio shutdown order:
// close stdin, wait a short grace, SIGTERM, wait, SIGKILL.
const (
	DefaultShutdownGrace = 50 * time.Millisecond
	shutdownTermWait     = 1 * time.Second
)

// autoDiscoverTimeout bounds the server/discover probe on first contact with
// a server whose era howl has not learned yet (mcp-go's default is 5 s).
const autoDiscoverTimeout = 2 * time.Second

// rawSinkKey carries a *rawSink through a request's context so the transport
// tap can keep the raw JSON-RPC result the typed client API then parses.
type rawSinkKey struct{}

type rawSink struct {
	mu     sync.Mutex
	result json.RawMessage
	// typed: the caller reads mcp-go's typed result too (the handshake),
	// so no tap may stand in for it (standIn).
	typed bool
	// streamsBlobs: the caller decodes blobs from the stdio transport's
	// spool file (render.ReadContentsFrom), so a long answer's short copy
	// serves, and long holds what it left in the file.
	streamsBlobs bool
	long         *spooledStrings
}

// setLong keeps the spooled blobs of the sink's latest answer.
func (s *rawSink) setLong(long *spooledStrings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.long.Close() // an earlier round's (2026-07-28 input requests)
	s.long = long
}

// spooledBytes is how much of the latest answer stayed in the spool file.
func (s *rawSink) spooledBytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.long == nil {
		return 0
	}
	return s.long.elided
}

// takeLong hands the spooled blobs over to the caller, who closes them.
func (s *rawSink) takeLong() *spooledStrings {
	s.mu.Lock()
	defer s.mu.Unlock()
	long := s.long
	s.long = nil
	return long
}

func withRawSink(ctx context.Context) (context.Context, *rawSink) {
	s := &rawSink{}
	return context.WithValue(ctx, rawSinkKey{}, s), s
}

// withTypedRawSink keeps the raw result beside mcp-go's typed parse of it.
func withTypedRawSink(ctx context.Context) (context.Context, *rawSink) {
	s := &rawSink{typed: true}
	return context.WithValue(ctx, rawSinkKey{}, s), s
}

func (s *rawSink) get() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

func tap(ctx context.Context, resp *transport.JSONRPCResponse) {
	if resp == nil || resp.Error != nil {
		return
	}
	if s, ok := ctx.Value(rawSinkKey{}).(*rawSink); ok {
		s.mu.Lock()
		s.result = resp.Result // the transport never reuses it: no copy
		s.mu.Unlock()
	}
}

// The taps embed the concrete transports so every optional interface the
// client looks for (bidirectional requests, HTTP headers) is still there;
// SendRequest is wrapped, to keep the raw result (mcp-go parses
// results strictly, one odd item failing a whole page, so howl parses the
// raw JSON itself, item by item), to hand mcp-go's client {} in its place
// (standIn), and to trace the request; and
// SetRequestHandler, to bound the server's own requests (requestGate).
type stdioTap struct {
	*lineTransport
	trace traceFunc
	gate  requestGate
	// lost, when set, hears of a request that failed because the
	// connection closed under it (dialOptions.lost).
	lost func(ctx context.Context, method string)
}

// SetRequestHandler bounds the server's requests before mcp-go sees them.
func (t *stdioTap) SetRequestHandler(h transport.RequestHandler) {
	t.lineTransport.SetRequestHandler(t.gate.wrap(h))
}

func (t *stdioTap) SendRequest(ctx context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	start := time.Now()
	resp, err := t.lineTransport.SendRequest(ctx, r)
	tapped(ctx, t.trace, r, resp, err, start)
	standIn(ctx, resp)
	if t.lost != nil && errors.Is(err, transport.ErrTransportClosed) {
		t.lost(ctx, r.Method)
	}
	return resp, err
}

type httpTap struct {
	*transport.StreamableHTTP
	trace   traceFunc
	gate    requestGate
	answers *answerGate
	hide    urlHider // the url in mcp-go's errors
}

// SetRequestHandler bounds the server's requests before mcp-go sees them:
// the questions pending (gate), and the answers on their way (answers).
func (t *httpTap) SetRequestHandler(h transport.RequestHandler) {
	t.StreamableHTTP.SetRequestHandler(t.answers.wrap(t.gate.wrap(h)))
}

func (t *httpTap) SendRequest(ctx context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	start := time.Now()
	ctx, bound := withBodyBound(ctx)
	resp, err := t.StreamableHTTP.SendRequest(ctx, r)
	if again, ok := versionRetry(r, resp); ok && err == nil {
		resp, err = t.StreamableHTTP.SendRequest(ctx, again)
	}
	if tooLong := bound.get(); err != nil && tooLong != nil {
		err = tooLong // what mcp-go makes of it ("unexpected nil response") does not say
	}
	err = t.hide.err(err)
	tapped(ctx, t.trace, r, resp, err, start)
	httpStandIn(ctx, r, resp)
	return resp, err
}

// httpStandIn is standIn for the HTTP taps, but for a page of tools/list,
// which mcp-go's client parses and keeps: a tools/call then sends the
// tool's x-mcp-header parameters as HTTP headers (SEP-2243).
func httpStandIn(ctx context.Context, r transport.JSONRPCRequest, resp *transport.JSONRPCResponse) {
	if r.Method != string(mcpgo.MethodToolsList) {
		standIn(ctx, resp)
	}
}

// sseTap is the old (2024-11-05) HTTP+SSE transport, whose one event
// stream carries every answer: once it ends, no request waiting can get
// one, so each fails at once with why the stream ended (lost), instead of
// waiting for its timeout; the runtime marks the server failed with the
// same reason (Conn.waitLost).
type sseTap struct {
	*transport.SSE
	trace traceFunc
	lost  *streamLoss
	hide  urlHider // the url in mcp-go's errors
}

func (t *sseTap) SendRequest(ctx context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	start := time.Now()
	sctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(t.lost.ctx, cancel)
	resp, err := t.SSE.SendRequest(sctx, r)
	stop()
	cancel()
	if why := t.lost.why(); err != nil && ctx.Err() == nil && why != nil {
		err = why // what mcp-go says of it (a cancelled context) does not say
	}
	err = t.hide.err(err)
	tapped(ctx, t.trace, r, resp, err, start)
	httpStandIn(ctx, r, resp)
	return resp, err
}

// Close ends the stream; a loss noted after it is howl's doing.
func (t *sseTap) Close() error {
	t.lost.note(errClosedByHowl)
	return t.SSE.Close()
}

// errClosedByHowl ends a streamLoss when howl closes the connection.
var errClosedByHowl = errors.New("howl closed the connection")

// streamLoss is the end of an old HTTP+SSE connection's event stream, and
// why it ended.
type streamLoss struct {
	ctx  context.Context
	end  context.CancelCauseFunc
	once sync.Once
}

func newStreamLoss() *streamLoss {
	ctx, end := context.WithCancelCause(context.Background())
	return &streamLoss{ctx: ctx, end: end}
}

// note ends the stream for err (the first reason stands): mcp-go's
// connection-lost handler, called when its read of the stream fails.
func (l *streamLoss) note(err error) {
	l.once.Do(func() {
		switch {
		case errors.Is(err, io.EOF):
			err = errors.New("the server ended its event stream, which carries every answer")
		case errors.Is(err, errOverMaxMessageBytes), errors.Is(err, errOverMaxEventDataRuns), errors.Is(err, errClosedByHowl):
		default:
			err = fmt.Errorf("its event stream, which carries every answer, broke: %w", err)
		}
		l.end(err)
	})
}

// why is the reason the stream ended, or nil while it runs.
func (l *streamLoss) why() error { return context.Cause(l.ctx) }

// tapped is what every tap does with a finished request.
func tapped(ctx context.Context, trace traceFunc, r transport.JSONRPCRequest, resp *transport.JSONRPCResponse, err error, start time.Time) {
	tap(ctx, resp)
	if trace != nil {
		spooled := 0
		if s, ok := ctx.Value(rawSinkKey{}).(*rawSink); ok {
			spooled = s.spooledBytes()
		}
		trace(r, resp, spooled, err, time.Since(start))
	}
}

// exitedWait is how long a failed handshake waits to learn whether the
// child exited (it closes its stdout a moment before it is gone).
const exitedWait = 100 * time.Millisecond

// libLogger is the logger howl gives mcp-go's transports. By default they
// log to slog's default, that is the terminal, where a line tears through
// the TUI's screen and mixes into a verb's output ("listening to server
// forever" at info, an error when a reply races a close). Warnings and
// worse go to emit, one line each, as part of the server's log; the rest,
// and everything when emit is nil, is dropped.
func libLogger(emit func(string)) *slog.Logger {
	if emit == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(lineEmitter(emit), &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // the log pane stamps its own time
			}
			return a
		},
	}))
}

// lineEmitter hands each record slog writes (one Write per record) to emit.
type lineEmitter func(string)

func (e lineEmitter) Write(p []byte) (int, error) {
	e(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Conn is a live connection to one server.
type Conn struct {
	name   string
	client *client.Client
	cmd    *exec.Cmd // stdio only
	proc   serverProcess
	pipe   *stdioPipe
	line   *lineTransport // stdio only
	inproc *inProcess     // a server in howl's process (ServerConfig.Serve)
	stream *streamLoss    // old HTTP+SSE only: the end of its event stream
	grace  time.Duration
	// pageTimeout bounds how long one page of a listing may go unanswered
	// (zero: DefaultCallTimeout).
	pageTimeout time.Duration
	init        *mcpgo.InitializeResult
	features    Features
	meta        map[string]any // the _meta of requests howl sends itself (rawrequest.go)
	closed      sync.Once
	closing     atomic.Bool
	// ended is closed when the exit watcher is done with the connection
	// (Runtime.serverExited): the server is failed with how its process
	// (or old HTTP+SSE event stream) ended, or howl had closed it.
	ended chan struct{}
}

// Name is the server's configured name.
func (c *Conn) Name() string { return c.name }

// Features reports what the server advertised in its handshake.
func (c *Conn) Features() Features { return c.features }

// Client exposes the underlying mcp-go client for calls howl has no wrapper
// for yet. Never call it from inside a notification handler.
func (c *Conn) Client() *client.Client { return c.client }

// ProtocolVersion is the negotiated protocol revision.
func (c *Conn) ProtocolVersion() string { return c.client.ProtocolVersion() }

// dialOptions is what connect needs beyond the server entry.
type dialOptions struct {
	clientInfo mcpgo.Implementation
	era        Era // resolved: modern or legacy, or auto for "probe"
	stderr     *stderrRing
	grace      time.Duration
	onNotify   func(mcpgo.JSONRPCNotification)
	// trace, when set, sees every request and how it ended.
	trace traceFunc
	// libLog, when set, gets mcp-go's own warnings about the connection;
	// notice, when set, howl's own lines about it.
	libLog, notice func(line string)
	elicit         Elicitor
	// httpClient, when set, carries remote requests (the OAuth authorizer).
	httpClient *http.Client
	roots      client.RootsHandler
	sample     client.SamplingHandler
	// gate bounds the server's own requests (MaxPendingServerRequests).
	gate requestGate
	// spoolDir is where a stdio server's long messages are spooled.
	spoolDir string
	// pageTimeout bounds each page of a listing (the entry's "timeout").
	pageTimeout time.Duration
	// hide shows a remote server's url as ShownURL has it in the text of
	// mcp-go's errors and log lines (dial sets it).
	hide urlHider
	// lost, when set, hears of each request to a stdio server that failed
	// because the connection closed under it (the server exited, or
	// closed its stdout), with the request's context and method.
	lost func(ctx context.Context, c *Conn, method string)
}

// dial opens the transport, runs the handshake and returns a ready Conn.
// lifetime bounds the connection (cancelling it ends a stdio child);
// ctx bounds only the handshake. A remote server's url shows in its
// errors and mcp-go's log lines as ShownURL has it.
func dial(lifetime, ctx context.Context, sc ServerConfig, o dialOptions) (*Conn, error) {
	if sc.Transport == TransportStdio {
		return connect(lifetime, ctx, sc, o)
	}
	o.hide = hiderOf(sc.URL)
	if log := o.libLog; log != nil {
		o.libLog = func(line string) { log(o.hide.text(line)) }
	}
	c, err := connect(lifetime, ctx, sc, o)
	return c, o.hide.err(err)
}

// connect is dial, the url shown whole.
func connect(lifetime, ctx context.Context, sc ServerConfig, o dialOptions) (*Conn, error) {
	c := &Conn{name: sc.Name, grace: o.grace, pageTimeout: o.pageTimeout, ended: make(chan struct{})}
	var lost func(context.Context, string)
	if o.lost != nil {
		lost = func(ctx context.Context, method string) { o.lost(ctx, c, method) }
	}
	if sc.ShutdownGrace > 0 {
		c.grace = sc.ShutdownGrace
	}
	var tr transport.Interface
	switch sc.Transport {
	case TransportStdio:
		if sc.Serve != nil {
			in, out, p, err := startInProcess(lifetime, sc)
			if err != nil {
				return nil, fmt.Errorf("starting %s in process: %w", describeTarget(sc), err)
			}
			c.inproc = p
			c.line = newLineTransport(out, in, libLogger(o.libLog), o.spoolDir)
			tr = &stdioTap{lineTransport: c.line, trace: o.trace, gate: o.gate, lost: lost}
			break
		}
		// howl starts the child and owns its pipes: writes are queued by
		// stdioPipe, so a server that stops reading its stdin costs bytes,
		// not goroutines; its stdout is read by howl's lineTransport
		// (linetransport.go says why).
		c.cmd = stdioCommand(sc, o.stderr)
		pipe, proc, err := startStdio(c.cmd, sc.Name, o.notice)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", describeTarget(sc), startError(err))
		}
		c.pipe, c.proc = pipe, proc
		c.line = newLineTransport(pipe, pipe, libLogger(o.libLog), o.spoolDir)
		tr = &stdioTap{lineTransport: c.line, trace: o.trace, gate: o.gate, lost: lost}
	case TransportHTTP:
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(libLogger(o.libLog))}
		if o.era == EraLegacy {
			// Before 2026-07-28, server requests and notifications that
			// belong to no request (elicitation, list_changed) come on a
			// standalone GET stream; mcp-go opens it only when asked, and
			// asking rules out the modern protocol. Client.Listen, the
			// 2026-07-28 replacement, does not exist on a legacy connection.
			//lint:ignore SA1019 legacy connections only: their server-initiated messages come on the GET stream
			opts = append(opts, transport.WithContinuousListening())
		}
		if len(sc.Headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(sc.Headers))
		}
		opts = append(opts, transport.WithHTTPBasicClient(guardedClient(o.httpClient, sc.URL, false)))
		h, err := transport.NewStreamableHTTP(sc.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("http transport for %s: %w", ShownURL(sc.URL), err)
		}
		tr = &httpTap{StreamableHTTP: h, trace: o.trace, gate: o.gate, answers: &answerGate{server: sc.Name, notice: o.notice}, hide: o.hide}
	case TransportSSE:
		opts := []transport.ClientOption{transport.WithSSELogger(libLogger(o.libLog))}
		if len(sc.Headers) > 0 {
			opts = append(opts, transport.WithHeaders(sc.Headers))
		}
		opts = append(opts, transport.WithHTTPClient(guardedClient(o.httpClient, sc.URL, true)))
		s, err := transport.NewSSE(sc.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("sse transport for %s: %w", ShownURL(sc.URL), err)
		}
		c.stream = newStreamLoss()
		s.SetConnectionLostHandler(func(err error) { c.stream.note(o.hide.err(err)) })
		tr = &sseTap{SSE: s, trace: o.trace, lost: c.stream, hide: o.hide}
	default:
		return nil, fmt.Errorf("server %s: unknown transport %q", sc.Name, sc.Transport)
	}

	var copts []client.ClientOption
	switch o.era {
	case EraLegacy:
		copts = append(copts, client.WithProtocolVersion(mcpgo.LATEST_LEGACY_PROTOCOL_VERSION))
	case EraAuto:
		copts = append(copts, client.WithDiscoverTimeout(autoDiscoverTimeout))
	}
	// howl hosts MCP Apps (mcp/apphost), so servers may offer their
	// tools' interfaces.
	caps := mcpgo.ClientCapabilities{Extensions: map[string]any{AppExtension: map[string]any{"mimeTypes": []string{AppMIMEType}}}}
	if o.elicit != nil {
		// Both modes: an empty elicitation capability would mean form only,
		// and servers then never send URL requests (howl shows the URL and
		// opens it when the person agrees).
		copts = append(copts, client.WithElicitationHandler(elicitAdapter{server: sc.Name, fn: o.elicit}))
		caps.Elicitation = &mcpgo.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
	}
	copts = append(copts, client.WithClientCapabilities(caps))
	if o.roots != nil {
		copts = append(copts, client.WithRootsHandler(o.roots))
	}
	if o.sample != nil {
		copts = append(copts, client.WithSamplingHandler(o.sample))
	}
	c.client = client.NewClient(tr, copts...)
	if err := c.client.Start(lifetime); err != nil {
		c.Close()
		return nil, fmt.Errorf("starting %s: %w", describeTarget(sc), plainOrigin(err))
	}
	if o.onNotify != nil {
		c.client.OnNotification(o.onNotify)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = o.clientInfo
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	if o.era == EraLegacy {
		req.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	}
	hctx, handshake := withTypedRawSink(ctx)
	res, err := c.client.Initialize(hctx, req)
	if err != nil {
		// A child that went away says why, before Close ends it for good.
		gone := ""
		if lifetime.Err() == nil && ctx.Err() == nil {
			gone = c.exitedBy(exitedWait)
		}
		c.Close()
		if ctx.Err() != nil && lifetime.Err() == nil {
			return nil, fmt.Errorf("no handshake from %s within the start timeout: %w", describeTarget(sc), ctx.Err())
		}
		if gone != "" {
			return nil, fmt.Errorf("handshake with %s failed: the %s before answering: %w", describeTarget(sc), gone, err)
		}
		return nil, fmt.Errorf("handshake with %s failed: %w", describeTarget(sc), plainOrigin(err))
	}
	res.Instructions = keptInstructions(res.Instructions)
	c.init = res
	c.features = featuresFrom(sc.Name, res)
	c.noteDiscovered(handshake.get())
	c.meta = requestMeta(c, o)
	return c, nil
}

// MaxKeptInstructionsBytes bounds the instructions howl keeps from a
// server's handshake. They are held for the connection's life, printed by
// `howl servers --json` and read on every model turn, and a handshake may
// carry up to MaxMessageBytes of them; the model sees only the first
// llm.MaxInstructionBytes.
const MaxKeptInstructionsBytes = 64 << 10

// keptInstructions is s cut to MaxKeptInstructionsBytes at a character
// boundary, saying how much was not kept. The cut is a copy, so the
// handshake's whole string can be freed.
func keptInstructions(s string) string {
	if len(s) <= MaxKeptInstructionsBytes {
		return s
	}
	n := render.RuneBoundary(s, MaxKeptInstructionsBytes)
	return s[:n] + fmt.Sprintf("… (%d more bytes of instructions not kept, over MaxKeptInstructionsBytes)", len(s)-n)
}

// stdioCommand is the command of a stdio server: its environment on top
// of howl's, stderr into the ring. startServerProcess gives it a process
// group (Unix) or job object (Windows) of its own when it starts it.
func stdioCommand(sc ServerConfig, stderr io.Writer) *exec.Cmd {
	cmd := exec.Command(sc.Command, sc.Args...)
	cmd.Env = os.Environ()
	keys := make([]string, 0, len(sc.Env))
	for k := range sc.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+sc.Env[k])
	}
	cmd.Dir = sc.Cwd
	// exec copies stderr into the ring; Wait returns only once the copy is
	// done, so a failed start has its whole tail.
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	return cmd
}

// startError teaches what a failed start of a stdio server means.
func startError(err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no such program: check \"command\" in the config (a bare name is looked up in $PATH), or install it (%w)", err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("the program is not executable by you: check \"command\" in the config, or its file mode (%w)", err)
	}
	return err
}

func describeTarget(sc ServerConfig) string {
	if sc.Transport == TransportStdio {
		return fmt.Sprintf("%q", sc.Command)
	}
	return ShownURL(sc.URL)
}

// Close ends the connection. For a stdio child: close its stdin, give it
// the grace period, then ask it to end (SIGTERM to its process group, or
// CTRL_BREAK on Windows), then kill it and whatever it started
// (stopServer).
func (c *Conn) Close() {
	c.closing.Store(true)
	c.closed.Do(func() {
		_ = c.client.Close() // for stdio: closes the child's stdin
		if c.inproc != nil {
			c.inproc.stop(c.grace)
		}
		if c.proc == nil {
			return
		}
		stopServer(c.proc, c.grace)
		_ = c.cmd.Wait() // reaps the child, closes its pipes
		c.pipe.wait()
		c.proc.Release()
	})
}

// waitExit blocks until the stdio child exits, without reaping it, and
// says how it ended; "" at once when there is no child.
func (c *Conn) waitExit() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.WaitExit(-1)
}

// exitedBy says how the stdio child ended when it has ended within wait,
// without reaping it; "" when it is still running (or there is none). A
// handshake that failed because the child went away says why.
func (c *Conn) exitedBy(wait time.Duration) string {
	if c.proc == nil {
		return ""
	}
	return c.proc.WaitExit(wait)
}

// waitLost blocks until an old HTTP+SSE connection's event stream ends,
// and says why; "" when howl closed it, and at once when there is no
// such stream.
func (c *Conn) waitLost() string {
	if c.stream == nil {
		return ""
	}
	<-c.stream.ctx.Done()
	if why := c.stream.why(); !errors.Is(why, errClosedByHowl) {
		return why.Error()
	}
	return ""
}

// exited reports whether a stdio child has already ended.
func (c *Conn) exited() bool {
	return c.cmd != nil && c.cmd.ProcessState != nil
}
