// Package catalog is the browser: four tabs over every server's items
// (tools, resources, templates, prompts), grouped by server, with an
// incremental fuzzy filter off the update path, and the detail pane that
// describes the selected item.
package catalog

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// numKinds is len(mcp.Kinds), as a constant for the per-tab arrays.
const numKinds = 5

// TabTitles name the catalog tabs, in mcp.Kinds order.
var TabTitles = [numKinds]string{"Tools", "Resources", "Templates", "Prompts", "Skills"}

// ShortTabTitles name the tabs on a tab bar too narrow for TabTitles.
var ShortTabTitles = [numKinds]string{"Tools", "Res", "Tmpl", "Prompts", "Skills"}

// kindIndex is the tab of a kind.
func kindIndex(k mcp.Kind) int {
	for i, kk := range mcp.Kinds {
		if kk == k {
			return i
		}
	}
	return 0
}

// entry is one catalog item ready to draw: the raw item, used for calls,
// and sanitized one-line strings, used for display.
type Entry struct {
	// item points into the listed catalog, the runtime's cached one,
	// which nothing changes once it is published: one copy of each item,
	// not two (at 120,000 items the copies were 45 MB of the heap every
	// collection marks).
	item *mcp.CatalogItem
	// name is the primary column; desc the dim second column.
	name, desc string
	// hay is what the filter matches: name first, so match positions below
	// len(name) highlight the name.
	hay string
	// idx is hay indexed for matching.
	idx hayIndex
	// nameCells is the name's width in cells.
	nameCells int
	// changed, for a tool the person approved by name, says what the
	// server changed since ("" when nothing did).
	changed string
	// off: the person switched this tool off; the model does not see it.
	off bool
	// fresh: a list_changed brought it and the person has not yet had
	// the cursor on it. Only the update path sets it, from its server's
	// marks (newMarks), when the listing lands or the marks change.
	fresh bool
	// place is its index in its server's entries of its kind.
	place int32
}

// Off reports whether the person switched this tool off.
func (e *Entry) Off() bool { return e.off }

// toolsOffer is the runtime's list of switched-off tools, when it keeps one.
type toolsOffer interface {
	ToolOff(server, tool string) bool
}

// SetToolOff marks a server's tool switched off or on (after a switch).
func (c *Pane) SetToolOff(server, id string, off bool) {
	if sv, ok := c.byName[server]; ok {
		t := kindIndex(mcp.KindTool)
		for _, e := range sv.entries[t] {
			if e.item.ID == id && e.off != off {
				e.off = off
				if off {
					sv.offN[t]++
				} else {
					sv.offN[t]--
				}
			}
		}
	}
}

// newEntry sanitizes an item for display.
func newEntry(it *mcp.CatalogItem) *Entry {
	e := &Entry{}
	e.fill(it)
	return e
}

// fill makes e the entry of it, sanitized for display.
func (e *Entry) fill(it *mcp.CatalogItem) {
	*e = Entry{item: it, name: render.SanitizeLine(it.Name)}
	if e.name == "" {
		e.name = render.SanitizeLine(it.ID)
	}
	switch it.Kind {
	case mcp.KindResource, mcp.KindTemplate:
		e.desc = render.SanitizeLine(it.URI)
	case mcp.KindTool:
		e.desc = common.FirstLine(it.Description)
		if it.Title != "" {
			e.desc = render.SanitizeLine(it.Title) + " · " + e.desc
		}
	default:
		e.desc = common.FirstLine(it.Description)
	}
	e.hay = e.name + "  " + render.SanitizeLine(it.Title) + "  " + render.SanitizeLine(it.ID)
	e.idx = newHayIndex(e.hay, len(e.name))
	e.nameCells = common.WidthOf(e.name)
}

// Server is what the TUI knows of one server: its state (from runtime
// events) and its catalog (from the last listing it asked for).
type Server struct {
	name    string
	status  mcp.Status
	loading bool
	loaded  bool
	// pending is the id of the listing in flight; cancel ends it.
	pending common.RequestID
	cancel  context.CancelFunc
	entries [numKinds][]*Entry
	listed  map[mcp.Kind]bool
	warns   [numKinds][]string
	// failed marks the kinds whose listing failed: their count is unknown.
	failed  [numKinds]bool
	loadErr string
	// cat is the listing its entries show, and slab its entries in the
	// order of cat.Items, so a mark finds its entry by the catalog's
	// index (nil while nothing is listed).
	cat  *mcp.Catalog
	slab []Entry
	// marks are its items marked new.
	marks newMarks
	// offN counts its entries switched off, by kind.
	offN [numKinds]int
}

// catalogLoadedMsg is a finished listing of one server.
type catalogLoadedMsg struct {
	server  string
	cat     *mcp.Catalog
	slab    []Entry
	entries [numKinds][]*Entry
	listed  map[mcp.Kind]bool
	warns   [numKinds][]string
	failed  [numKinds]bool
	// offN counts the entries switched off.
	offN [numKinds]int
	err  error
}

