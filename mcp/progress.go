package mcp

import (
	"context"
	"math"

	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// DefaultCallTimeout is how long a tool call, read or prompt may go without
// an answer or a progress notification before howl gives up on it.
const DefaultCallTimeout = 60 * time.Second

// EventProgress: a server reported progress on an in-flight request
// (Progress set).
const EventProgress EventKind = "progress"

// Progress is one notifications/progress for a request howl made.
type Progress struct {
	Server string `json:"server"`
	// Token is the request's progress token; Owner is what the caller
	// named the request (CallObserver.Owner), e.g. a UI pane and request id.
	Token    string  `json:"token"`
	Owner    string  `json:"owner,omitempty"`
	Method   string  `json:"method"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
	// Task is set when the progress is a task's status (see CallTask).
	Task string `json:"task,omitempty"`
}

// InFlight is a request howl is waiting on.
type InFlight struct {
	Server  string    `json:"server"`
	Token   string    `json:"token"`
	Owner   string    `json:"owner,omitempty"`
	Method  string    `json:"method"`
	Started time.Time `json:"started"`
	// Last is the latest progress, if any came.
	Last *Progress `json:"last,omitempty"`
}

// CallObserver watches one request: pass it with WithCallObserver on the
// context given to Invoke, Read, GetPrompt or CallMeta.
type CallObserver struct {
	// Owner tags the request's progress events and InFlight entry.
	Owner string
	// OnProgress receives the request's progress on the runtime's
	// notification goroutine: it must not block and must not call the server.
	OnProgress func(Progress)
	// Timeout overrides the idle timeout (no answer and no progress) for
	// this request; negative means none.
	Timeout time.Duration
	// PreferTask runs a tool whose execution.taskSupport is "optional" as
	// a task (a UI does, for calls a person waits on: they then show in
	// Tasks and report their status); "required" tools always are.
	PreferTask bool
}

type observerKey struct{}
type progressTokenKey struct{}

// WithCallObserver returns a context whose requests report to o.
func WithCallObserver(ctx context.Context, o CallObserver) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// ErrNoProgress is the cause of a request cancelled for its idle timeout.
var ErrNoProgress = errors.New("no progress")

// inflight is the runtime's record of one request.
type inflight struct {
	info   InFlight
	obs    CallObserver
	poke   chan struct{}
	cancel context.CancelCauseFunc
}

// touch restarts the request's idle timer (never blocks).
func (f *inflight) touch() {
	select {
	case f.poke <- struct{}{}:
	default:
	}
}

// progressBook tracks in-flight requests by progress token.
type progressBook struct {
	mu    sync.Mutex
	calls map[string]*inflight
	tasks map[string]*RunningTask // by server NUL task id
	// held counts, per server, the questions howl is answering for it
	// (elicitation, sampling): the server waits on the person then, so
	// its requests' idle timers do not run out.
	held map[string]int
	// questions are the held questions' cancels, per server: a question
	// belongs to a request howl made, so when the server has no request of
	// howl's in flight anymore (cancelled, answered, connection gone), its
	// questions end too and their dialogs close.
	questions map[string]map[*int]context.CancelFunc
}

// hold pauses the idle timeout of server's requests until release.
func (r *Runtime) hold(server string) (release func()) {
	r.progress.mu.Lock()
	if r.progress.held == nil {
		r.progress.held = map[string]int{}
	}
	r.progress.held[server]++
	r.progress.mu.Unlock()
	return func() {
		r.progress.mu.Lock()
		r.progress.held[server]--
		for _, f := range r.progress.calls {
			if f.info.Server == server {
				f.touch() // a fresh full timeout once the person answered
			}
		}
		r.progress.mu.Unlock()
	}
}

func (r *Runtime) isHeld(server string) bool {
	r.progress.mu.Lock()
	defer r.progress.mu.Unlock()
	return r.progress.held[server] > 0
}

// holding wraps the answering of a server's question (method): past
// MaxPendingServerRequests it is refused at once; the idle
// timers of server's requests do not run out while the person answers,
// the question's context ends with the last of howl's requests to server,
// and the answer is traced (what describes it for the trace).
func holding[Req, Res any](r *Runtime, method mcpgo.MCPMethod, fn func(context.Context, string, Req) (Res, error), what func(Res) string) func(context.Context, string, Req) (Res, error) {
	return func(ctx context.Context, server string, req Req) (Res, error) {
		var zero Res
		if err := ctx.Err(); err != nil {
			return zero, err // the asker is gone: nobody to ask for
		}
		release, err := r.admitQuestion(ctx, server)
		if err != nil {
			return zero, err
		}
		defer release()
		defer r.hold(server)()
		ctx, done := r.question(ctx, server)
		defer done()
		start := time.Now()
		res, err := fn(ctx, server, req)
		r.traceAnswer(server, string(method), start, what(res), err, req, res)
		return res, err
	}
}

// holdingElicitor is holding for elicitation (nil stays nil: howl then
// declares no elicitation).
func (r *Runtime) holdingElicitor(fn Elicitor) Elicitor {
	if fn == nil {
		return nil
	}
	return holding(r, mcpgo.MethodElicitationCreate, fn, func(resp ElicitResponse) string { return resp.Action })
}

// holdingSampler is holding for sampling.
func (r *Runtime) holdingSampler(fn Sampler) Sampler {
	return holding(r, mcpgo.MethodSamplingCreateMessage, fn, func(res *mcpgo.CreateMessageResult) string {
		if res == nil {
			return ""
		}
		return "with " + res.Model
	})
}

// question registers a question from server: its context is cancelled
// once none of howl's requests to server is in flight (see endQuestions).
// A question asked while no request of howl's was in flight (the server
// asking on its own) belongs to none, so no request's end cancels it.
func (r *Runtime) question(ctx context.Context, server string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	r.progress.mu.Lock()
	if !r.serverBusy(server) {
		r.progress.mu.Unlock()
		return ctx, cancel
	}
	if r.progress.questions == nil {
		r.progress.questions = map[string]map[*int]context.CancelFunc{}
	}
	if r.progress.questions[server] == nil {
		r.progress.questions[server] = map[*int]context.CancelFunc{}
	}
	r.progress.questions[server][key] = cancel
	r.progress.mu.Unlock()
	return ctx, func() {
		r.progress.mu.Lock()
		delete(r.progress.questions[server], key)
		r.progress.mu.Unlock()
		cancel()
	}
}

// serverBusy reports whether a request of howl's to server is in flight.
// The caller holds r.progress.mu.
func (r *Runtime) serverBusy(server string) bool {
	for _, f := range r.progress.calls {
		if f.info.Server == server {
			return true
		}
	}
	return false
}

// endQuestions cancels server's questions when no request of howl's to
// it is in flight anymore. The caller holds r.progress.mu.
func (r *Runtime) endQuestions(server string) {
	if r.serverBusy(server) {
		return
	}
	for _, cancel := range r.progress.questions[server] {
		cancel()
	}
}

// track starts watching a request to server: it gives the request a
// progress token (carried in the returned context, used by CallRaw, ReadRaw
// and GetPromptRaw) and an idle timer that progress resets. Call done when
// the request ends; wrap its error with idleError.
func (r *Runtime) track(ctx context.Context, server, method string) (context.Context, func()) {
	obs, _ := ctx.Value(observerKey{}).(CallObserver)
	timeout := obs.Timeout
	if timeout == 0 {
		timeout = r.callTimeout(server)
	}
	token := progressMeta().ProgressToken.(string)
	cctx, cancel := context.WithCancelCause(ctx)
	cctx = context.WithValue(cctx, progressTokenKey{}, token)
	f := &inflight{
		info:   InFlight{Server: server, Token: token, Owner: obs.Owner, Method: method, Started: time.Now()},
		obs:    obs,
		poke:   make(chan struct{}, 1),
		cancel: cancel,
	}
	r.progress.mu.Lock()
	if r.progress.calls == nil {
		r.progress.calls = map[string]*inflight{}
	}
	r.progress.calls[token] = f
	r.progress.mu.Unlock()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if timeout > 0 {
		wg.Add(1)
		go func() { // ends with the request (stop) or its context
			defer wg.Done()
			r.watchIdle(cctx, stop, f, timeout, func() {
				cancel(fmt.Errorf("%w from %s for %s", ErrNoProgress, server, timeout))
			})
		}()
	}
	return cctx, func() {
		close(stop)
		wg.Wait()
		cancel(nil)
		r.progress.mu.Lock()
		delete(r.progress.calls, token)
		r.endQuestions(server)
		r.progress.mu.Unlock()
	}
}

// watchIdle calls expire once f's request has gone timeout with no
// activity (f.touch: progress, a question answered) while none of its
// server's questions is held, or returns when stop closes or ctx ends.
func (r *Runtime) watchIdle(ctx context.Context, stop <-chan struct{}, f *inflight, timeout time.Duration, expire func()) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-f.poke:
			t.Reset(timeout)
		case <-t.C:
			if r.isHeld(f.info.Server) {
				t.Reset(timeout)
				continue
			}
			// The timer and an activity can come at once: a person who
			// answers as the timer fires releases the hold and touches f
			// under one lock, so once the hold is seen released, the
			// touch is waiting here.
			select {
			case <-f.poke:
				t.Reset(timeout)
				continue
			default:
			}
			expire()
			return
		}
	}
}

// tracked runs one request under track (progress, the idle timeout) and
// turns an idle timeout into its teaching error. label names the request
// in the list of requests in flight; method names it in the error.
func tracked[T any](r *Runtime, ctx context.Context, server, label, method string, f func(context.Context) (T, error)) (T, error) {
	tctx, done := r.track(ctx, server, label)
	defer done()
	v, err := f(tctx)
	return v, r.closedError(server, method, idleError(tctx, server, method, err))
}

// closedError is err, of a request the closing connection failed, saying
// how server ended in place of a guess, once howl knows it: the request
// returns after the server is failed with how its process ended, or
// after lostExitWait (transportClosed).
func (r *Runtime) closedError(server, method string, err error) error {
	if !errors.Is(err, transport.ErrTransportClosed) {
		return err
	}
	st, ok := r.ServerStatus(server)
	if !ok || st.State != StateFailed {
		return err
	}
	return &ServerError{Server: server, Method: method, Err: transport.NewError(serverEnded(st.Reason))}
}

// serverEnded is a connection closed under a request, said with how the
// server ended (its failed status's reason).
type serverEnded string

func (e serverEnded) Error() string {
	return "the connection closed before the answer came: " + string(e)
}
func (e serverEnded) Unwrap() error { return transport.ErrTransportClosed }

// idleError turns the error of a request cancelled for its idle timeout
// into one that says so and names the fix.
func idleError(ctx context.Context, server, method string, err error) error {
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrNoProgress) {
		return err
	}
	return &ServerError{Server: server, Method: method, Err: fmt.Errorf("%v: the request got neither an answer nor a progress notification: raise \"timeout\" on the server's entry in the config (e.g. \"timeout\": \"5m\"): %w", cause, ErrNoProgress)}
}

func (r *Runtime) callTimeout(server string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.servers[server]; ok && s.cfg.CallTimeout != 0 {
		return s.cfg.CallTimeout
	}
	if r.opts.CallTimeout != 0 {
		return r.opts.CallTimeout
	}
	return DefaultCallTimeout
}

// onProgress handles a notifications/progress from server.
func (r *Runtime) onProgress(server string, params map[string]any) {
	token := fmt.Sprint(params["progressToken"])
	p := Progress{Server: server, Token: token, Message: fmt.Sprint(orEmpty(params["message"]))}
	p.Progress, _ = toFloat(params["progress"])
	p.Total, _ = toFloat(params["total"])
	r.progress.mu.Lock()
	f, ok := r.progress.calls[token]
	ok = ok && f.info.Server == server // another server's token says nothing of this call
	if ok {
		p.Owner, p.Method = f.info.Owner, f.info.Method
		last := p
		f.info.Last = &last
	}
	r.progress.mu.Unlock()
	if !ok {
		return
	}
	f.touch()
	if f.obs.OnProgress != nil {
		f.obs.OnProgress(p)
	}
	r.emit(Event{Kind: EventProgress, Server: server, Progress: &p})
}

// InFlight lists the requests howl is waiting on, oldest first.
func (r *Runtime) InFlight() []InFlight {
	r.progress.mu.Lock()
	defer r.progress.mu.Unlock()
	out := make([]InFlight, 0, len(r.progress.calls))
	for _, f := range r.progress.calls {
		info := f.info
		if info.Last != nil {
			l := *info.Last
			info.Last = &l
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// Cancel cancels the in-flight request with the given progress token (the
// server gets notifications/cancelled from mcp-go). It reports whether one was found.
func (r *Runtime) Cancel(token string) bool {
	r.progress.mu.Lock()
	f, ok := r.progress.calls[token]
	r.progress.mu.Unlock()
	if ok {
		f.cancel(context.Canceled)
	}
	return ok
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// parseCallTimeout reads an entry's "timeout": a duration string ("90s",
// "5m") or a number of seconds (other clients write it so). Anything else
// stays ignored, as before howl read it.
func parseCallTimeout(v any) (time.Duration, bool) {
	switch t := v.(type) {
	case string:
		if d, err := time.ParseDuration(t); err == nil && d > 0 {
			return d, true
		}
	case float64:
		if t > 0 {
			// A number past time.Duration's range (292 years) would wrap
			// negative, and a negative timeout fails every page at once.
			secs := min(t, float64(math.MaxInt64/int64(time.Second)))
			return time.Duration(secs * float64(time.Second)), true
		}
	}
	return 0, false
}
