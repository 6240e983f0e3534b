package mcp

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxUnsentAnswers bounds howl's answers to one streamable-HTTP server's
// own requests (ping, roots/list, a question) that are still on their way.
// mcp-go answers each request from such a server in a goroutine of its
// own that POSTs the answer and may wait 30 s for the server to take it,
// so a server that sends requests faster than it takes the answers (5,000
// pings while it stalls the POSTs) would cost a goroutine, a connection
// and a file descriptor each, and run howl out of them. 64 is far more
// than a working server has in flight (it waits for an answer before it
// asks again); past it the request gets no answer at all, as from a
// client that is busy, and howl says so in the server's log once a
// minute. On stdio, MaxUnreadAnswerBytes bounds the same thing in bytes.
const MaxUnsentAnswers = 64

// answerGate counts the answers of one HTTP connection that are on their
// way (answersInFlight), and leaves unanswered the requests past
// MaxUnsentAnswers.
type answerGate struct {
	server string
	notice func(line string) // the server's log; nil drops the notices

	mu      sync.Mutex
	sending int
	refused refusals
}

// wrap counts each request h answers until mcp-go is done sending the
// answer. mcp-go hands the handler a context it cancels when the
// request's goroutine ends, after its POST of the answer has ended (or
// when the POST gives up, at its 30 s timeout or when the connection
// closes): the count ends with that context. A request past the bound
// gets (nil, nil), for which mcp-go sends nothing and ends the goroutine
// at once.
func (a *answerGate) wrap(h transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if !a.take() {
			return nil, nil
		}
		context.AfterFunc(ctx, a.release)
		return h(ctx, req)
	}
}

// take counts one more answer, or refuses it past MaxUnsentAnswers.
func (a *answerGate) take() bool {
	a.mu.Lock()
	if a.sending < MaxUnsentAnswers {
		a.sending++
		a.mu.Unlock()
		return true
	}
	n, tell := a.refused.refuse()
	a.mu.Unlock()
	if tell && a.notice != nil {
		a.notice(fmt.Sprintf("howl: %s sends requests faster than it takes howl's answers: %d answers are still being sent (MaxUnsentAnswers); %d more requests were left unanswered, and the rest are until answers get through",
			a.server, MaxUnsentAnswers, n))
	}
	return false
}

func (a *answerGate) release() {
	a.mu.Lock()
	a.sending--
	a.mu.Unlock()
}