// loadCatalogCmd lists one server's catalog and prepares its entries, off
// the update path, counting the tools switched off. It carries no marks
// of new items: those are the pane's, applied when the listing lands, so
// a mark the person clears while it runs stays cleared.
func loadCatalogCmd(ctx context.Context, rt Runtime, approvals *llm.Approvals, server string, id common.RequestID, listed *mcp.Catalog, refresh bool) tea.Cmd {
	return common.Deliver(common.OwnerCatalog, id, func() tea.Msg {
		cat, err := listed, error(nil)
		if cat == nil {
			cat, err = rt.Catalog(ctx, server, refresh)
		}
		msg := catalogLoadedMsg{server: server, listed: map[mcp.Kind]bool{}}
		if err != nil {
			msg.err = err
			return msg
		}
		for _, k := range cat.Listed {
			msg.listed[k] = true
		}
		// The entries are one allocation, and each kind's list is made
		// its size: at 120,000 items, 120,000 objects fewer for every
		// collection to visit, and no garbage from growing the lists.
		slab := make([]Entry, len(cat.Items))
		msg.cat, msg.slab = cat, slab
		var n [numKinds]int
		for j := range cat.Items {
			n[kindIndex(cat.Items[j].Kind)]++
		}
		for i := range msg.entries {
			msg.entries[i] = make([]*Entry, 0, n[i])
		}
		for j := range cat.Items {
			it := &cat.Items[j]
			i := kindIndex(it.Kind)
			e := &slab[j]
			e.fill(it)
			if o, ok := rt.(toolsOffer); ok && it.Kind == mcp.KindTool {
				e.off = o.ToolOff(server, it.ID)
			}
			if it.Kind == mcp.KindTool && approvals != nil {
				if state, ch, err := approvals.Check(*it); err == nil && state == llm.Changed {
					e.changed = render.SanitizeLine(ch.Summary())
					e.desc = "⚠ " + e.changed + " · " + e.desc
				}
			}
			if e.off {
				msg.offN[i]++
			}
			e.place = int32(len(msg.entries[i]))
			msg.entries[i] = append(msg.entries[i], e)
		}
		for _, k := range cat.Failed {
			msg.failed[kindIndex(k)] = true
		}
		for _, w := range cat.Warnings {
			i := kindIndex(w.Kind)
			msg.warns[i] = append(msg.warns[i], render.SanitizeLine(w.Reason))
		}
		return msg
	})
}

// rowKind says what a list row shows.
type rowKind int

const (
	rowItem rowKind = iota
	rowHeader
	rowNotice
)

// row is one line of a tab's list.
type row struct {
	kind   rowKind
	server *Server
	e      *Entry
	// text is a notice's message; isErr marks a failure; spin a loading one.
	text  string
	isErr bool
	spin  bool
	// stop: the cursor can rest on this notice (a server's failure), so
	// the details pane can say more about it.
	stop bool
}

// selectable reports whether the cursor can rest on r.
func (r row) selectable() bool { return r.kind == rowItem || r.stop }

// maxNoticeLines bounds a notice in the list (a failure reason, say).
const maxNoticeLines = 4

// Pane is the browser: four tabs over every server's items, grouped
// by server, with an incremental filter.
type Pane struct {
	com     *common.Common
	rt      Runtime
	servers []*Server
	byName  map[string]*Server

	tab int
	// all holds each kind's entries across servers, in server order;
	// spans say where each server's are.
	all   [numKinds][]*Entry
	spans [numKinds][]serverSpan
	// version bumps whenever all is rebuilt, so late filter results over
	// an older catalog are recognised and dropped.
	version int

	filter    common.TextInput
	filtering bool
	query     string
	filterID  common.RequestID
	// matches is the filter's result per kind; nil means no filter.
	matches *[numKinds][]*Entry
	// matched is the query matches answer; a result for a new query puts
	// the cursor on its best match, one for the same query (the catalog
	// changed under it) keeps the cursor where it was.
	matched string
	filt    filterState

	rows   [numKinds][]row
	nameW  [numKinds]int
	cursor [numKinds]int
	offset [numKinds]int

	width, height int
	focused       bool
}

// HandleCatalogChanged takes a server's refreshed catalog after a
// list_changed: the added items are marked new until seen, the removed
// ones lose their marks, and the list is loaded again: from the change's
// own listing when it carries one, else from the runtime.
func (c *Pane) HandleCatalogChanged(server string, ch *mcp.CatalogChange) tea.Cmd {
	if sv := c.byName[server]; sv != nil && ch != nil {
		for _, k := range ch.Removed {
			if kind, id, ok := strings.Cut(k, ":"); ok {
				sv.unmark(markKey{mcp.Kind(kind), id})
			}
		}
		for _, k := range ch.Added {
			if kind, id, ok := strings.Cut(k, ":"); ok {
				sv.mark(markKey{mcp.Kind(kind), id})
			}
		}
	}
	if ch != nil && ch.Listing != nil {
		return c.reloadFrom(server, ch.Listing, false)
	}
	return c.Reload(server, false)
}

// MarkSeen clears the new mark of the item under the cursor. The person's
// moves call it (a key, the wheel, a click), not a reload that happens to
// put a new item under the cursor.
func (c *Pane) MarkSeen() {
	if e := c.Selected(); e != nil && e.fresh {
		if sv := c.byName[e.item.Server]; sv != nil {
			sv.unmark(markKey{e.item.Kind, e.item.ID}) // its shown entry, counted
		}
		e.fresh = false // and this one, should it be of a listing since replaced
	}
}

// freshN and offN are tab i's counts of items marked new and switched
// off: the sums of its servers' counts (a handful), taken when the title
// is drawn, so they cannot drift from them. capped says some new items
// of a server were left unmarked (MaxNewMarkBytes).
func (c *Pane) freshN(i int) (n int, capped bool) {
	for _, sv := range c.servers {
		n += sv.marks.shown[i]
		capped = capped || sv.marks.capped[i]
	}
	return n, capped
}

func (c *Pane) offN(i int) int {
	n := 0
	for _, sv := range c.servers {
		n += sv.offN[i]
	}
	return n
}

// Runtime is what the catalog asks of the MCP side, from commands only:
// a server's catalog.
type Runtime interface {
	Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error)
}

