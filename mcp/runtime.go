package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// State is where a server is in its life.
type State string

// The states a server moves through.
const (
	StateStarting     State = "starting"
	StateReady        State = "ready"
	StateFailed       State = "failed"
	StateAuthRequired State = "auth-required"
	StateStopped      State = "stopped"
)

// stderrTailLines is how many stderr lines a failure reason carries.
const stderrTailLines = 12

// ServerInfo is the server's self-description from the handshake.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Status is a snapshot of one server.
type Status struct {
	Name       string    `json:"name"`
	State      State     `json:"state"`
	Reason     string    `json:"reason,omitempty"`
	StderrTail string    `json:"stderr_tail,omitempty"`
	Transport  Transport `json:"transport"`
	Target     string    `json:"target"`
	// Protocol is the negotiated revision, e.g. 2026-07-28 or 2025-11-25.
	Protocol     string      `json:"protocol,omitempty"`
	ServerInfo   *ServerInfo `json:"server_info,omitempty"`
	Features     *Features   `json:"features,omitempty"`
	Instructions string      `json:"instructions,omitempty"`
	// ReadyMillis is the time from spawn to a finished handshake.
	ReadyMillis *int64 `json:"ready_ms,omitempty"`
	// Roots are the directories offered to the server when it asks (nil:
	// howl offers it none and did not declare roots): the entry's own
	// "roots", else the runtime's.
	Roots []string `json:"roots,omitempty"`
	// Seq orders the statuses a runtime hands out: one read later has a
	// higher Seq. A state event can reach its reader after a fresher
	// status (the TUI's snapshot at start, or another event emitted
	// first): one whose Seq is not above the last seen is stale. 0 is a
	// status the runtime did not hand out.
	Seq uint64 `json:"-"`
}

// EventKind names what an Event reports.
type EventKind string

// The events a Runtime emits.
const (
	// EventState: a server changed state (Status is set).
	EventState EventKind = "state"
	// EventNotification: a server sent a notification (Method, Params set).
	EventNotification EventKind = "notification"
	// EventStderr: a server wrote a line to stderr (Line set).
	EventStderr EventKind = "stderr"
	// EventTrace: a request to a server ended while tracing is on (Trace set).
	EventTrace EventKind = "trace"
)

// Event is something a server did that a UI may want to show.
type Event struct {
	Kind   EventKind
	Server string
	Status Status
	Method string
	Params map[string]any
	Line   string
	// Progress is set for EventProgress (and a task's status).
	Progress *Progress
	// URI is set for EventResourceUpdated.
	URI string
	// Change is set for EventCatalogChanged.
	Change *CatalogChange
	// Trace is set for EventTrace.
	Trace *RPCTrace
	// Reload is set for EventReload.
	Reload *ReloadResult
	// Body is an EventNotification's params as JSON, at most
	// MaxTraceBodyBytes, while trace bodies are on (SetTraceBodies).
	Body json.RawMessage
}

// RuntimeOptions configure a Runtime.
type RuntimeOptions struct {
	// ClientName and ClientVersion identify howl in the handshake.
	ClientName, ClientVersion string
	// CacheDir holds learned protocol eras and stderr logs
	// (render.CacheDir() when empty).
	CacheDir string
	// ShutdownGrace is how long a stdio child gets to exit after its stdin
	// closes before it is sent SIGTERM (DefaultShutdownGrace when zero; a
	// server's own shutdownGrace wins).
	ShutdownGrace time.Duration
	// Functions is the shape of the meta-function declarations (auto when
	// empty; ConfigFunctions reads the config's "functions").
	Functions FunctionShape
	// LogLevel, when set, is asked of every server that supports logging
	// right after its handshake (debug, info, notice, warning, error, ...).
	LogLevel string
	// Spill is where binary content is spilled (render.DefaultSpillStore()
	// when nil).
	Spill *render.SpillStore
	// Elicit answers servers' requests for input (elicitation). Nil means
	// howl does not declare the capability, so servers will not ask.
	Elicit Elicitor
	// CallTimeout is how long a request may go without an answer or a
	// progress notification (DefaultCallTimeout when zero, none when
	// negative; a server's own "timeout" wins).
	CallTimeout time.Duration
	// Roots, when not nil, are the directories offered to servers that ask
	// (roots/list); howl then declares the roots capability. SetRoots
	// changes them. DefaultRoots gives the config's "roots" or the working
	// directory. Nil declares no roots.
	Roots []string
	// Sample, when set, answers sampling requests of servers whose entry
	// says "sampling": true (only those are told howl can sample).
	Sample Sampler
	// OAuth says how remote servers that ask for a login are logged in to.
	OAuth OAuthOptions
	// OnEvent receives events from the runtime's goroutines. It must not
	// block for long and must not call back into the server's client.
	OnEvent func(Event)
}

