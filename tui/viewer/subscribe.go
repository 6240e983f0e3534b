package viewer

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// unsubscribeTimeout bounds the unsubscribe sent when a document closes:
// nobody waits for it, but it must end.
const unsubscribeTimeout = 5 * time.Second

// docSub is a viewer document's resource subscription (s in the viewer):
// the server reports changes, each re-reads the page on screen.
type docSub struct {
	server, uri string
	// updates counts the changes the server reported; read is the count
	// the last re-read covered (updates > read: what is shown is stale).
	updates, read int
	// refs counts the open documents sharing this subscription (the same
	// resource open twice): the server is told to stop with the last.
	refs int
	// rt and ctx send the unsubscribe when the document closes.
	rt  Runtime
	ctx context.Context
}

// release drops one document's hold; the last one unsubscribes.
func (s *docSub) release() tea.Cmd {
	s.refs--
	if s.refs > 0 {
		return nil
	}
	return s.unsubscribeCmd()
}

// unsubscribeCmd ends a subscription at its server, off the update path.
func (s *docSub) unsubscribeCmd() tea.Cmd {
	rt, ctx, server, uri := s.rt, context.WithoutCancel(s.ctx), s.server, s.uri
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, unsubscribeTimeout)
		defer cancel()
		_ = rt.Unsubscribe(ctx, server, uri) // best effort: the server may be gone
		return nil
	}
}

// subscribedMsg is the answer to a subscribe or unsubscribe from the viewer.
type subscribedMsg struct {
	server, uri string
	on          bool
	err         error
}

// subscribable reports whether the document is a resource the viewer can
// subscribe to: a read of a concrete URI (not a template with arguments).
func subscribable(d *document) bool {
	return d != nil && d.src != nil && len(d.src.args) == 0 && d.src.uri != ""
}

// toggleSubscribe subscribes the open resource, or ends its subscription.
func (v *Pane) toggleSubscribe() tea.Cmd {
	d := v.doc
	if !subscribable(d) {
		return common.ReportWarn("only a resource read by its URI can be subscribed to (not a tool result, prompt, template or file)")
	}
	rt, ctx, id, server, uri := v.rt, v.com.Ctx, d.id, d.src.server, d.src.uri
	if d.sub != nil {
		sub := d.sub
		d.sub = nil
		return tea.Batch(sub.release(), common.ReportInfo("unsubscribed from "+render.SanitizeLine(uri)))
	}
	for _, o := range v.docs() {
		if o.sub != nil && o.sub.server == server && o.sub.uri == uri {
			// Open twice: share the subscription the server already has.
			d.sub = o.sub
			d.sub.refs++
			return common.ReportInfo("subscribed to " + render.SanitizeLine(uri) + " (already followed in another view)")
		}
	}
	return common.Deliver(common.OwnerViewer, id, func() tea.Msg {
		err := rt.Subscribe(ctx, server, uri)
		return subscribedMsg{server: server, uri: uri, on: true, err: err}
	})
}

// HandleSubscribed takes the answer to a subscribe: the document (if it is
// still open) now follows the resource; if it closed meanwhile, the
// subscription is ended at once.
func (v *Pane) handleSubscribed(docID common.RequestID, msg subscribedMsg) tea.Cmd {
	if msg.err != nil {
		return common.ReportError(fmt.Errorf("subscribing to %s: %w", render.SanitizeLine(msg.uri), msg.err))
	}
	sub := &docSub{server: msg.server, uri: msg.uri, rt: v.rt, ctx: v.com.Ctx, refs: 1}
	for _, d := range v.docs() {
		if d.id == docID && d.sub == nil {
			d.sub = sub
			return common.ReportInfo("subscribed to " + render.SanitizeLine(msg.uri) + ": changes re-read it · s unsubscribes")
		}
	}
	return sub.unsubscribeCmd() // closed (or subscribed) meanwhile
}

// docs are the open documents, the one on screen last.
func (v *Pane) docs() []*document {
	var out []*document
	for _, d := range append(append([]*document(nil), v.stack...), v.doc) {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

// HandleResourceUpdated counts a change to a subscribed resource and, when
// its document is on screen, re-reads the page shown, keeping the scroll
// position. A change that lands while a load runs is re-read when it ends
// (HandleLoaded calls rereadIfStale); a document under another one is
// re-read when it comes back (back).
func (v *Pane) HandleResourceUpdated(e mcp.Event) tea.Cmd {
	seen := map[*docSub]bool{} // a shared subscription counts a change once
	for _, d := range v.docs() {
		if d.sub == nil || d.sub.server != e.Server || d.sub.uri != e.URI || seen[d.sub] {
			continue
		}
		seen[d.sub] = true
		d.sub.updates++
	}
	return v.rereadIfStale()
}

// rereadIfStale re-reads the document on screen when its resource changed
// since it was last read, unless a load is already running.
func (v *Pane) rereadIfStale() tea.Cmd {
	d := v.doc
	if d == nil || d.sub == nil || d.src == nil || d.sub.updates <= d.sub.read || v.Loading() {
		return nil
	}
	d.sub.read = d.sub.updates
	req := d.rereadReq()
	req.offset, req.firstLine, req.continued, req.history, req.refresh = d.src.offset, d.src.firstLine, d.src.continued, d.src.history, true
	return v.Request(req, "re-reading")
}

// carryOver moves what a re-read or a new page keeps from the document it
// replaces: the subscription (same resource), and for a re-read the
// scroll position and wrapping.
func carryOver(old, cur *document, refresh bool) {
	if old == nil || cur == nil || old.sub == nil || cur.src == nil || cur.src.uri != old.sub.uri || cur.src.server != old.sub.server {
		return
	}
	if cur.sub != nil { // the new page subscribed on its own meanwhile
		return
	}
	cur.sub, old.sub = old.sub, nil
	if refresh {
		cur.top, cur.xoff, cur.wrap = old.top, old.xoff, old.wrap
	}
}

// subTitle is the title's subscription mark: "live" and the update count.
func subTitle(d *document) string {
	if d == nil || d.sub == nil {
		return ""
	}
	switch d.sub.updates {
	case 0:
		return "● live"
	case 1:
		return "● live · 1 update"
	}
	return fmt.Sprintf("● live · %d updates", d.sub.updates)
}