// New builds the browser over the servers, all starting.
func New(com *common.Common, rt Runtime, names []string) *Pane {
	c := &Pane{com: com, rt: rt, byName: map[string]*Server{}}
	for _, n := range names {
		sv := &Server{name: n, status: mcp.Status{Name: n, State: mcp.StateStarting}, listed: map[mcp.Kind]bool{}}
		c.servers = append(c.servers, sv)
		c.byName[n] = sv
	}
	c.filter = common.NewTextInput(com, "/ ", "filter by name")
	c.rebuild()
	return c
}

// SetServers makes the browser show exactly the servers names, in that
// order, after a config reload: a server it did not have is added
// (stopped, until its state arrives), one that is gone leaves with its
// items; the others keep their entries.
func (c *Pane) SetServers(names []string) tea.Cmd {
	byName := map[string]*Server{}
	servers := make([]*Server, 0, len(names))
	for _, n := range names {
		sv, ok := c.byName[n]
		if !ok {
			sv = &Server{name: n, status: mcp.Status{Name: n, State: mcp.StateStopped}, listed: map[mcp.Kind]bool{}}
		}
		servers = append(servers, sv)
		byName[n] = sv
	}
	for n, sv := range c.byName {
		if byName[n] == nil {
			c.cancelLoad(sv)
		}
	}
	c.servers, c.byName = servers, byName
	return c.rebuildAll()
}

// SetSize sets the pane's outer size. Notices wrap to the width, so a new
// width rebuilds the rows.
func (c *Pane) SetSize(w, h int) tea.Cmd {
	if w != c.width {
		c.width = w
		c.rebuild()
	}
	c.height = h
	c.fitFilter()
	c.ensureVisible()
	return nil
}

// fitFilter leaves room on the filter line for the widest count it can
// show ("100126 of 100126" at 120,000 items), so the count is not cut.
func (c *Pane) fitFilter() {
	n := 0
	for _, all := range c.all {
		n = max(n, len(all))
	}
	countW := len(fmt.Sprintf("%d of %d", n, n))
	// Borders (2), the prompt (2), the cursor (1) and a space before the count.
	c.filter.SetWidth(max(c.width-6-countW, 4))
}

// Focus and Blur move the keyboard focus.
func (c *Pane) Focus() { c.focused = true }
func (c *Pane) Blur()  { c.focused = false }

// TextInputFocused reports whether the filter is being typed into.
func (c *Pane) TextInputFocused() bool { return c.filtering }

// Selected is the Entry under the cursor, or nil.
func (c *Pane) Selected() *Entry {
	rows := c.rows[c.tab]
	if i := c.cursor[c.tab]; i >= 0 && i < len(rows) && rows[i].kind == rowItem {
		return rows[i].e
	}
	return nil
}

// SelectedServer is the server of the selected row (item or group).
func (c *Pane) SelectedServer() *Server {
	rows := c.rows[c.tab]
	if i := c.cursor[c.tab]; i >= 0 && i < len(rows) {
		return rows[i].server
	}
	if len(c.servers) > 0 {
		return c.servers[0]
	}
	return nil
}

// Busy reports whether a spinner should turn.
func (c *Pane) Busy() bool {
	for _, sv := range c.servers {
		if sv.loading || sv.status.State == mcp.StateStarting {
			return true
		}
	}
	return false
}

// SetTab switches tab.
func (c *Pane) SetTab(i int) {
	c.tab = (i + len(TabTitles)) % len(TabTitles)
	c.ensureVisible()
}

// Tab is the current tab.
func (c *Pane) Tab() int { return c.tab }

// TabTitle is a tab's title with its count ("Tools 11", or "Tools 3/11"
// while a filter is active). A count that a failed listing leaves unknown
// reads "?" ("Prompts ?", or "Prompts 6+?" beside a server that listed 6),
// never 0.
func (c *Pane) TabTitle(i int) string { return c.tabTitle(i, TabTitles[i]) }

// ShortTabTitle is TabTitle with a short kind name ("Res 126+?"), for a
// narrow tab bar.
func (c *Pane) ShortTabTitle(i int) string { return c.tabTitle(i, ShortTabTitles[i]) }

func (c *Pane) tabTitle(i int, name string) string {
	total := countText(len(c.all[i]), c.unknown(i))
	if c.matches != nil {
		return fmt.Sprintf("%s %d/%s", name, len(c.matches[i]), total)
	}
	if n, capped := c.freshN(i); n > 0 {
		floor := "" // "+9362+ new": more were new than are marked
		if capped {
			floor = "+"
		}
		return fmt.Sprintf("%s %s +%d%s new", name, total, n, floor)
	}
	if n := c.offN(i); n > 0 {
		return fmt.Sprintf("%s %s (%d off)", name, total, n)
	}
	return fmt.Sprintf("%s %s", name, total)
}

// unknown reports whether what a server offers of tab i's kind is
// unknown: its listing failed, or the server itself did.
func (c *Pane) unknown(i int) bool {
	for _, sv := range c.servers {
		if sv.unknown(i) {
			return true
		}
	}
	return false
}

// unknown reports whether the count of tab i's kind is unknown for sv.
func (sv *Server) unknown(i int) bool {
	switch sv.status.State {
	case mcp.StateFailed, mcp.StateAuthRequired:
		return true
	}
	return sv.loadErr != "" || sv.loaded && sv.failed[i]
}

// countText is a count, with "?" for the part a failed listing left
// unknown: "12", "?" or "12+?".
func countText(n int, unknown bool) string {
	switch {
	case !unknown:
		return strconv.Itoa(n)
	case n == 0:
		return "?"
	}
	return strconv.Itoa(n) + "+?"
}