// Runtime owns one connection per enabled server.
type Runtime struct {
	opts     RuntimeOptions
	eras     *eraBook
	lifetime context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	progress   progressBook
	serverReqs serverRequests
	roots      *rootsBook
	subs       subscriptionBook

	// tracing: emit an EventTrace for every request (SetTracing);
	// bodies: with the requests' and answers' bodies (SetTraceBodies).
	tracing atomic.Bool
	bodies  atomic.Bool

	// cacheErr is why there is no cache directory: no server starts.
	cacheErr error

	mu      sync.Mutex
	servers map[string]*serverSlot
	order   []string
	closed  bool
	// gens numbers the starts of every slot, so a start of a server
	// that a reload removed and added again never matches the new slot.
	gens int
	// statusSeq is the last Status.Seq handed out (stamp).
	statusSeq uint64
	// wrote, when set, hears of each config file the runtime itself
	// rewrote (Switch), with its content before and after (Reloader).
	wrote func(path string, before, after []byte)
}

// nextGen is a generation no slot has had (r.mu held).
func (r *Runtime) nextGen() int {
	r.gens++
	return r.gens
}

// slotOf is name's slot, or an empty one when a reload removed it since
// the caller's Conn or Catalog (r.mu held): reads find nothing there, and
// what is written to it goes nowhere.
func (r *Runtime) slotOf(name string) *serverSlot {
	if s := r.servers[name]; s != nil {
		return s
	}
	return &serverSlot{}
}

// serverSlot is the runtime's record of one configured server.
type serverSlot struct {
	cfg     ServerConfig
	status  Status
	conn    *Conn
	stderr  *stderrRing
	gen     int // a new one on every (re)start (nextGen); stale starts drop their result
	settled chan struct{}
	catalog *Catalog
	// kinds are kinds listed alone, as far as Item needed (until catalog).
	kinds map[Kind]*kindCache
	// auth is the OAuth authorizer of the latest start of a url server;
	// a restart shuts the previous one down.
	auth *authorizer
	// catGen bumps when a list_changed drops the catalog: a listing that
	// began before it is not cached over the drop.
	catGen int
	login  bool // the next start may run an OAuth login (Login)
	// listings numbers the listings begun, landed the newest one cached:
	// of two listings at once, the one begun later is cached even when
	// the other ends after it.
	listings, landed int
	// modelCat is catalog without the switched-off tools (ModelCatalog),
	// made from modelCatOf.
	modelCat, modelCatOf *Catalog
	// end is what is known of how the latest connection ended, from the
	// moment a request saw it close until the server starts again.
	end *connEnd
}

// NewRuntime prepares connections for every server in cfg. Nothing starts
// until Start.
func NewRuntime(cfg *Config, opts RuntimeOptions) *Runtime {
	var cacheErr error
	if opts.CacheDir == "" {
		opts.CacheDir, cacheErr = render.CacheDir()
	}
	if opts.ShutdownGrace == 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}
	if opts.ClientName == "" {
		opts.ClientName = "howl"
	}
	var roots *rootsBook
	if opts.Roots != nil {
		abs, err := absRoots(opts.Roots)
		if err != nil {
			abs = opts.Roots
		}
		roots = &rootsBook{roots: abs}
	}
	if opts.OAuth.Store == nil {
		opts.OAuth.Store = DefaultTokenStore()
	}
	eras := ""
	if opts.CacheDir != "" {
		eras = filepath.Join(opts.CacheDir, "eras.json")
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runtime{
		opts:     opts,
		cacheErr: cacheErr,
		eras:     loadEraBook(eras),
		lifetime: ctx,
		cancel:   cancel,
		servers:  map[string]*serverSlot{},
		roots:    roots,
	}
	for _, sc := range cfg.Servers {
		st := StateStopped
		reason := ""
		if sc.Disabled {
			reason = "disabled in config"
		} else if sc.Untrusted != "" {
			reason = sc.Untrusted
		}
		r.servers[sc.Name] = &serverSlot{cfg: sc, status: Status{
			Name: sc.Name, State: st, Reason: reason, Transport: sc.Transport, Target: target(sc),
		}}
		r.order = append(r.order, sc.Name)
	}
	sort.Strings(r.order)
	return r
}

