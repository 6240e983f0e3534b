package viewer

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// subscribable reports whether the document is a resource the viewer can
// subscribe to: a read of a concrete URI (not a template with arguments).
func subscribable(d *document) bool {
	return d != nil && d.src != nil && len(d.src.args) == 0 && d.src.uri != ""
}

// toggleSubscribe asks the root to follow the open resource, or to end
// its subscription. The subscription is the person's, not the
// document's: it outlives this view (the subscriptions dialog lists it).
func (v *Pane) toggleSubscribe() tea.Cmd {
	d := v.doc
	if !subscribable(d) {
		return common.ReportWarn("only a resource read by its URI can be subscribed to (not a tool result, prompt, template or file)")
	}
	on := v.sub(d) == nil
	if on {
		d.read = 0 // what is shown precedes every change of the new subscription
	}
	return common.RequestSubscribe(d.src.server, d.src.uri, on)
}

// sub is the live subscription to the document's resource, or nil.
func (v *Pane) sub(d *document) *common.Subscription {
	if d == nil || d.src == nil || d.src.uri == "" || len(d.src.args) > 0 {
		return nil
	}
	return v.com.Subs.Get(d.src.server, d.src.uri)
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

// RereadGap is the least time between the end of a followed resource's
// re-read and the start of the next. A server that reports a change right
// after answering each read (or every 5 ms) had howl read, decode and draw
// the resource back to back for as long as it ran: an image of 40 M pixels
// that compresses to tens of KB costs about a second of CPU and 160 MB a
// time, a blob is spilled again each time. Changes within the gap are read
// by one re-read at its end. mcp.CatalogRefreshGap bounds catalogs alike.
const RereadGap = time.Second

// HandleResourceUpdated re-reads the document on screen when the root
// counted a change to its followed resource (common.Subscriptions),
// keeping the scroll position. A change that lands while a load runs is
// re-read when it ends (HandleLoaded calls rereadIfStale); a document
// under another one is re-read when it comes back (back).
func (v *Pane) HandleResourceUpdated() tea.Cmd { return v.rereadIfStale() }

// rereadIfStale re-reads the document on screen when its resource changed
// since it was last read, unless a load is already running or one is due
// at the end of RereadGap. A change sooner than RereadGap after the last
// re-read ended asks for one at the end of the gap, and every later change
// within it waits for that one.
func (v *Pane) rereadIfStale() tea.Cmd {
	d := v.doc
	s := v.sub(d)
	if s == nil || s.Updates <= d.read || v.Loading() || d.rereadDue {
		return nil
	}
	if wait := d.reread.Add(RereadGap).Sub(v.com.Now()); !d.reread.IsZero() && wait > 0 {
		d.rereadDue = true
		return v.com.Tick(wait, common.Result{Owner: common.OwnerViewer, ID: d.id, Msg: rereadDueMsg{}})
	}
	d.read = s.Updates
	req := d.rereadReq()
	req.offset, req.firstLine, req.continued, req.history, req.refresh = d.src.offset, d.src.firstLine, d.src.continued, d.src.history, true
	return v.Request(req, "re-reading")
}

// rereadDueMsg is the end of RereadGap for the document its envelope names.
type rereadDueMsg struct{}

// handleRereadDue re-reads the document whose RereadGap ended, if it is
// on screen; one under another is re-read when it comes back (back), one
// closed or replaced meanwhile is not.
func (v *Pane) handleRereadDue(id common.RequestID) tea.Cmd {
	for _, d := range v.docs() {
		if d.id == id {
			d.rereadDue = false
		}
	}
	if v.doc == nil || v.doc.id != id {
		return nil
	}
	return v.rereadIfStale()
}

// carryOver moves what a re-read or a new page keeps from the document it
// replaces: of the same resource, the changes it covered and when its last
// re-read ended (RereadGap holds across pages too), and for a re-read the
// scroll position and wrapping. A fresh document covers every change so far.
func (v *Pane) carryOver(old, cur *document, refresh bool) {
	if cur != nil && old != nil && cur.app == 0 {
		cur.app = old.app // another page or view of the app's document keeps the app
	}
	if cur == nil || cur.src == nil {
		return
	}
	if s := v.sub(cur); s != nil {
		cur.read = s.Updates
	}
	if old == nil || old.src == nil || cur.src.uri != old.src.uri || cur.src.server != old.src.server {
		return
	}
	cur.read, cur.reread = old.read, old.reread
	if refresh {
		cur.top, cur.xoff, cur.wrap = old.top, old.xoff, old.wrap
	}
}

// subTitle is the title's subscription mark: "live" and the update count.
func (v *Pane) subTitle(d *document) string {
	s := v.sub(d)
	switch {
	case s == nil:
		return ""
	case s.Updates == 0:
		return "● live"
	case s.Updates == 1:
		return "● live · 1 update"
	}
	return fmt.Sprintf("● live · %d updates", s.Updates)
}