// ApplyStatus records a server's new state. A server that became ready is
// listed; one that left ready forgets its catalog. Only what the new
// state changes is rebuilt: nothing when the list shows the server as it
// did (a ready server reported ready again), the server's own rows when
// its entries stay as they were, and the whole list (and the filter's
// run) only when its entries leave it: at 120,000 items a full rebuild
// is 11 ms and 6.7 MB on the update path for every status event.
func (c *Pane) ApplyStatus(st mcp.Status) tea.Cmd {
	sv, ok := c.byName[st.Name]
	if !ok {
		return nil
	}
	was, had := sv.shown(), sv.hasEntries()
	sv.status = st
	var cmd tea.Cmd
	switch {
	case st.State == mcp.StateReady && (was.state != mcp.StateReady || !sv.loaded && !sv.loading):
		cmd = c.load(sv, nil, false)
	case st.State != mcp.StateReady:
		c.cancelLoad(sv)
		sv.loaded = false
		sv.entries = [numKinds][]*Entry{}
		sv.warns = [numKinds][]string{}
		sv.failed = [numKinds]bool{}
		sv.cat, sv.slab, sv.offN = nil, nil, [numKinds]int{}
		sv.marks.unshow() // kept, for the items when it is listed again
	}
	switch {
	case had && !sv.hasEntries():
		return tea.Batch(cmd, c.rebuildAll())
	case sv.shown() != was:
		c.rebuildServer(sv)
	}
	return cmd
}

// shownState is what a server's rows show of it beyond its listing.
type shownState struct {
	state mcp.State
	// notice is the notice shown instead of its listing; listing marks
	// its listing shown (its warnings and items), which only a new
	// listing changes.
	notice  string
	listing bool
}

// shown is what sv's rows show of it beyond its listing (as buildRows
// draws them): when it is the same before and after a change, the change
// leaves its rows as they are.
func (sv *Server) shown() shownState {
	s := shownState{state: sv.status.State}
	switch {
	case s.state == mcp.StateFailed || s.state == mcp.StateAuthRequired:
		s.notice = sv.status.Reason
	case s.state != mcp.StateReady:
	case sv.loadErr != "":
		s.notice = "listing failed: " + sv.loadErr
	case sv.loading && !sv.loaded:
		s.notice = "listing…"
	default:
		s.listing = true
	}
	return s
}

// hasEntries reports whether sv lists any item.
func (sv *Server) hasEntries() bool {
	for _, es := range sv.entries {
		if len(es) > 0 {
			return true
		}
	}
	return false
}

// Reload lists a server again: refresh asks the server rather than the
// runtime's cache. A server whose items are shown keeps them until the
// new listing lands, so its rows stay as they are.
func (c *Pane) Reload(name string, refresh bool) tea.Cmd {
	return c.reloadFrom(name, nil, refresh)
}

// reloadFrom is Reload showing listed when it is not nil, rather than
// asking the runtime for the catalog.
func (c *Pane) reloadFrom(name string, listed *mcp.Catalog, refresh bool) tea.Cmd {
	sv, ok := c.byName[name]
	if !ok || sv.status.State != mcp.StateReady {
		return nil
	}
	was := sv.shown()
	cmd := c.load(sv, listed, refresh)
	if sv.shown() != was {
		c.rebuildServer(sv)
	}
	return cmd
}

func (c *Pane) load(sv *Server, listed *mcp.Catalog, refresh bool) tea.Cmd {
	c.cancelLoad(sv)
	id := c.com.NewID()
	ctx, cancel := context.WithCancel(c.com.Ctx)
	sv.pending, sv.cancel, sv.loading, sv.loadErr = id, cancel, true, ""
	return loadCatalogCmd(ctx, c.rt, c.com.Approvals, sv.name, id, listed, refresh)
}

func (c *Pane) cancelLoad(sv *Server) {
	if sv.cancel != nil {
		sv.cancel()
		sv.cancel = nil
	}
	sv.loading = false
	sv.pending = 0
}

// HandleResult takes the answers to the catalog's requests: listings and
// filter runs.
func (c *Pane) HandleResult(r common.Result) tea.Cmd {
	switch msg := r.Msg.(type) {
	case catalogLoadedMsg:
		return c.handleLoaded(r.ID, msg)
	case filterDoneMsg:
		c.handleFilter(r.ID, msg)
	}
	return nil
}

// handleLoaded takes a finished listing. A listing that is not the one the
// server waits for is stale and dropped.
func (c *Pane) handleLoaded(id common.RequestID, msg catalogLoadedMsg) tea.Cmd {
	sv, ok := c.byName[msg.server]
	if !ok || id != sv.pending {
		return nil
	}
	if sv.cancel != nil {
		sv.cancel()
	}
	sv.cancel, sv.pending, sv.loading = nil, 0, false
	if msg.err != nil {
		sv.loadErr = render.SanitizeLine(msg.err.Error())
		c.rebuildServer(sv)
		return nil
	}
	sv.loaded, sv.loadErr = true, ""
	sv.entries, sv.listed, sv.warns, sv.failed = msg.entries, msg.listed, msg.warns, msg.failed
	sv.cat, sv.slab, sv.offN = msg.cat, msg.slab, msg.offN
	sv.showMarks()
	return c.rebuildAll()
}

// rebuildAll rebuilds the per-kind Entry lists and reruns the filter.
func (c *Pane) rebuildAll() tea.Cmd {
	for i := range c.all {
		// One server's entries are the kind's as they are (a published
		// entry slice is never changed); several are copied into one
		// slice of their size, not grown.
		n, from := 0, 0
		for _, sv := range c.servers {
			if len(sv.entries[i]) > 0 {
				n += len(sv.entries[i])
				from++
			}
		}
		var all []*Entry
		if from > 1 {
			all = make([]*Entry, 0, n)
		}
		spans := make([]serverSpan, 0, len(c.servers))
		for _, sv := range c.servers {
			if from == 1 && len(sv.entries[i]) > 0 {
				all = sv.entries[i]
			} else {
				all = append(all, sv.entries[i]...)
			}
			spans = append(spans, serverSpan{sv: sv, end: int32(len(all))})
		}
		c.all[i], c.spans[i] = all, spans
	}
	c.fitFilter()
	c.version++
	if c.query != "" {
		c.filt.plainOK = false // the rows without the filter are out of date
		return c.runFilter()
	}
	c.rebuild()
	return nil
}

