package tui

import (
	"context"
	"errors"
	"slices"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/dialog"
)

// MaxRelayQueue bounds the events waiting for the program. Past it events
// are dropped in the order victim gives (stderr lines and notifications
// first, state and catalog changes last), and the next batch says how many.
const MaxRelayQueue = 4096

// MaxRelayBytes bounds the bytes of the events waiting for the program
// (their strings, estimated by eventSize): past it the oldest are dropped
// as past MaxRelayQueue. A busy program must not hold every megabyte a
// flooding server sends.
const MaxRelayBytes = 16 << 20

// EventsMsg carries runtime events into the program, batched: the relay
// sends everything that arrived since its last send as one message.
type EventsMsg struct {
	Events []mcp.Event
	// Dropped counts events discarded because the queue was full.
	Dropped int
}

// Relay is the one path runtime events take into the program. Push (the
// runtime's OnEvent) never blocks; Run is the one goroutine that hands
// batches to the program. Production passes program.Send; tests pass
// teatest's TestModel.Send or their own collector.
//
// Questions (a server's elicitation or sampling request) take the same path
// in their own queue, which is never bounded or dropped: the runtime
// goroutine that asks waits for the person's answer, its context, or the
// end of Run, whichever comes first (see Elicit and Sample).
type Relay struct {
	mu    sync.Mutex
	queue []mcp.Event
	// sizes are the queued events' eventSize, bytes their sum.
	sizes   []int
	bytes   int
	dropped int
	// asks are questions not yet handed to the program; gone are
	// delivered questions whose asker stopped waiting.
	asks []*dialog.Question
	gone []*dialog.Question
	wake chan struct{}
	// ended is closed when Run returns: nobody will answer after that.
	ended   chan struct{}
	endOnce sync.Once
}

// NewRelay returns an empty relay.
func NewRelay() *Relay {
	return &Relay{wake: make(chan struct{}, 1), ended: make(chan struct{})}
}

// Push queues an event. It is safe for concurrent use and never blocks, so
// it can be mcp.RuntimeOptions.OnEvent.
func (r *Relay) Push(e mcp.Event) {
	n := eventSize(e)
	r.mu.Lock()
	if e.Kind == mcp.EventResourceUpdated {
		// The program only re-reads a followed resource on an update, so
		// the latest stands for every earlier one: a server reporting one
		// resource in a loop holds one event here, not MaxRelayQueue (and
		// the title's update count counts what waited as one).
		if i := r.queuedUpdate(e.Server, e.URI); i >= 0 {
			r.remove(i)
		}
	}
	r.queue, r.sizes, r.bytes = append(r.queue, e), append(r.sizes, n), r.bytes+n
	for len(r.queue) > MaxRelayQueue || r.bytes > MaxRelayBytes && len(r.queue) > 1 {
		r.remove(r.victim())
		r.dropped++
	}
	r.mu.Unlock()
	r.poke()
}

// remove (r.mu held) takes the queued event i out.
func (r *Relay) remove(i int) {
	r.bytes -= r.sizes[i]
	r.queue, r.sizes = slices.Delete(r.queue, i, i+1), slices.Delete(r.sizes, i, i+1)
}

// queuedUpdate (r.mu held) is the queued update of server's resource at
// uri (there is at most one), or -1.
func (r *Relay) queuedUpdate(server, uri string) int {
	for i := len(r.queue) - 1; i >= 0; i-- {
		if e := r.queue[i]; e.Kind == mcp.EventResourceUpdated && e.Server == server && e.URI == uri {
			return i
		}
	}
	return -1
}

// Notice shows a message of howl's own about a server, as that server's
// log line (logger "howl") and in the status bar: an OAuth login's URL,
// roots that could not be read. Safe for concurrent use; never blocks.
func (r *Relay) Notice(server, msg string) {
	r.Push(mcp.Event{Kind: mcp.EventNotification, Server: server, Method: "notifications/message",
		Params: map[string]any{"level": "notice", "logger": HowlLogger, "data": msg, ownNoticeKey: ownNotice{}}})
}

// ownNotice marks the events Notice makes. A server's params are decoded
// JSON, which never holds a value of this type, so a server that names its
// logger "howl" (or sends this key) still cannot pass its text off as
// howl's own.
type ownNotice struct{}