func target(sc ServerConfig) string {
	if sc.Transport == TransportStdio {
		return strings.TrimSpace(sc.Command + " " + strings.Join(sc.Args, " "))
	}
	return ShownURL(sc.URL)
}

// Start connects the named servers (every enabled one when names is empty)
// concurrently and returns at once. Use Wait to block until they settle.
func (r *Runtime) Start(names ...string) error {
	if len(names) == 0 {
		r.mu.Lock()
		for _, n := range r.order {
			if sc := r.servers[n].cfg; !sc.Disabled && sc.Untrusted == "" {
				names = append(names, n)
			}
		}
		r.mu.Unlock()
	}
	for _, n := range names {
		if err := r.start(n); err != nil {
			return err
		}
	}
	return nil
}

// Trust lets the named servers, whose project file the person has just
// trusted, start: their Untrusted reason is cleared and each is started
// unless it is disabled.
func (r *Runtime) Trust(names ...string) error {
	var start []string
	r.mu.Lock()
	for _, n := range names {
		slot, ok := r.servers[n]
		if !ok {
			r.mu.Unlock()
			return r.unknown(n)
		}
		if slot.cfg.Untrusted == "" {
			continue
		}
		slot.cfg.Untrusted = ""
		slot.status.Reason = ""
		if !slot.cfg.Disabled {
			start = append(start, n)
		}
	}
	r.mu.Unlock()
	for _, n := range start {
		if err := r.start(n); err != nil {
			return err
		}
	}
	return nil
}

// Reconnect closes the named server's connection, if any, and starts it again.
func (r *Runtime) Reconnect(name string) error {
	r.mu.Lock()
	slot, ok := r.servers[name]
	var old *Conn
	if ok {
		old = slot.conn
		slot.conn, slot.end = nil, nil
		slot.catalog, slot.kinds = nil, nil
		slot.gen = r.nextGen() // a start still in flight drops its result
		slot.status.State = StateStopped
	}
	r.mu.Unlock()
	if !ok {
		return r.unknown(name)
	}
	if old != nil {
		old.Close()
	}
	return r.start(name)
}

func (r *Runtime) unknown(name string) error {
	return fmt.Errorf("no server named %q: configured servers are %s", name, strings.Join(r.Names(), ", "))
}

func (r *Runtime) start(name string) error {
	if r.cacheErr != nil {
		return r.cacheErr
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("runtime is closed")
	}
	slot, ok := r.servers[name]
	if !ok {
		r.mu.Unlock()
		return r.unknown(name)
	}
	if slot.status.State == StateStarting || slot.status.State == StateReady {
		r.mu.Unlock()
		return nil
	}
	if slot.cfg.Untrusted != "" {
		r.mu.Unlock()
		return fmt.Errorf("server %q is %s", name, slot.cfg.Untrusted)
	}
	slot.gen = r.nextGen()
	gen := slot.gen
	sc := slot.cfg
	slot.settled = make(chan struct{})
	settled := slot.settled
	slot.end = nil
	slot.status = Status{Name: name, State: StateStarting, Transport: sc.Transport, Target: target(sc)}
	if slot.stderr != nil {
		_ = slot.stderr.Close()
	}
	var logErr error
	slot.stderr, logErr = newStderrRing(filepath.Join(r.opts.CacheDir, "logs", safeFileName(name)+".stderr.log"), func(line string) {
		r.emit(Event{Kind: EventStderr, Server: name, Line: line})
	})
	ring := slot.stderr
	status := r.stamp(slot.status)
	login := r.opts.OAuth.Login || slot.login
	asked := slot.login // Login: the person asked, so a moved issuer is theirs to accept
	slot.login = false
	r.wg.Add(1)
	r.mu.Unlock()
	r.emit(Event{Kind: EventState, Server: name, Status: status})
	if logErr != nil {
		r.emit(Event{Kind: EventStderr, Server: name, Line: "howl: this server's stderr is not logged to a file: " + logErr.Error()})
	}

	go func() {
		defer r.wg.Done()
		defer close(settled)
		r.connectAuth(name, gen, sc, ring, login, asked)
	}()
	return nil
}