// HandleKey handles a key while the list has focus. It reports whether it
// used the key.
func (c *Pane) HandleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if c.filtering {
		return c.handleFilterKey(msg), true
	}
	k := c.com.Keys
	switch {
	case key.Matches(msg, k.Up):
		c.move(-1)
	case key.Matches(msg, k.Down):
		c.move(1)
	case key.Matches(msg, k.PageUp):
		c.move(-max(c.listHeight()-1, 1))
	case key.Matches(msg, k.PageDown):
		c.move(max(c.listHeight()-1, 1))
	case key.Matches(msg, k.Top):
		c.cursor[c.tab] = -1
		c.move(1)
	case key.Matches(msg, k.Bottom):
		c.cursor[c.tab] = len(c.rows[c.tab])
		c.move(-1)
	case key.Matches(msg, k.Filter):
		c.filtering = true
		return c.filter.Focus(), true
	case key.Matches(msg, k.Back) && c.query != "":
		c.filter.SetValue("")
		return c.setQuery(""), true
	default:
		return nil, false
	}
	return nil, true
}

func (c *Pane) handleFilterKey(msg tea.KeyMsg) tea.Cmd {
	k := c.com.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		c.filtering = false
		c.filter.Blur()
		c.filter.SetValue("")
		return c.setQuery("")
	case key.Matches(msg, k.Accept), msg.Type == tea.KeyDown, msg.Type == tea.KeyUp:
		c.filtering = false
		c.filter.Blur()
		if msg.Type == tea.KeyDown || msg.Type == tea.KeyUp {
			c.HandleKey(msg)
		}
		return nil
	}
	cmd := c.filter.Update(msg)
	return tea.Batch(cmd, c.setQuery(c.filter.Value()))
}

// setQuery changes the filter. An empty query clears it at once (the
// rows before the filter come back); any other runs the match off the
// update path.
func (c *Pane) setQuery(q string) tea.Cmd {
	if q == c.query {
		return nil
	}
	c.query = q
	if q == "" {
		c.filt.stop()
		c.filterID = 0
		c.matches, c.matched = nil, ""
		if c.filt.plainOK {
			c.setRows(c.filt.plain, c.filt.plainW, nil)
		} else {
			c.rebuild()
		}
		return nil
	}
	return c.runFilter()
}

// runFilter starts a filter run, cancelling the one in flight; a query
// that extends the last one shown searches only its candidates.
func (c *Pane) runFilter() tea.Cmd {
	c.filt.stop()
	c.filterID = c.com.NewID()
	ctx, cancel := context.WithCancel(c.com.Ctx)
	c.filt.cancel = cancel
	job := filterJob{id: c.filterID, version: c.version, query: c.query, all: c.all, spans: c.spans}
	if last := c.filt.last; last != nil && last.version == c.version && strings.HasPrefix(c.query, last.query) {
		job.base = last
	}
	return filterCmd(ctx, job)
}

// handleFilter takes a filter result, rows and all; one for an older
// query or an older catalog is dropped. A result for a new query puts
// the cursor on its best match.
func (c *Pane) handleFilter(id common.RequestID, msg filterDoneMsg) {
	if id != c.filterID || msg.version != c.version {
		msg.recycle() // nobody else has it
		return
	}
	c.filt.stop()
	old := c.filt.last
	c.filt.last = &msg
	c.filt.terms = queryTerms(msg.query)
	c.matches = &msg.matches
	var best *[numKinds]int
	if c.matched != c.query {
		c.matched = c.query
		best = &msg.best
	}
	c.setRows(msg.rows, msg.nameW, best)
	if old != nil {
		old.recycle() // nothing shows or reads its rows and matches now
	}
}

// move moves the cursor by delta rows, landing on items only.
func (c *Pane) move(delta int) {
	rows := c.rows[c.tab]
	if len(rows) == 0 {
		return
	}
	i := c.cursor[c.tab]
	step := 1
	if delta < 0 {
		step = -1
	}
	target := common.Clamp(i+delta, 0, len(rows)-1)
	// Find the nearest item at or beyond target in the direction of travel,
	// else the nearest one back the other way.
	j := target
	for j >= 0 && j < len(rows) && !rows[j].selectable() {
		j += step
	}
	if j < 0 || j >= len(rows) {
		j = target
		for j >= 0 && j < len(rows) && !rows[j].selectable() {
			j -= step
		}
	}
	if j >= 0 && j < len(rows) && rows[j].selectable() {
		c.cursor[c.tab] = j
	}
	c.ensureVisible()
	c.MarkSeen()
}

// Scroll moves the view (mouse wheel) without moving past the ends.
func (c *Pane) Scroll(delta int) { c.move(delta) }

// Click selects the row at pane-relative line y. It reports whether an
// item was hit.
func (c *Pane) Click(y int) bool {
	i := c.offset[c.tab] + y - c.bodyTop()
	rows := c.rows[c.tab]
	if i >= 0 && i < len(rows) && rows[i].selectable() {
		c.cursor[c.tab] = i
		c.ensureVisible()
		c.MarkSeen()
		return rows[i].kind == rowItem
	}
	return false
}

// bodyTop is the first row of items inside the pane (border, filter line).
func (c *Pane) bodyTop() int {
	if c.filterShown() {
		return 2
	}
	return 1
}