// ownNoticeKey is the params key that holds the ownNotice mark.
const ownNoticeKey = "howl.notice"

// isOwnNotice reports whether e is howl's own notice (made by Notice).
func isOwnNotice(e mcp.Event) bool {
	_, own := e.Params[ownNoticeKey].(ownNotice)
	return own
}

// HowlLogger is the logger name of howl's own lines in a server's log.
const HowlLogger = "howl"

// poke wakes Run without blocking.
func (r *Relay) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Drop tiers: what a full relay drops first (see victim).
const (
	// tierNoise is what the program only shows: stderr, log lines and
	// other notifications, traces, progress. A flood is mostly this.
	tierNoise = iota
	// tierUpdate is a followed resource's update: dropped, the resource
	// is not read again until its next one. A server can name URIs
	// without end, so these are not kept at any cost (see victim).
	tierUpdate
	// tierState is what the program's state follows: a server's state, a
	// config reload, a catalog change (dropped, the catalog pane would
	// keep listing removed items and miss new ones). The runtime sends
	// catalog changes at most about once a second a server
	// (mcp.CatalogRefreshGap), state changes as a server comes and goes.
	tierState
)

// dropTier is e's tier.
func dropTier(e mcp.Event) int {
	switch e.Kind {
	case mcp.EventState, mcp.EventReload, mcp.EventCatalogChanged:
		return tierState
	case mcp.EventResourceUpdated:
		return tierUpdate
	}
	return tierNoise
}

// victim (r.mu held, the queue not empty) is the event to drop to keep
// within MaxRelayQueue and MaxRelayBytes: the oldest noise; when there is
// none, the oldest event of the lowest tier queued of the server holding
// the most bytes of that tier. So a server flooding the relay with log
// lines, with updates of endless URIs, or with catalog changes larger
// than MaxRelayBytes loses its own events, not another server's state,
// catalog changes or updates; and every tier stays within both bounds.
func (r *Relay) victim() int {
	lowest := tierState
	for i, e := range r.queue {
		t := dropTier(e)
		if t == tierNoise {
			return i
		}
		lowest = min(lowest, t)
	}
	held := map[string]int{}
	most, top := "", 0
	for i, e := range r.queue {
		if dropTier(e) == lowest {
			held[e.Server] += r.sizes[i]
			if held[e.Server] > top {
				most, top = e.Server, held[e.Server]
			}
		}
	}
	for i, e := range r.queue {
		if dropTier(e) == lowest && e.Server == most {
			return i
		}
	}
	return 0 // not reached: most holds an event of the lowest tier
}

// eventSize estimates the memory an event holds: the bytes of every
// string and byte slice in it (a traced message's ID, request and answer
// and a notification's Body, each up to mcp.MaxTraceBodyBytes, included),
// and a little for every other value.
func eventSize(e mcp.Event) int {
	st := e.Status
	n := 64 + len(e.Server) + len(e.Method) + len(e.Line) + len(e.URI) + valueSize(e.Params) + len(e.Body) +
		len(st.Name) + len(st.Reason) + len(st.StderrTail) + len(st.Instructions) + len(st.Target) + len(st.Protocol) + valueSize(st.Roots)
	if si := st.ServerInfo; si != nil {
		n += len(si.Name) + len(si.Version) + len(si.Title)
	}
	if st.Features != nil {
		n += len(st.Features.Name)
	}
	if p := e.Progress; p != nil {
		n += len(p.Server) + len(p.Token) + len(p.Owner) + len(p.Method) + len(p.Message) + len(p.Task)
	}
	if t := e.Trace; t != nil {
		n += len(t.Method) + len(t.Target) + len(t.Err) + len(t.Answer) + len(t.ID) + len(t.Request) + len(t.Response)
	}
	if e.Change != nil {
		n += valueSize(e.Change.Added) + valueSize(e.Change.Removed)
	}
	if r := e.Reload; r != nil {
		n += len(r.Err) + valueSize(r.Servers) + valueSize(r.Notes) + valueSize(r.NeedsRestart) + 512*len(r.Untrusted)
	}
	return n
}