func (r *Runtime) connectAuth(name string, gen int, sc ServerConfig, ring *stderrRing, login, asked bool) {
	began := time.Now()
	if sc.Problem != "" {
		r.settle(name, gen, fmt.Errorf("config: %s", sc.Problem), ring)
		return
	}
	timeout := sc.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	var auth *authorizer
	if sc.Transport != TransportStdio {
		ao := r.opts.OAuth
		ao.Login = login
		ao.AcceptMovedIssuer = ao.AcceptMovedIssuer || asked
		auth = newAuthorizer(r.lifetime, sc, ao)
		r.mu.Lock()
		retired := auth // a stale start's own authorizer goes at once
		if slot := r.servers[name]; slot != nil && slot.gen == gen {
			retired, slot.auth = slot.auth, auth
		}
		r.mu.Unlock()
		if retired != nil {
			retired.shutdown() // outside r.mu: it waits for a login in progress
		}
		if login {
			timeout += auth.opts.LoginTimeout // the browser takes its time
		}
	}
	ctx, cancel := context.WithTimeout(r.lifetime, timeout)
	defer cancel()
	era := sc.Era
	if era == "" || era == EraAuto {
		era = r.eras.get(sc)
	}
	opts := dialOptions{
		clientInfo: mcpgo.Implementation{Name: r.opts.ClientName, Version: r.opts.ClientVersion},
		era:        era,
		stderr:     ring,
		grace:      r.opts.ShutdownGrace,
		onNotify:   r.notifier(name),
		trace:      r.tracer(name),
		libLog: func(line string) {
			r.emit(Event{Kind: EventStderr, Server: name, Line: "howl (mcp-go): " + line})
		},
		notice:   func(line string) { r.emit(Event{Kind: EventStderr, Server: name, Line: line}) },
		elicit:   r.holdingElicitor(r.opts.Elicit),
		gate:     func(size int) (func(), error) { return r.admit(name, size) },
		spoolDir: spoolDir(r.opts.CacheDir),
		// A listing's page waits no longer than a call without progress
		// (zero: listPage's default, DefaultCallTimeout).
		pageTimeout: cmp.Or(sc.CallTimeout, r.opts.CallTimeout),
		// A request the closing connection failed fails the server too.
		lost: func(ctx context.Context, c *Conn, method string) {
			r.transportClosed(ctx, name, c, method)
		},
	}
	if auth != nil {
		opts.httpClient = &http.Client{Transport: auth}
	}
	if book := r.rootsBookOf(sc); book != nil {
		opts.roots = rootsHandler{book: book, answered: func(start time.Time, n int) {
			r.traceAnswer(name, string(mcpgo.MethodListRoots), start, render.Count(n, "root"), nil, nil, nil)
		}}
	}
	if r.opts.Sample != nil && sc.Sampling {
		opts.sample = samplingAdapter{server: name, fn: r.holdingSampler(r.opts.Sample)}
	}
	conn, err := dial(r.lifetime, ctx, sc, opts)
	if err == nil && era == EraAuto && mcpgo.IsModernProtocol(conn.ProtocolVersion()) && !conn.features.PeerInfoKnown {
		// A server that answers any method with an empty result "accepts"
		// server/discover without saying anything: it is not modern.
		conn.Close()
		opts.era = EraLegacy
		conn, err = dial(r.lifetime, ctx, sc, opts)
	} else if err == nil && era == EraAuto && sc.Transport == TransportHTTP && !mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		// A legacy HTTP server needs the standalone GET stream, which can
		// only be asked for before the handshake: connect again with it.
		// Learned, so this costs one extra handshake on first contact only.
		conn.Close()
		opts.era = EraLegacy
		conn, err = dial(r.lifetime, ctx, sc, opts)
	}
	if err == nil && (sc.Era == "" || sc.Era == EraAuto) {
		learned := EraLegacy
		if mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
			learned = EraModern
		}
		r.eras.set(sc, learned)
	}
	if err == nil && r.opts.LogLevel != "" && conn.features.Logging {
		lctx, lcancel := context.WithTimeout(r.lifetime, 5*time.Second)
		// Best effort: a server that refuses still works. 2026-07-28
		// deprecates logging with no replacement in the protocol; servers
		// that advertise it still take logging/setLevel.
		//lint:ignore SA1019 a server that advertises logging takes logging/setLevel; there is no replacement
		_ = conn.client.SetLevel(lctx, mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: mcpgo.LoggingLevel(r.opts.LogLevel)}})
		lcancel()
	}
	if err == nil {
		r.resubscribe(name, conn)
		ms := time.Since(began).Milliseconds()
		r.settleReady(name, gen, conn, ms)
		return
	}
	if auth != nil {
		if aerr := auth.needed(); aerr != nil {
			err = authRequired(name, ShownURL(sc.URL), aerr)
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.lifetime.Err() == nil {
		err = fmt.Errorf("did not answer within %s (its start timeout): if it is slow to start, raise \"startTimeout\" in its config entry; else see its stderr (%w)", timeout, err)
	}
	r.settle(name, gen, err, ring)
}

func (r *Runtime) settleReady(name string, gen int, conn *Conn, ms int64) {
	r.mu.Lock()
	slot := r.servers[name]
	if slot == nil || slot.gen != gen || r.closed {
		r.mu.Unlock()
		conn.Close()
		return
	}
	f := conn.features
	st := Status{
		Name: name, State: StateReady, Transport: slot.cfg.Transport, Target: target(slot.cfg),
		Protocol: conn.ProtocolVersion(), Features: &f, ReadyMillis: &ms,
	}
	if conn.init != nil {
		st.Instructions = conn.init.Instructions
		si := conn.init.ServerInfo
		if si.Name != "" || si.Version != "" {
			st.ServerInfo = &ServerInfo{Name: si.Name, Version: si.Version, Title: si.Title}
		}
	}
	slot.conn = conn
	st = r.stamp(st)
	slot.status = st
	switch {
	case conn.cmd != nil:
		r.wg.Add(1)
		go func() { // ends when the child does; Close ends the child
			defer r.wg.Done()
			r.serverExited(name, conn, conn.waitExit())
		}()
	case conn.stream != nil:
		r.wg.Add(1)
		go func() { // ends when the event stream does; Close ends it
			defer r.wg.Done()
			if why := conn.waitLost(); why != "" {
				r.serverExited(name, conn, why)
			}
		}()
	}
	r.mu.Unlock()
	r.emit(Event{Kind: EventState, Server: name, Status: st})
	// A 2026-07-28 server reports list changes on a listen stream only.
	// Opening it waits for the server's acknowledgement, which Wait (and
	// every one-shot verb) must not: it runs beside the start.
	if mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		r.mu.Lock()
		closed := r.closed
		if !closed {
			r.wg.Add(1)
		}
		r.mu.Unlock()
		if !closed {
			go func() { // ends with the acknowledgement, listenAckWait, or Close
				defer r.wg.Done()
				if err := r.relisten(conn, name); err != nil {
					r.emit(Event{Kind: EventStderr, Server: name, Line: "howl: " + err.Error()})
				}
			}()
		}
	}
}

