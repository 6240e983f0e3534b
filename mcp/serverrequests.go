package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// MaxPendingServerRequests is how many of a server's questions
// (elicitation and sampling requests) howl handles at once. A question
// can wait a long time on a person, so a server that keeps asking would
// otherwise hold memory for every question it sent; past the bound howl
// answers at once with CodeTooManyServerRequests. The server's other
// requests (ping, roots/list) are answered at once and not counted.
const MaxPendingServerRequests = 8

// CodeTooManyServerRequests is the JSON-RPC error code of a request
// refused past MaxPendingServerRequests (the implementation-defined
// server error range).
const CodeTooManyServerRequests = -32000

// ErrTooManyServerRequests is what a server hears for a request past
// MaxPendingServerRequests.
var ErrTooManyServerRequests = fmt.Errorf("howl is already handling %d elicitation or sampling requests from this server (MaxPendingServerRequests): ask again once one is answered", MaxPendingServerRequests)

// refusalNoticeEvery spaces howl's notices of refused questions in a
// server's log, so a flood adds a line a minute, not a line a request.
const refusalNoticeEvery = time.Minute

// refusals counts the requests refused since the last notice of them.
type refusals struct {
	n    int
	told time.Time // when the last notice went out
}

// refuse counts one more refusal; tell says a notice of the n not yet
// told is due (at most one every refusalNoticeEvery).
func (r *refusals) refuse() (n int, tell bool) {
	r.n++
	if n = r.n; time.Since(r.told) < refusalNoticeEvery {
		return n, false
	}
	r.n, r.told = 0, time.Now()
	return n, true
}

// MaxPendingQuestionBytes bounds the JSON of the questions a server has
// waiting on howl at once (each is held, decoded, until the person
// answers): MaxPendingServerRequests alone let eight questions of a
// message's size each (96 MiB) wait, about 1.5 GB a server. A question
// that would pass it is refused at once, with CodeTooManyServerRequests,
// as one past the count is; one larger than the bound is always refused.
const MaxPendingQuestionBytes = 16 << 20

// serverRequests counts, per server, the questions howl is handling and
// the bytes of their JSON.
type serverRequests struct {
	mu      sync.Mutex
	pending map[string]int
	bytes   map[string]int
	refused map[string]*refusals
}

// admittedKey marks the context of a request already admitted at the
// transport, so the question it leads to is not counted twice.
type admittedKey struct{}

// admit counts one request from server whose JSON is size bytes, or
// refuses it with why when MaxPendingServerRequests are pending or it
// would take the server's questions past MaxPendingQuestionBytes.
// release ends the count.
func (r *Runtime) admit(server string, size int) (release func(), err error) {
	b := &r.serverReqs
	b.mu.Lock()
	if b.pending == nil {
		b.pending, b.bytes, b.refused = map[string]int{}, map[string]int{}, map[string]*refusals{}
	}
	switch {
	case b.pending[server] >= MaxPendingServerRequests:
		err = ErrTooManyServerRequests
	case b.bytes[server]+size > MaxPendingQuestionBytes:
		err = fmt.Errorf("a question of %s would take this server's questions waiting on howl to %s, past %s (MaxPendingQuestionBytes): ask a shorter one, or again once one is answered",
			render.HumanBytes(int64(size)), render.HumanBytes(int64(b.bytes[server]+size)), render.HumanBytes(MaxPendingQuestionBytes))
	}
	if err != nil {
		if b.refused[server] == nil {
			b.refused[server] = &refusals{}
		}
		n, tell := b.refused[server].refuse()
		b.mu.Unlock()
		if tell {
			r.emit(Event{Kind: EventStderr, Server: server, Line: fmt.Sprintf(
				"howl: refused %d questions of %s with an error, and refuses the rest until one is answered: %v", n, server, err)})
		}
		return nil, err
	}
	b.pending[server]++
	b.bytes[server] += size
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.pending[server]--
			b.bytes[server] -= size
			b.mu.Unlock()
		})
	}, nil
}

// admitQuestion admits a question that did not come through the
// transport's gate (a 2026-07-28 input request, a URL a refused call
// names); one that did is already counted. Its bytes are its result's,
// bounded as an answer (MaxInputRequests), so it counts none.
func (r *Runtime) admitQuestion(ctx context.Context, server string) (release func(), err error) {
	if ctx.Value(admittedKey{}) != nil {
		return func() {}, nil
	}
	return r.admit(server, 0)
}

// requestGate bounds the questions a server sends on one connection: it
// wraps the client's handler at the transport, before mcp-go parses the
// request, and answers one past the bounds at once with an error. size
// is the question's JSON in bytes.
type requestGate func(size int) (release func(), err error)

func (g requestGate) wrap(h transport.RequestHandler) transport.RequestHandler {
	if g == nil {
		return h
	}
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		switch mcpgo.MCPMethod(req.Method) {
		case mcpgo.MethodElicitationCreate, mcpgo.MethodSamplingCreateMessage:
		default:
			return h(ctx, req) // answered at once (and a refused ping would look like a dead client)
		}
		release, err := g(questionBytes(req.Params))
		if err != nil {
			return transport.NewJSONRPCErrorResponse(req.ID, CodeTooManyServerRequests, err.Error(), nil), nil
		}
		defer release()
		return h(context.WithValue(ctx, admittedKey{}, true), req)
	}
}

// questionBytes is the size of a question's params: the raw JSON the
// stdio transport keeps, or the JSON of what the HTTP transport decoded
// (its event is bounded already).
func questionBytes(params any) int {
	if raw, ok := params.(json.RawMessage); ok {
		return len(raw)
	}
	b, _ := json.Marshal(params)
	return len(b)
}

// MaxInputRequests is how many requests one input_required result
// (2026-07-28's multi round-trip) may carry. mcp-go's client answers a
// round's requests all at once, a goroutine each, and sends every answer
// back in one retry: a 96 MiB result of three million roots/list entries
// was three million goroutines and a retry of their answers, up to ten
// rounds a call. A server asks for one or a few things per round; past
// the bound the request fails before mcp-go acts on the result.
const MaxInputRequests = 16

// refuseManyInputs turns an answer whose input_required result carries
// more than MaxInputRequests requests into an error answer, before the
// client sees it. It counts the members without decoding them. Every
// transport's tap calls it.
func refuseManyInputs(resp *transport.JSONRPCResponse) {
	if resp == nil || resp.Error != nil || !asksForInput(resp.Result) {
		return
	}
	n := 0
	_ = render.ObjectMembers(resp.Result, func(k string, v []byte) bool {
		if k != "inputRequests" {
			return true
		}
		_ = render.ObjectMembers(v, func(string, []byte) bool { n++; return true })
		return false
	})
	if n <= MaxInputRequests {
		return
	}
	resp.Result = nil
	resp.Error = &mcpgo.JSONRPCErrorDetails{
		Code:    mcpgo.INTERNAL_ERROR,
		Message: fmt.Sprintf("the server asked for %d inputs in one input_required result; howl answers at most %d at a time (MaxInputRequests), so the request fails", n, MaxInputRequests),
	}
}