func (c *Pane) filterShown() bool { return c.filtering || c.query != "" }

func (c *Pane) listHeight() int { return max(c.height-1-c.bodyTop(), 1) }

func (c *Pane) ensureVisible() {
	for t := range c.rows {
		h := c.listHeight()
		cur, off := c.cursor[t], c.offset[t]
		if cur < off {
			off = cur
		}
		if cur >= off+h {
			off = cur - h + 1
		}
		// Show the group header above the first item.
		if cur >= 0 && cur < len(c.rows[t]) && off > 0 && off == cur && c.rows[t][off-1].kind == rowHeader {
			off--
		}
		off = common.Clamp(off, 0, max(len(c.rows[t])-h, 0))
		c.offset[t] = off
	}
}

// rebuild recomputes every tab's rows from the servers, their entries and
// the filter, keeping each tab's selection on the same item when it is
// still there.
func (c *Pane) rebuild() {
	var rows [numKinds][]row
	var w [numKinds]int
	for t := range rows {
		rows[t] = c.buildRows(t)
		w[t] = nameWidth(rows[t])
	}
	// The rows without a filter are kept, so clearing one is a swap; a
	// rebuild while one is shown may follow any change, so they are not.
	c.filt.plain, c.filt.plainW, c.filt.plainOK = rows, w, c.matches == nil
	if c.matches != nil {
		// They are the shown run's rows, which go back to the pool when
		// the next run is shown (handleFilter): not kept here too.
		c.filt.plain = [numKinds][]row{}
	}
	c.setRows(rows, w, nil)
}

// setRows shows rows (whose name columns are nameW wide), putting each
// tab's cursor on its best row when best gives one, else on the same item
// when it is still there.
func (c *Pane) setRows(rows [numKinds][]row, nameW [numKinds]int, best *[numKinds]int) {
	for t := range c.rows {
		var keep *Entry
		if i := c.cursor[t]; i >= 0 && i < len(c.rows[t]) {
			keep = c.rows[t][i].e
		}
		c.rows[t], c.nameW[t] = rows[t], nameW[t]
		c.cursor[t] = -1
		if best != nil && best[t] >= 0 {
			c.cursor[t] = best[t]
			continue
		}
		c.cursor[t] = c.rowOf(c.rows[t], keep, t)
		if c.cursor[t] < 0 {
			for i, r := range c.rows[t] {
				if r.kind == rowItem {
					c.cursor[t] = i
					break
				}
			}
		}
		if c.cursor[t] < 0 {
			c.cursor[t] = 0
		}
	}
	c.ensureVisible()
}

// rowOf is the row of rows (tab t's) that shows keep, or the same item
// in a newer listing, else -1. The row is found from keep's place in its
// server's entries, not by walking the rows before it: at 100,000 rows
// that walk made clearing a filter whose cursor sat on the last match
// take 11 ms.
func (c *Pane) rowOf(rows []row, keep *Entry, t int) int {
	if keep == nil {
		return -1
	}
	if sv := c.byName[keep.item.Server]; sv != nil && int(keep.place) < len(sv.entries[t]) && sv.entries[t][keep.place] == keep {
		if lo, hi := serverSpanIn(rows, sv, t); lo >= 0 {
			first := slices.IndexFunc(rows[lo:hi], func(r row) bool { return r.kind == rowItem })
			if j := lo + first + int(keep.place); first >= 0 && j < hi && rows[j].e == keep {
				return j
			}
		}
	}
	// Under a filter, or after a new listing: the rows in turn.
	for i, r := range rows {
		if r.kind == rowItem && (r.e == keep || r.e.item.ID == keep.item.ID && r.e.item.Kind == keep.item.Kind && r.e.item.Server == keep.item.Server) {
			return i
		}
	}
	return -1
}

func (c *Pane) buildRows(t int) []row {
	if c.matches != nil {
		return c.filt.last.rows[t] // built with the matches, off the update path
	}
	rows := make([]row, 0, len(c.all[t])+2*len(c.servers))
	for _, sv := range c.servers {
		rows = c.serverRows(rows, sv, t)
	}
	return rows
}

// serverRows appends sv's rows in tab t, without a filter, to rows.
func (c *Pane) serverRows(rows []row, sv *Server, t int) []row {
	rows = append(rows, row{kind: rowHeader, server: sv})
	notice := func(text string, isErr, spin bool) {
		stop := sv.status.State == mcp.StateFailed || sv.status.State == mcp.StateAuthRequired
		lines := common.WrapText(text, max(c.width-2-4, 10))
		if len(lines) > maxNoticeLines {
			lines = lines[:maxNoticeLines]
			lines[maxNoticeLines-1] += " …"
		}
		for i, l := range lines {
			if i > 0 {
				l = "  " + l
			}
			rows = append(rows, row{kind: rowNotice, server: sv, text: l, isErr: isErr, spin: spin && i == 0, stop: stop && i == 0})
		}
	}
	shown := sv.shown()
	switch {
	case shown.state == mcp.StateStarting || shown.state == "":
		notice("starting…", false, true)
		return rows
	case shown.state == mcp.StateFailed || shown.state == mcp.StateAuthRequired:
		reason := render.SanitizeLine(shown.notice)
		if reason == "" {
			reason = "no reason given"
		}
		notice(string(shown.state)+": "+reason, true, false)
		return rows
	case shown.state != mcp.StateReady:
		notice(string(shown.state), false, false)
		return rows
	case !shown.listing:
		notice(shown.notice, sv.loadErr != "", sv.loadErr == "")
		return rows
	}
	kind := mcp.Kinds[t]
	for _, w := range sv.warns[t] {
		notice("⚠ "+w, true, false)
	}
	if !sv.listed[kind] && len(sv.warns[t]) == 0 {
		notice(fmt.Sprintf("%s offers no %s", render.SanitizeLine(sv.name), strings.ToLower(TabTitles[t])), false, false)
		return rows
	}
	for _, e := range sv.entries[t] {
		rows = append(rows, row{kind: rowItem, server: sv, e: e})
	}
	if len(sv.entries[t]) == 0 && len(sv.warns[t]) == 0 {
		notice("no "+strings.ToLower(TabTitles[t]), false, false)
	}
	return rows
}