// serverExited marks a ready server failed when its process ends on its
// own (or, on the old HTTP+SSE transport, its event stream), so a dead
// server shows its reason at once, not at the next call. Then it reaps
// the process, which finishes copying its stderr, and the reason's
// stderr tail is taken again: the last words come just before the exit.
// A request that the closing connection failed waits for this
// (conn.ended) to say how the server ended (transportClosed). The
// reason names the oldest request still waiting as the process ended:
// its caller may give up the moment the server is failed, before the
// connection is seen to close, and so never say what it was.
func (r *Runtime) serverExited(name string, conn *Conn, reason string) {
	defer close(conn.ended)
	if conn.closing.Load() {
		return
	}
	during := ""
	if conn.line != nil {
		during = conn.line.waitingOn()
	}
	if ours, _ := r.noteEnd(name, conn, connEnd{exit: reason, during: during}, true); !ours {
		return
	}
	conn.Close() // reap the child: it has exited, so this returns at once
	r.mu.Lock()
	slot := r.servers[name]
	if slot == nil || slot.end == nil || slot.end.conn != conn || r.closed {
		r.mu.Unlock()
		return
	}
	tail := slot.stderr.Tail(stderrTailLines)
	if tail == slot.status.StderrTail {
		r.mu.Unlock()
		return
	}
	slot.status.StderrTail = tail
	st := r.stamp(slot.status)
	r.mu.Unlock()
	r.emit(Event{Kind: EventState, Server: name, Status: st})
}