// valueSize estimates the memory of a decoded JSON value, walking it
// without recursion (a server chooses how deep it nests).
func valueSize(v any) int {
	n := 0
	stack := []any{v}
	for len(stack) > 0 {
		v, stack = stack[len(stack)-1], stack[:len(stack)-1]
		n += 16
		switch v := v.(type) {
		case string:
			n += len(v)
		case []string:
			for _, s := range v {
				n += 16 + len(s)
			}
		case map[string]any:
			for k, x := range v {
				n += 16 + len(k)
				stack = append(stack, x)
			}
		case []any:
			stack = append(stack, v...)
		}
	}
	return n
}

// Run sends queued events to send until ctx ends. It is the relay's only
// goroutine: start it once, and cancel ctx to end it (send must return once
// the program has ended, as program.Send does).
//
// When Run returns, questions still waiting (and any asked later) are
// answered "cancel" at once: the program that would have asked the person
// is gone.
func (r *Relay) Run(ctx context.Context, send func(tea.Msg)) {
	defer r.endOnce.Do(func() { close(r.ended) })
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		r.mu.Lock()
		batch, dropped := r.queue, r.dropped
		asks, gone := r.asks, r.gone
		r.queue, r.sizes, r.bytes, r.dropped, r.asks, r.gone = nil, nil, 0, 0, nil, nil
		r.mu.Unlock()
		if len(batch) > 0 || dropped > 0 {
			send(EventsMsg{Events: batch, Dropped: dropped})
		}
		for _, q := range asks {
			send(askMsg{q})
		}
		for _, q := range gone {
			send(askGoneMsg{q})
		}
	}
}

// askMsg brings a question into the program.
type askMsg struct{ q *dialog.Question }

// askGoneMsg says the asker of a delivered question stopped waiting (its
// request was cancelled, the server went away): its dialog closes.
type askGoneMsg struct{ q *dialog.Question }

// errProgramEnded is a sampling request's answer once the TUI has quit.
var errProgramEnded = errors.New("howl's window closed before the person answered")

// Elicit asks the person through the program's elicitation dialog and
// waits for the answer. It is an mcp.Elicitor: it runs on the runtime's
// goroutine and returns when the person answers, when ctx ends (the dialog
// then closes itself) or when Run has returned (the answer is then
// "cancel").
func (r *Relay) Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	a, err := r.ask(ctx, dialog.AskElicit(ctx, server, &req))
	if err != nil {
		if errors.Is(err, errProgramEnded) {
			err = nil
		}
		return mcp.ElicitResponse{Action: mcp.ElicitCancel}, err
	}
	return a.Elicit, a.Err
}

// Sample asks the person to approve a server's sampling request and, once
// approved, returns the chat model's answer. It is an mcp.Sampler and
// waits like Elicit; a rejection, a cancelled ctx or an ended program is an
// error.
func (r *Relay) Sample(ctx context.Context, server string, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	a, err := r.ask(ctx, dialog.AskSample(ctx, server, &req))
	if err != nil {
		return nil, err
	}
	return a.Sample, a.Err
}

// ask queues q (asked under ctx) for the program and waits for its answer.
func (r *Relay) ask(ctx context.Context, q *dialog.Question) (dialog.QuestionAnswer, error) {
	select {
	case <-r.ended:
		return dialog.QuestionAnswer{}, errProgramEnded
	default:
	}
	r.mu.Lock()
	r.asks = append(r.asks, q)
	r.mu.Unlock()
	r.poke()
	select {
	case a := <-q.Reply():
		return a, nil
	case <-ctx.Done():
		r.withdraw(q)
		return dialog.QuestionAnswer{}, ctx.Err()
	case <-r.ended:
		return dialog.QuestionAnswer{}, errProgramEnded
	}
}

// withdraw takes back a question whose asker stopped waiting: unsent, it
// is dropped; sent, the program is told to close its dialog.
func (r *Relay) withdraw(q *dialog.Question) {
	r.mu.Lock()
	if i := slices.Index(r.asks, q); i >= 0 {
		r.asks = slices.Delete(r.asks, i, i+1)
		r.mu.Unlock()
		return
	}
	r.gone = append(r.gone, q)
	r.mu.Unlock()
	r.poke()
}