// rebuildServer rebuilds sv's rows alone, in place among the others'
// (a copy of the rows after them at most, not a rebuild of every row),
// after a change that left every server's entries as they were: in the
// rows without a filter, shown or kept for clearing one. The rows under a
// filter hold matches only, which did not change.
func (c *Pane) rebuildServer(sv *Server) {
	for t := range c.rows {
		plain, w := c.filt.plain[t], c.filt.plainW[t]
		if c.matches == nil {
			plain, w = c.rows[t], c.nameW[t]
		} else if !c.filt.plainOK {
			continue // clearing the filter rebuilds them
		}
		lo, hi := serverSpanIn(plain, sv, t)
		if lo < 0 {
			c.rebuild() // not drawn yet
			return
		}
		seg := c.serverRows(nil, sv, t)
		if slices.ContainsFunc(plain[lo:hi], func(r row) bool { return r.kind == rowItem }) {
			w = -1 // its items may have been the widest
		}
		plain = slices.Replace(plain, lo, hi, seg...)
		if w < 0 {
			w = nameWidth(plain)
		}
		w = max(w, nameWidth(seg))
		c.filt.plain[t], c.filt.plainW[t] = plain, w
		if c.matches != nil {
			continue
		}
		c.rows[t], c.nameW[t] = plain, w
		switch cur := c.cursor[t]; {
		case cur >= hi:
			c.cursor[t] = cur + len(seg) - (hi - lo)
		case cur >= lo:
			c.cursor[t] = nearestSelectable(plain, lo)
		}
	}
	c.ensureVisible()
}

// serverSpanIn finds sv's rows in the rows of tab t without a filter:
// from its header to the next. A server's items are one run of its
// entries, stepped over at once.
func serverSpanIn(rows []row, sv *Server, t int) (lo, hi int) {
	lo = -1
	for i := 0; i < len(rows); {
		r := rows[i]
		switch {
		case r.kind == rowHeader && lo >= 0:
			return lo, i
		case r.kind == rowHeader && r.server == sv:
			lo = i
		case r.kind == rowItem:
			// The run of r's server's items holds every row up to its
			// last entry's when that row is one of them.
			if n := len(r.server.entries[t]); n > 1 && i+n-1 < len(rows) && rows[i+n-1].kind == rowItem && rows[i+n-1].server == r.server {
				i += n
				continue
			}
		}
		i++
	}
	if lo < 0 {
		return -1, -1
	}
	return lo, len(rows)
}

// nearestSelectable is the selectable row nearest at or after i, else
// before it (0 when none is).
func nearestSelectable(rows []row, i int) int {
	for j := i; j < len(rows); j++ {
		if rows[j].selectable() {
			return j
		}
	}
	for j := min(i, len(rows)) - 1; j >= 0; j-- {
		if rows[j].selectable() {
			return j
		}
	}
	return 0
}

// Render draws the pane at its size.
func (c *Pane) Render(frame int) []string {
	st := c.com.Styles
	inner := c.width - 2
	var content []string
	if c.filterShown() {
		count := ""
		if c.matches != nil {
			count = fmt.Sprintf("%d of %d", len(c.matches[c.tab]), len(c.all[c.tab]))
		}
		line := c.filter.View()
		gap := inner - common.WidthOf(line) - len(count) - 1
		content = append(content, line+strings.Repeat(" ", max(gap, 1))+st.List.FilterCount.Render(count))
	}
	rows := c.rows[c.tab]
	h := c.listHeight()
	off := c.offset[c.tab]
	for i := off; i < len(rows) && i < off+h; i++ {
		content = append(content, c.renderRow(rows[i], i == c.cursor[c.tab], inner, frame))
	}
	title := TabTitles[c.tab]
	if mark := common.ScrollMark(off, len(rows), h); mark != "" {
		title += " · " + mark
	}
	return common.Box(c.boxStyle(), title, content, c.width, c.height)
}

func (c *Pane) boxStyle() common.BoxStyle {
	st := c.com.Styles
	return common.BoxStyle{Focused: c.focused, Border: st.Pane.Border, BorderFocused: st.Pane.BorderFocused, Title: st.Pane.Title, TitleFocused: st.Pane.TitleFocused}
}