// lostExitWait bounds how long a request that found a stdio server's
// connection closed waits for the exit watcher to say how the process
// ended: it closes its stdout a moment before it is gone, so the request
// fails first, and the person would read "ready" beside the failure.
const lostExitWait = 500 * time.Millisecond

// transportClosed is what a request to a stdio server does when the
// connection closed under it (the server exited, crashed mid-answer or
// closed its stdout): the server is dead, and its status says so before
// the request's caller reads it. It notes the request's method, waits up
// to lostExitWait for the exit watcher (serverExited) to fail the server
// with how its process ended, and otherwise fails it itself.
func (r *Runtime) transportClosed(ctx context.Context, name string, conn *Conn, method string) {
	if method == "subscriptions/listen" {
		method = "" // the stream of list changes, not a request anyone made
	}
	if ours, _ := r.noteEnd(name, conn, connEnd{during: method}, false); !ours {
		return // howl closed it, it is still in its handshake (dial says why), or it was replaced
	}
	still := ""
	if conn.proc != nil {
		t := time.NewTimer(lostExitWait)
		defer t.Stop()
		select {
		case <-conn.ended:
			return
		case <-t.C:
			still = fmt.Sprintf(", and the server process was still running %s later", lostExitWait)
		case <-ctx.Done(): // the caller gave up; the connection is still gone
		}
	}
	if conn.closing.Load() {
		return
	}
	if _, failed := r.noteEnd(name, conn, connEnd{still: still}, true); !failed {
		return
	}
	// Ending it may wait for the process (stopServer): not on the
	// caller's time. A goroutine Close waits for, unless Close has begun.
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		conn.Close()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		conn.Close()
	}()
}

// connEnd is what is known of how a ready server's connection ended. Two
// sides learn it, in either order: the exit watcher, how the process
// ended (exit) and what was waiting for an answer then, and a request
// the closing connection failed, what was asked (during). The server's
// reason is made from both; the first to name a request names it.
type connEnd struct {
	conn   *Conn
	exit   string // "server process exited with status 3"
	during string // "tools/list"
	// still is said when the process had not been seen to end.
	still string
}

func (e *connEnd) reason() string {
	during := ""
	if e.during != "" {
		during = " during " + e.during
	}
	if e.exit != "" {
		return e.exit + during + ": reconnect it to try again"
	}
	return "the connection to the server closed" + during + e.still + ": reconnect it to try again"
}

