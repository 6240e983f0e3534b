package chat

import (
	"context"
	"fmt"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// chatRequests are the chat's own requests outside a model turn: a
// prompt's get, the reads of a message's @-mentions. Each carries an
// owner, so its progress shows in the status bar, and ctrl+c (or esc in
// the chat) cancels it at the server.
type Requests struct {
	com     *common.Common
	pending map[common.RequestID]*chatRequest
}

type chatRequest struct {
	what    string
	started time.Time
	cancel  context.CancelFunc
}

func chatRequestOwner(id common.RequestID) string {
	return "chat-request:" + strconv.FormatUint(uint64(id), 10)
}

// Start registers a request and returns its context (owned, cancellable)
// and id.
func (r *Requests) Start(what string) (context.Context, common.RequestID) {
	if r.pending == nil {
		r.pending = map[common.RequestID]*chatRequest{}
	}
	id := r.com.NewID()
	ctx, cancel := context.WithCancel(r.com.Ctx)
	ctx = mcp.WithCallObserver(ctx, mcp.CallObserver{Owner: chatRequestOwner(id)})
	r.pending[id] = &chatRequest{what: what, started: r.com.Now(), cancel: cancel}
	r.com.Progress.Begin(chatRequestOwner(id))
	return ctx, id
}

// Done forgets a finished request; it reports whether it was still
// pending (false: cancelled, its answer is stale).
func (r *Requests) Done(id common.RequestID) bool {
	req, ok := r.pending[id]
	if !ok {
		return false
	}
	req.cancel()
	delete(r.pending, id)
	r.com.Progress.Done(chatRequestOwner(id))
	return true
}

// Len is how many requests are pending.
func (r *Requests) Len() int { return len(r.pending) }

// CancelAll cancels every pending request and says what was cancelled.
func (r *Requests) CancelAll() tea.Cmd {
	var cmds []tea.Cmd
	for id, req := range r.pending {
		el := r.com.Now().Sub(req.started).Round(100 * time.Millisecond)
		cmds = append(cmds, common.ReportInfo(fmt.Sprintf("cancelled %s after %s: howl told the server to stop", req.what, el)))
		r.Done(id)
	}
	return tea.Batch(cmds...)
}