func (c *Pane) renderRow(r row, selected bool, w, frame int) string {
	st := c.com.Styles
	switch r.kind {
	case rowHeader:
		name := render.SanitizeLine(r.server.name)
		count := ""
		if r.server.loaded {
			count = " " + countText(len(r.server.entries[c.tab]), r.server.failed[c.tab])
			if c.matches != nil {
				count = ""
			}
		}
		return common.Fit(st.List.Header.Render(name)+st.List.HeaderCount.Render(count), w)
	case rowNotice:
		text := "  " + r.text
		if selected && r.stop {
			text = "› " + r.text
		}
		if r.spin {
			text = "  " + common.SpinnerFrames[frame%len(common.SpinnerFrames)] + " " + r.text
		}
		if r.isErr {
			return common.Fit(st.List.NoticeError.Render(common.Truncate(text, w)), w)
		}
		return common.Fit(st.List.Notice.Render(common.Truncate(text, w)), w)
	}
	nameW := min(c.nameW[c.tab], max(w/2, 8))
	marker := "  "
	fresh := r.e.fresh
	switch {
	case selected:
		marker = "› "
	case r.e.changed != "":
		marker = st.Error.Render("!") + " "
	case fresh:
		marker = st.List.New.Render("+") + " "
	case r.e.off:
		marker = st.List.Desc.Render("-") + " "
	}
	name := common.Truncate(r.e.name, nameW)
	descW := w - 2 - nameW - 2
	desc, full := "", r.e.desc
	if r.e.off {
		full = "(off) " + full
	}
	if r.e.item.Kind == mcp.KindResource && c.com.Subs.Get(r.e.item.Server, r.e.item.URI) != nil {
		full = "(subscribed) " + full
	}
	if descW > 3 && full != "" {
		desc = common.Truncate(full, descW)
	}
	if selected {
		style := st.List.SelectedBlur
		if c.focused {
			style = st.List.Selected
		}
		plain := marker + common.Fit(name, nameW) + "  " + desc
		return style.Render(common.Fit(plain, w))
	}
	if r.e.off {
		line := marker + st.List.Desc.Render(common.Fit(name, nameW)) + "  " + st.List.Desc.Render(desc)
		return common.Fit(line, w)
	}
	nameCell := highlightPositions(name, c.matchPositions(r.e), st.List.Item, st.List.Match)
	line := marker + nameCell + strings.Repeat(" ", max(nameW-common.WidthOf(name), 0)) + "  " + st.List.Desc.Render(desc)
	return common.Fit(line, w)
}

// matchPositions are the byte positions in e's hay that the shown
// filter matched (valid until the next call), or nil without a filter:
// found for the rows drawn only, not kept for every match of a run.
func (c *Pane) matchPositions(e *Entry) []int {
	f := &c.filt
	if c.matches == nil || len(f.terms.runes) == 0 || !holdsEveryTerm(&e.idx, f.terms) {
		return nil
	}
	_, pos, ok := f.hl.matchEntry(f.hlPos[:0], &e.idx, f.terms)
	if !ok {
		return nil
	}
	f.hlPos = pos
	return pos
}

// CountText is "11 tools · 125 resources · ..." or "144 items". A kind
// whose listing failed counts as unknown: "? prompts (listing failed)",
// "144+? items".
func (sv *Server) CountText(long bool) string {
	total, unknown := 0, false
	var parts []string
	for i, k := range mcp.Kinds {
		n := len(sv.entries[i])
		total += n
		switch {
		case sv.failed[i]:
			unknown = true
			parts = append(parts, countText(n, true)+" "+kindNoun(k, 2)+" (listing failed)")
		case sv.listed[k]:
			parts = append(parts, fmt.Sprintf("%d %s", n, kindNoun(k, n)))
		}
	}
	if long {
		return strings.Join(parts, " · ")
	}
	return countText(total, unknown) + " items"
}

// kindNoun is the plural or singular noun of a kind.
func kindNoun(k mcp.Kind, n int) string {
	noun := map[mcp.Kind]string{mcp.KindTool: "tool", mcp.KindResource: "resource", mcp.KindTemplate: "template", mcp.KindPrompt: "prompt", mcp.KindSkill: "skill"}[k]
	if n != 1 {
		noun += "s"
	}
	return noun
}

// Name is the server's name.
func (sv *Server) Name() string { return sv.name }

// Status is the server's latest state.
func (sv *Server) Status() mcp.Status { return sv.status }

// Stale reports whether st is older than the state the pane has for its
// server (mcp.Status.Seq): a state event queued in the relay before the
// program started arrives after Init's snapshot, which is fresher, and
// applied, a queued "starting" would cancel the listing the snapshot's
// "ready" began and list the server again. A status the runtime did not
// stamp (Seq 0), or of a server the pane does not have, is not stale.
func (c *Pane) Stale(st mcp.Status) bool {
	sv, ok := c.byName[st.Name]
	return ok && st.Seq != 0 && st.Seq <= sv.status.Seq
}

// Loaded reports whether its catalog was listed; Loading whether a
// listing is in flight.
func (sv *Server) Loaded() bool  { return sv.loaded }
func (sv *Server) Loading() bool { return sv.loading }

// Listed is the server's listed items of a kind as they are now, in the
// runtime's listed catalog (no copies, which at 100,000 resources were
// 40 MB): a snapshot a command may read off the update path, since a
// published entry list is never changed (a new listing replaces it).
func (sv *Server) Listed(k mcp.Kind) iter.Seq[*mcp.CatalogItem] {
	entries := sv.entries[kindIndex(k)]
	return func(yield func(*mcp.CatalogItem) bool) {
		for _, e := range entries {
			if !yield(e.item) {
				return
			}
		}
	}
}

// Count is how many items of a kind the server lists.
func (sv *Server) Count(k mcp.Kind) int { return len(sv.entries[kindIndex(k)]) }

// Servers are every configured server, in display order.
func (c *Pane) Servers() []*Server { return c.servers }

// Query is the filter's text ("" when there is none).
func (c *Pane) Query() string { return c.query }

// Focused reports whether the list has the keys.
func (c *Pane) Focused() bool { return c.focused }

// Item is the catalog item the entry shows.
func (e *Entry) Item() mcp.CatalogItem { return *e.item }

// SelectID moves the cursor to the item with id on the current tab; it
// reports whether there is one.
func (c *Pane) SelectID(id string) bool {
	for i, r := range c.rows[c.tab] {
		if r.kind == rowItem && r.e.item.ID == id {
			c.cursor[c.tab] = i
			c.ensureVisible()
			return true
		}
	}
	return false
}

var _ common.Pane = (*Pane)(nil)