// noteEnd adds what note says of how conn, name's connection, ended.
// While the server is ready a note of the method alone is kept for the
// reason; with how it ended (note.exit) or dead, the server is failed,
// and later notes only reword its reason. ours reports whether conn is
// name's connection, live or ended; failed, whether this note failed
// the server (its caller then ends the connection). A connection howl is
// closing while it is live has not ended on its own: it is not noted.
func (r *Runtime) noteEnd(name string, conn *Conn, note connEnd, dead bool) (ours, failed bool) {
	r.mu.Lock()
	slot := r.servers[name]
	if slot == nil || r.closed {
		r.mu.Unlock()
		return false, false
	}
	live := slot.conn == conn
	if slot.end == nil || slot.end.conn != conn {
		if !live || conn.closing.Load() { // not name's, or howl is closing it
			r.mu.Unlock()
			return false, false
		}
		slot.end = &connEnd{conn: conn}
	}
	e := slot.end
	e.exit, e.during, e.still = cmp.Or(e.exit, note.exit), cmp.Or(e.during, note.during), cmp.Or(e.still, note.still)
	if live && !dead && e.exit == "" {
		r.mu.Unlock()
		return true, false
	}
	st := slot.status
	if !live && st.Reason == e.reason() {
		r.mu.Unlock()
		return true, false
	}
	if live {
		slot.conn = nil
		slot.catalog, slot.kinds = nil, nil
	}
	st.State = StateFailed
	st.Reason = e.reason()
	st.StderrTail = slot.stderr.Tail(stderrTailLines)
	st = r.stamp(st)
	slot.status = st
	r.mu.Unlock()
	r.emit(Event{Kind: EventState, Server: name, Status: st})
	return true, live
}

// endedErr is the error of a request made on conn when the connection
// ended under it: name's failure, as Conn says it; nil while conn is not
// known to have ended.
func (r *Runtime) endedErr(name string, conn *Conn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.servers[name]
	if s == nil || s.end == nil || s.end.conn != conn || s.status.State != StateFailed {
		return nil
	}
	return fmt.Errorf("server %s failed: %s", name, s.status.Reason)
}

func (r *Runtime) settle(name string, gen int, err error, ring *stderrRing) {
	r.mu.Lock()
	slot := r.servers[name]
	if slot == nil || slot.gen != gen {
		r.mu.Unlock()
		return
	}
	st := slot.status
	st.State = StateFailed
	if errors.Is(err, errAuthRequired) {
		st.State = StateAuthRequired
	}
	st.Reason = oneLine(err.Error())
	st.StderrTail = ring.Tail(stderrTailLines)
	if r.closed {
		st.State, st.Reason = StateStopped, "howl is shutting down"
	}
	st = r.stamp(st)
	slot.status = st
	r.mu.Unlock()
	r.emit(Event{Kind: EventState, Server: name, Status: st})
}

// errAuthRequired marks a remote server that needs an OAuth login.
var errAuthRequired = errors.New("authorization required")

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 300
	return render.Ellipsize(s, max)
}

func (r *Runtime) notifier(name string) func(mcpgo.JSONRPCNotification) {
	return func(n mcpgo.JSONRPCNotification) {
		switch n.Method {
		case "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed":
			r.mu.Lock()
			var old *Catalog
			if slot, ok := r.servers[name]; ok {
				old = slot.catalog
				slot.catalog, slot.kinds = nil, nil
				slot.catGen++
			}
			r.mu.Unlock()
			r.scheduleRefresh(name, old)
		case "notifications/subscriptions/acknowledged":
			r.listenAcknowledged(name)
		case "notifications/resources/updated":
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			defer r.emit(Event{Kind: EventResourceUpdated, Server: name, URI: uri, Params: n.Params.AdditionalFields})
		}
		r.emit(Event{Kind: EventNotification, Server: name, Method: n.Method, Params: n.Params.AdditionalFields, Body: r.traceBody(n.Params)})
		if n.Method == "notifications/progress" {
			r.onProgress(name, n.Params.AdditionalFields)
		}
	}
}

func (r *Runtime) emit(e Event) {
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(e)
	}
}

// Wait blocks until every started server has left the starting state, or ctx ends.
func (r *Runtime) Wait(ctx context.Context) error {
	r.mu.Lock()
	var chans []chan struct{}
	for _, n := range r.order {
		if s := r.servers[n]; s.settled != nil {
			chans = append(chans, s.settled)
		}
	}
	r.mu.Unlock()
	for _, ch := range chans {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Names lists the configured servers, sorted.
func (r *Runtime) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

// Status returns a snapshot of every configured server, sorted by name.
func (r *Runtime) Status() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.statusOf(r.servers[n]))
	}
	return out
}

