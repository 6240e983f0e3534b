package mcp

import (
	"context"
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

// serverRequests counts, per server, the questions howl is handling.
type serverRequests struct {
	mu      sync.Mutex
	pending map[string]int
	refused map[string]*refusals
}

// admittedKey marks the context of a request already admitted at the
// transport, so the question it leads to is not counted twice.
type admittedKey struct{}

// admit counts one request from server, or refuses it (ok false) when
// MaxPendingServerRequests are pending. release ends the count.
func (r *Runtime) admit(server string) (release func(), ok bool) {
	b := &r.serverReqs
	b.mu.Lock()
	if b.pending == nil {
		b.pending, b.refused = map[string]int{}, map[string]*refusals{}
	}
	if b.pending[server] >= MaxPendingServerRequests {
		if b.refused[server] == nil {
			b.refused[server] = &refusals{}
		}
		n, tell := b.refused[server].refuse()
		b.mu.Unlock()
		if tell {
			r.emit(Event{Kind: EventStderr, Server: server, Line: fmt.Sprintf(
				"howl: %s already has %d questions waiting on howl (MaxPendingServerRequests): refused %d more with an error, and refuses the rest until one is answered",
				server, MaxPendingServerRequests, n)})
		}
		return nil, false
	}
	b.pending[server]++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.pending[server]--
			b.mu.Unlock()
		})
	}, true
}

// admitQuestion admits a question that did not come through the
// transport's gate (a 2026-07-28 input request, a URL a refused call
// names); one that did is already counted.
func (r *Runtime) admitQuestion(ctx context.Context, server string) (release func(), err error) {
	if ctx.Value(admittedKey{}) != nil {
		return func() {}, nil
	}
	release, ok := r.admit(server)
	if !ok {
		return nil, ErrTooManyServerRequests
	}
	return release, nil
}

// requestGate bounds the questions a server sends on one connection: it
// wraps the client's handler at the transport, before mcp-go parses the
// request, and answers one past the bound at once with an error.
type requestGate func() (release func(), ok bool)

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
		release, ok := g()
		if !ok {
			return transport.NewJSONRPCErrorResponse(req.ID, CodeTooManyServerRequests, ErrTooManyServerRequests.Error(), nil), nil
		}
		defer release()
		return h(context.WithValue(ctx, admittedKey{}, true), req)
	}
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