// stamp is st with the next Seq (r.mu held).
func (r *Runtime) stamp(st Status) Status {
	r.statusSeq++
	st.Seq = r.statusSeq
	return st
}

// statusOf is a slot's status with the roots it is offered, stamped
// (r.mu held).
func (r *Runtime) statusOf(s *serverSlot) Status {
	st := r.stamp(s.status)
	switch {
	case s.cfg.OwnRoots:
		st.Roots, _ = absRoots(s.cfg.Roots)
		if st.Roots == nil {
			st.Roots = []string{}
		}
	case r.roots != nil:
		st.Roots = r.roots.get()
	}
	return st
}

// ServerStatus returns one server's snapshot.
func (r *Runtime) ServerStatus(name string) (Status, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.servers[name]
	if !ok {
		return Status{}, false
	}
	return r.statusOf(s), true
}

// ServerFeatures lists the features of every ready server, sorted by name.
func (r *Runtime) ServerFeatures() []Features {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Features
	for _, n := range r.order {
		if s := r.servers[n]; s.status.State == StateReady && s.status.Features != nil {
			out = append(out, *s.status.Features)
		}
	}
	return out
}

// Stderr returns what the server wrote to stderr lately (at most StderrRingSize).
func (r *Runtime) Stderr(name string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.servers[name]; ok && s.stderr != nil {
		return s.stderr.Bytes()
	}
	return nil
}

// Conn returns the ready connection to name, or an error that says why
// there is none and what to do.
func (r *Runtime) Conn(name string) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.servers[name]
	if !ok {
		return nil, fmt.Errorf("no server named %q: configured servers are %s", name, strings.Join(r.order, ", "))
	}
	switch s.status.State {
	case StateReady:
		if s.conn != nil && s.conn.stream != nil {
			if why := s.conn.stream.why(); why != nil { // an old HTTP+SSE connection's stream ended
				return nil, fmt.Errorf("server %s is disconnected: %v: reconnect it", name, why)
			}
		}
		if s.conn == nil || s.conn.exited() {
			return nil, fmt.Errorf("server %s has exited: reconnect it", name)
		}
		return s.conn, nil
	case StateStarting:
		return nil, fmt.Errorf("server %s is still starting: try again in a moment", name)
	case StateFailed:
		return nil, fmt.Errorf("server %s failed: %s", name, s.status.Reason)
	case StateAuthRequired:
		// A login that failed says why (an issuer refused, a grant turned down).
		why := strings.TrimPrefix(s.status.Reason, errAuthRequired.Error()+": ")
		if why, ok := strings.CutSuffix(why, ": run howl auth "+name+" to try again"); ok {
			return nil, fmt.Errorf("server %s needs authorization: run howl auth %s (%s)", name, name, why)
		}
		return nil, fmt.Errorf("server %s needs authorization: run howl auth %s", name, name)
	default:
		if s.cfg.Disabled {
			return nil, fmt.Errorf("server %s is disabled in %s: remove \"disabled\": true to use it", name, "the config")
		}
		return nil, fmt.Errorf("server %s is not started", name)
	}
}

// Close ends every connection and goroutine the runtime started, in
// parallel, and waits for them.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	var conns []*Conn
	var rings []*stderrRing
	for _, n := range r.order {
		s := r.servers[n]
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
		if s.stderr != nil {
			rings = append(rings, s.stderr)
		}
		if s.status.State == StateReady || s.status.State == StateStarting {
			s.status.State, s.status.Reason = StateStopped, ""
		}
	}
	r.mu.Unlock()
	r.stopListens()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	r.cancel() // ends children still in their handshake
	r.wg.Wait()
	r.mu.Lock()
	var auths []*authorizer
	for _, s := range r.servers {
		if s.auth != nil {
			auths = append(auths, s.auth)
		}
	}
	r.mu.Unlock()
	for _, a := range auths {
		a.shutdown()
	}
	for _, ring := range rings {
		_ = ring.Close()
	}
	return nil
}

func safeFileName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		out = "server"
	}
	return out
}
