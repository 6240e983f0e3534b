// Package viewer is the pane that shows what reads, tool calls and prompts
// return, and spill files: paged text with line numbers and highlighting,
// rich documents, hex dumps and images, with search, the server-side
// pattern filter, paging and resource subscriptions.
package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Pane shows what reads, tool calls and prompts return, and spill
// files: paged text with line numbers and highlighting, rich documents,
// hex dumps and images. Every fetch is a command whose result carries the
// viewer's request id; a result for anything but the latest request is
// dropped.
type Pane struct {
	com           *common.Common
	rt            Runtime
	width, height int
	focused       bool
	open          bool

	// The request in flight: its id, what it is for, when it started, and
	// how to cancel it.
	pending  common.RequestID
	loading  string
	started  time.Time
	req      Request
	cancel   context.CancelFunc
	doc      *document
	stack    []*document
	hexCells *hexCells

	// Search within the document (client side).
	searching bool
	search    common.TextInput
	query     string
	hits      []hit
	cur       int

	// The server-side pattern filter's input.
	patterning bool
	pattern    common.TextInput

	// appLoad is a load that opened an MCP App, until TakeAppLoad.
	appLoad *AppLoad

	// Wrapped-row layout of the document, by (doc id, width).
	layoutDoc common.RequestID
	layoutW   int
	rowStart  []int
}

// hit is one search match: line index, byte range in the line's plain text.
type hit struct{ line, start, end int }

// Runtime is what the viewer asks of the MCP side, from commands only:
// the reads, calls and prompt gets the model's meta-functions make, the
// catalog (to type a .call's key=value arguments). Subscriptions are the
// root's (common.Subscriptions): they outlive any document.
type Runtime interface {
	CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.PromptResult, error)
	Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error)
	// HoldsSpill reports whether path is a file howl spilled: the viewer
	// opens no other path a spill pointer names.
	HoldsSpill(path string) bool
}

// New builds the viewer, closed.
func New(com *common.Common, rt Runtime) *Pane {
	return &Pane{
		com:      com,
		rt:       rt,
		search:   common.NewTextInput(com, "/ ", searchPlaceholder),
		pattern:  common.NewTextInput(com, "pattern ", "RE2, e.g. ERROR|WARN (the server filters)"),
		hexCells: newHexCells(com.Styles),
	}
}

// SetSize sets the pane's outer size and asks for what the new size needs
// (hex blocks, an image render).
func (v *Pane) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.search.SetWidth(max(w-8, 4))
	v.pattern.SetWidth(max(w-12, 4))
	return v.ensure()
}

// Focus and Blur move the keyboard focus.
func (v *Pane) Focus() { v.focused = true }
func (v *Pane) Blur()  { v.focused = false }

// Open reports whether the viewer is showing (or loading) something.
func (v *Pane) Open() bool { return v.open }

// Busy reports whether a spinner should turn.
func (v *Pane) Busy() bool { return v.open && v.loading != "" }

// TextInputFocused reports whether the search or pattern input has the keys.
func (v *Pane) TextInputFocused() bool { return v.searching || v.patterning }

// Request starts a load. A page request keeps the current document on
// screen until the new page arrives; any other replaces it.
func (v *Pane) Request(req Request, what string) tea.Cmd {
	v.dropPending()
	id := v.com.NewID()
	v.com.Progress.Begin(viewerOwner(id))
	ctx, cancel := context.WithCancel(v.com.Ctx)
	// A tool that can run as a task does here: .tasks lists it.
	ctx = mcp.WithCallObserver(ctx, mcp.CallObserver{Owner: viewerOwner(id), PreferTask: req.kind == reqCall})
	v.pending, v.cancel, v.loading, v.open = id, cancel, what, true
	v.started, v.req = v.com.Now(), req
	var cmds []tea.Cmd
	if req.mode == openFresh {
		cmds = append(cmds, v.closeAll())
	}
	env := loadEnv{ctx: ctx, rt: v.rt, th: v.com.Theme, displayPath: v.com.DisplayPath, imgMode: v.com.Images}
	cmds = append(cmds, loadDocCmd(env, id, req))
	return tea.Batch(cmds...)
}

// Loading reports whether a request is in flight.
func (v *Pane) Loading() bool { return v.open && v.loading != "" && v.cancel != nil }

// CancelLoad cancels the request in flight: its context ends, so mcp-go
// sends the server notifications/cancelled, and the viewer says it was
// cancelled (over the document it was replacing, if any).
func (v *Pane) CancelLoad() tea.Cmd {
	if !v.Loading() {
		return nil
	}
	msg := fmt.Sprintf("cancelled %s after %s: howl told the server to stop (notifications/cancelled)", v.loading, v.com.Now().Sub(v.started).Round(100*time.Millisecond))
	v.dropPending()
	if v.doc != nil && v.req.mode != openFresh {
		return common.ReportInfo(msg)
	}
	cmd := closeDoc(v.doc)
	v.doc = errorDoc(v.com.NewID(), titleFor(v.req), errors.New(msg))
	v.doc.note = "cancelled"
	return tea.Batch(cmd, common.ReportInfo(msg))
}

// dropPending forgets the request in flight, cancelling it quietly.
func (v *Pane) dropPending() {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.com.Progress.Done(viewerOwner(v.pending))
	v.pending, v.loading = 0, ""
}

// Close closes the viewer, cancelling what is in flight and closing files.
func (v *Pane) Close() tea.Cmd {
	v.dropPending()
	v.open = false
	v.searching, v.patterning = false, false
	return v.closeAll()
}

// closeAll forgets every document, closing their files in a command.
func (v *Pane) closeAll() tea.Cmd {
	var cmds []tea.Cmd
	for _, d := range v.docs() {
		cmds = append(cmds, closeDoc(d))
	}
	v.stack, v.doc = nil, nil
	v.clearSearch()
	return tea.Batch(cmds...)
}

func closeDoc(d *document) tea.Cmd {
	if d == nil {
		return nil
	}
	var cmds []tea.Cmd
	if d.hex != nil && d.hex.file != nil {
		f := d.hex.file
		d.hex.file = nil
		cmds = append(cmds, closeFileCmd(f))
	}
	return tea.Batch(cmds...)
}

// HandleResult takes the answers to the viewer's requests: loads, hex
// blocks, image renders and subscriptions.
func (v *Pane) HandleResult(r common.Result) tea.Cmd {
	switch msg := r.Msg.(type) {
	case docLoadedMsg:
		return v.handleLoaded(r.ID, msg)
	case hexBlocksMsg:
		return v.handleHexBlocks(r.ID, msg)
	case imageRenderedMsg:
		return v.handleImage(r.ID, msg)
	case rereadDueMsg:
		return v.handleRereadDue(r.ID)
	}
	return nil
}

// handleLoaded takes a finished load; a stale one is dropped (and its file
// closed).
func (v *Pane) handleLoaded(id common.RequestID, msg docLoadedMsg) tea.Cmd {
	if id != v.pending || !v.open {
		return closeDoc(msg.doc)
	}
	v.dropPending() // it finished: this releases its context
	if msg.err != nil {
		if msg.req.refresh && v.doc != nil {
			v.doc.reread = v.com.Now() // a failed re-read keeps its gap too
		}
		if msg.req.mode != openFresh && v.doc != nil {
			return common.ReportError(msg.err)
		}
		cmd := closeDoc(v.doc)
		v.doc = errorDoc(id, titleFor(msg.req), msg.err)
		return cmd
	}
	var cmd tea.Cmd
	msg.doc.wrap = msg.doc.kind == docRich || msg.doc.kind == docError
	if msg.req.appURI != "" {
		v.appLoad = newAppLoad(msg.req, msg.doc)
	}
	if msg.req.mode == openPush && v.doc != nil {
		v.stack = append(v.stack, v.doc)
		v.carryOver(nil, msg.doc, false)
	} else {
		v.carryOver(v.doc, msg.doc, msg.req.refresh)
		cmd = closeDoc(v.doc)
	}
	v.doc = msg.doc
	v.layoutDoc = 0
	if msg.req.refresh {
		// The next re-read waits RereadGap from here.
		msg.doc.reread = v.com.Now()
		cmd = tea.Batch(cmd, v.Scroll(0)) // the kept position, clamped to the new length
	}
	if v.query != "" {
		v.findHits(true)
	}
	return tea.Batch(cmd, v.ensure(), v.rereadIfStale())
}

// handleHexBlocks stores blocks read for the current hex document.
func (v *Pane) handleHexBlocks(docID common.RequestID, msg hexBlocksMsg) tea.Cmd {
	d := v.doc
	if d == nil || d.id != docID || d.hex == nil {
		return nil
	}
	d.hex.store(msg.blocks)
	if msg.err != nil {
		d.hex.err = render.SanitizeLine(msg.err.Error())
		return common.ReportError(msg.err)
	}
	return v.ensure()
}

// handleImage stores an image render for its document. Only the latest
// is kept: a render can carry megabytes of image, and each size the pane
// passes through (a drag-resize is many) would otherwise keep one. A
// render that arrives late, for a size the pane has left, asks again for
// the size it has now.
func (v *Pane) handleImage(docID common.RequestID, msg imageRenderedMsg) tea.Cmd {
	for _, d := range v.docs() {
		if d.id == docID && d.img != nil {
			delete(d.img.pending, msg.size)
			d.img.renders = map[[2]int][]string{msg.size: msg.lines}
		}
	}
	return v.ensure()
}

// ensure asks for what the current view needs: hex blocks around the rows
// on screen, an image drawn at the pane's size.
func (v *Pane) ensure() tea.Cmd {
	d := v.doc
	if d == nil || v.width <= 2 || v.height <= 2 {
		return nil
	}
	switch {
	case d.hex != nil && d.hex.file != nil:
		bpr := hexBytesPerRow(v.innerW())
		h := int64(v.bodyH())
		top := int64(d.top)
		idx := d.hex.want(top-h, top+2*h, bpr)
		if len(idx) == 0 {
			return nil
		}
		return readBlocksCmd(d.id, d.hex.file, d.hex.size, idx)
	case d.img != nil:
		cols, rows := fitImage(d.img.w, d.img.h, v.innerW(), v.bodyH())
		size := [2]int{cols, rows}
		if cols == 0 || d.img.renders[size] != nil || d.img.pending[size] {
			return nil
		}
		clear(d.img.renders) // the size changed: the old render is not drawn again
		d.img.pending[size] = true
		return renderImageCmd(d.id, d.img.img, d.img.mode, cols, rows, v.com.Theme)
	}
	return nil
}

func (v *Pane) innerW() int { return max(v.width-2, 1) }

// maxNoteLines bounds the coverage note above the body; maxMetaLines each
// metadata line: they wrap, and only text past these is cut.
const (
	maxNoteLines = 4
	maxMetaLines = 2
)

// noteLines is the coverage note wrapped to the pane, at most maxNoteLines.
func (v *Pane) noteLines() []string {
	if v.doc == nil || v.doc.note == "" {
		return nil
	}
	return cutRows(wrapPlain(v.doc.note, v.innerW()-1), v.innerW()-1, maxNoteLines)
}

// metaLines are the metadata lines wrapped to the pane.
func (v *Pane) metaLines() []string {
	if v.doc == nil {
		return nil
	}
	var out []string
	for _, m := range v.doc.meta {
		out = append(out, wrapLabelled(m, v.innerW()-1, maxMetaLines)...)
	}
	return out
}

// headerH is how many lines the metadata and note take.
func (v *Pane) headerH() int {
	if v.doc == nil {
		return 0
	}
	return len(v.metaLines()) + len(v.noteLines()) + 1 // and a rule
}

// footerH is the input line, when one is open or a search is active.
func (v *Pane) footerH() int {
	if v.searching || v.patterning || v.query != "" {
		return 1
	}
	return 0
}

func (v *Pane) bodyH() int { return max(v.height-2-v.headerH()-v.footerH(), 1) }

// gutterW is the width of the line-number gutter.
func (v *Pane) gutterW() int {
	d := v.doc
	if d == nil || !d.gutter || len(d.lines) == 0 {
		return 0
	}
	maxNum := 0
	for i := len(d.lines) - 1; i >= 0 && i >= len(d.lines)-64; i-- {
		maxNum = max(maxNum, d.lines[i].num)
	}
	return len(fmt.Sprint(maxNum)) + 2
}

// textW is the width text is drawn in: after the gutter, or after a
// one-cell margin when there is none.
func (v *Pane) textW() int {
	if g := v.gutterW(); g > 0 {
		return max(v.innerW()-g, 1)
	}
	return max(v.innerW()-1, 1)
}

// wrapping reports whether the document's lines wrap (w toggles it).
func (v *Pane) wrapping() bool { return v.doc != nil && v.doc.wrap }

// rowCount is how many screen rows the document's body takes.
func (v *Pane) rowCount() int {
	d := v.doc
	switch {
	case d == nil:
		return 0
	case d.hex != nil:
		return int(d.hex.rows(hexBytesPerRow(v.innerW())))
	case d.img != nil:
		_, rows := fitImage(d.img.w, d.img.h, v.innerW(), v.bodyH())
		return rows
	case !v.wrapping():
		return len(d.lines)
	}
	v.layoutRows()
	return v.rowStart[len(v.rowStart)-1]
}

// layoutRows computes, for wrapped text, where each line's rows start.
func (v *Pane) layoutRows() {
	d := v.doc
	w := v.textW()
	if v.layoutDoc == d.id && v.layoutW == w && v.rowStart != nil {
		return
	}
	v.rowStart = make([]int, len(d.lines)+1)
	for i, l := range d.lines {
		v.rowStart[i+1] = v.rowStart[i] + wrapRows(l.plain, l.width, w)
	}
	v.layoutDoc, v.layoutW = d.id, w
}

// searchPlaceholder is what an empty search box says.
const searchPlaceholder = "search this page"

// HandleKey handles a key while the viewer has focus.
func (v *Pane) HandleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if v.searching {
		return v.handleSearchKey(msg), true
	}
	if v.patterning {
		return v.handlePatternKey(msg), true
	}
	k := v.com.Keys
	d := v.doc
	switch {
	case key.Matches(msg, k.Back):
		return v.back(), true
	case d == nil:
		return nil, false
	}
	if delta, ok := k.ScrollBy(msg, max(v.bodyH()-1, 1)); ok {
		return v.Scroll(delta), true
	}
	switch {
	case key.Matches(msg, k.Left):
		d.xoff = max(d.xoff-8, 0)
	case key.Matches(msg, k.Right):
		d.xoff += 8
	case key.Matches(msg, k.NextPage):
		return v.page(1), true
	case key.Matches(msg, k.PrevPage):
		return v.page(-1), true
	case key.Matches(msg, k.Search):
		// The box starts empty, so what is typed is the new search; the
		// last one shows as the placeholder, and enter repeats it.
		v.searching = true
		v.search.SetValue("")
		v.search.Placeholder = searchPlaceholder
		if v.query != "" {
			v.search.Placeholder = fmt.Sprintf("%s (enter searches it again)", v.query)
		}
		return v.search.Focus(), true
	case key.Matches(msg, k.NextMatch):
		v.stepHit(1)
	case key.Matches(msg, k.PrevMatch):
		v.stepHit(-1)
	case key.Matches(msg, k.Pattern):
		v.patterning = true
		if d.src != nil {
			v.pattern.SetValue(d.src.pattern)
		}
		v.pattern.CursorEnd()
		return v.pattern.Focus(), true
	case key.Matches(msg, k.ClearPattern):
		return v.applyPattern(""), true
	case key.Matches(msg, k.Wrap):
		d.wrap = !d.wrap
		d.top, d.xoff = 0, 0
	case key.Matches(msg, k.HexToggle):
		return v.toggleHex(), true
	case key.Matches(msg, k.OpenAttachment):
		return v.openAttachment(), true
	case key.Matches(msg, k.Copy):
		return v.copy(), true
	case key.Matches(msg, k.RawView):
		return v.toggleRaw(), true
	case key.Matches(msg, k.Save):
		return v.save(), true
	case key.Matches(msg, k.Subscribe):
		return v.toggleSubscribe(), true
	default:
		return nil, false
	}
	return nil, true
}

// back cancels the request in flight, then clears the search, then
// returns to the previous document, then closes the viewer.
func (v *Pane) back() tea.Cmd {
	switch {
	case v.Loading() && !v.req.refresh:
		return v.CancelLoad()
	case v.query != "":
		v.clearSearch()
		return nil
	case len(v.stack) > 0:
		v.dropPending() // a re-read of the document going away
		cmd := closeDoc(v.doc)
		v.doc = v.stack[len(v.stack)-1]
		v.stack = v.stack[:len(v.stack)-1]
		v.layoutDoc = 0
		// Changes while it was under the other document show now.
		return tea.Batch(cmd, v.ensure(), v.rereadIfStale())
	}
	return v.Close()
}

// Scroll moves the view by delta rows and fetches what comes into view.
func (v *Pane) Scroll(delta int) tea.Cmd {
	d := v.doc
	if d == nil {
		return nil
	}
	maxTop := max(v.rowCount()-v.bodyH(), 0)
	d.top = common.Clamp(d.top+clampDelta(delta), 0, maxTop)
	return v.ensure()
}

func clampDelta(d int) int { return common.Clamp(d, -1<<30, 1<<30) } // int on 32-bit targets too

// page fetches the next (dir 1) or previous (dir -1) page of a paged read.
func (v *Pane) page(dir int) tea.Cmd {
	d := v.doc
	if d == nil || d.src == nil {
		return common.ReportWarn("this document has no pages: only resource reads are paged")
	}
	src := d.src
	req := d.rereadReq()
	switch {
	case dir > 0 && src.next == nil:
		return common.ReportInfo("this is the last page")
	case dir > 0:
		req.offset = *src.next
		req.firstLine = 0
		if src.firstLine > 0 && src.pattern == "" {
			req.firstLine = src.firstLine + strings.Count(d.copyText, "\n")
		}
		req.history = append(append([]pageMark(nil), src.history...), pageMark{src.offset, src.firstLine, src.continued})
		req.continued = src.pattern == "" && !strings.HasSuffix(d.copyText, "\n")
	case len(src.history) == 0:
		return common.ReportInfo("this is the first page")
	default:
		prev := src.history[len(src.history)-1]
		req.offset, req.firstLine, req.continued = prev.offset, prev.firstLine, prev.continued
		req.history = src.history[:len(src.history)-1]
	}
	p, _ := pageNumbers(req.offset, src.total)
	return v.Request(req, fmt.Sprintf("page %d", p))
}

// applyPattern re-reads the document through the server-side filter (or
// without one, for "").
func (v *Pane) applyPattern(p string) tea.Cmd {
	d := v.doc
	if d == nil || d.src == nil {
		return common.ReportWarn("the pattern filter works on resource reads only")
	}
	if p == d.src.pattern {
		return nil
	}
	req := d.rereadReq()
	req.pattern = p
	what := "filtering"
	if p == "" {
		what = "clearing the filter"
	}
	return v.Request(req, what)
}

func (v *Pane) handlePatternKey(msg tea.KeyMsg) tea.Cmd {
	k := v.com.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		v.patterning = false
		v.pattern.Blur()
		return nil
	case key.Matches(msg, k.Accept):
		v.patterning = false
		v.pattern.Blur()
		return v.applyPattern(v.pattern.Value())
	}
	return v.pattern.Update(msg)
}

// toggleHex switches a spill file between its image and hex views.
func (v *Pane) toggleHex() tea.Cmd {
	d := v.doc
	if d == nil || d.spill == nil {
		return common.ReportWarn("x switches between the image and hex views of a spilled file")
	}
	if d.img == nil && !looksLikeImageDoc(d) {
		return common.ReportInfo("this file is not an image howl can draw")
	}
	return v.Request(Request{kind: reqSpill, spill: d.spill, asHex: d.img != nil, title: d.title, mode: openReplace}, "opening")
}

func looksLikeImageDoc(d *document) bool {
	return d.hex != nil && d.spill != nil && strings.HasPrefix(strings.ToLower(d.spill.MimeType), "image/")
}

// openAttachment opens the document's one Attachment. With several, the
// root asks which (it owns the dialogs) before the viewer sees the key.
func (v *Pane) openAttachment() tea.Cmd {
	d := v.doc
	if d == nil || len(d.atts) == 0 {
		return common.ReportInfo("nothing to open here: o opens the files and links of a tool result")
	}
	return v.OpenAttachment(d.atts[0])
}

// OpenAttachment opens a file or link from the current document, keeping
// the document to go back to.
func (v *Pane) OpenAttachment(a Attachment) tea.Cmd {
	if a.spill != nil {
		return v.Request(Request{kind: reqSpill, spill: a.spill, title: a.label, mode: openPush}, "opening")
	}
	return v.Request(Request{kind: reqRead, server: a.server, uri: a.uri, mode: openPush}, "reading")
}

// copy copies the spill path, or the document's text, with OSC 52.
func (v *Pane) copy() tea.Cmd {
	d := v.doc
	if d == nil {
		return nil
	}
	text, what := d.copyText, "text"
	if d.spill != nil {
		text, what = d.spill.Path, "path"
	}
	if text == "" {
		return common.ReportInfo("nothing to copy")
	}
	return common.CopyCmd(v.com.Clipboard, text, what)
}

// Render draws the pane at its size.
func (v *Pane) Render(frame int) []string {
	st := v.com.Styles
	bs := common.BoxStyle{Focused: v.focused, Border: st.Pane.Border, BorderFocused: st.Pane.BorderFocused, Title: st.Pane.Title, TitleFocused: st.Pane.TitleFocused}
	d := v.doc
	w := v.innerW()
	spin := ""
	if v.loading != "" {
		spin = common.SpinnerFrames[frame%len(common.SpinnerFrames)] + " " + v.loading + "…"
		if p, ok := v.com.Progress.Get(viewerOwner(v.pending)); ok {
			spin = v.loading + " " + common.ProgressText(p, frame)
		}
		if !v.req.refresh {
			spin += " · esc cancels"
		}
	}
	if d == nil {
		lines := []string{"", " " + st.Muted.Render(spin)}
		return common.Box(bs, "Viewer", lines, v.width, v.height)
	}
	var lines []string
	for _, m := range v.metaLines() {
		lines = append(lines, " "+st.Viewer.Meta.Render(m))
	}
	style := st.Viewer.Note
	if d.kind == docError {
		style = st.Viewer.Error
	}
	for _, l := range v.noteLines() {
		lines = append(lines, " "+style.Render(l))
	}
	rule := strings.Repeat("─", w)
	if spin != "" {
		rule = common.Fit(" "+st.Accent.Render(spin)+" "+st.Pane.Border.Render(strings.Repeat("─", w)), w)
	} else {
		rule = st.Pane.Border.Render(rule)
	}
	lines = append(lines, rule)
	lines = append(lines, v.renderBody()...)
	lines = common.PadLines(lines, w, v.height-2-v.footerH())
	if f := v.renderFooter(); f != "" {
		lines = append(lines, f)
	}
	title := d.title
	if live := v.subTitle(d); live != "" {
		title += " · " + live
	}
	if mark := common.ScrollMark(d.top, v.rowCount(), v.bodyH()); mark != "" {
		title += " · " + mark
	}
	return common.Box(bs, title, lines, v.width, v.height)
}

func (v *Pane) renderFooter() string {
	st := v.com.Styles
	switch {
	case v.searching:
		return v.search.View()
	case v.patterning:
		return v.pattern.View()
	case v.query != "":
		n := fmt.Sprintf("no match for %q on this page", v.query)
		if len(v.hits) > 0 {
			of := fmt.Sprint(len(v.hits))
			if len(v.hits) >= MaxSearchHits {
				of = fmt.Sprintf("the first %d (MaxSearchHits)", MaxSearchHits)
			}
			n = fmt.Sprintf("%q: match %d of %s · >/< next/previous · esc clears", v.query, v.cur+1, of)
		}
		return " " + st.Muted.Render(n)
	}
	return ""
}

// renderBody draws the rows of the body on screen.
func (v *Pane) renderBody() []string {
	d := v.doc
	h := v.bodyH()
	switch {
	case d.hex != nil:
		return v.renderHex(h)
	case d.img != nil:
		return v.renderImage(h)
	}
	return v.renderText(h)
}

func (v *Pane) renderHex(h int) []string {
	d := v.doc
	bpr := hexBytesPerRow(v.innerW())
	digits := offsetDigits(d.hex.size)
	out := make([]string, 0, h)
	total := d.hex.rows(bpr)
	for r := int64(d.top); r < total && len(out) < h; r++ {
		data, ok := d.hex.row(r, bpr)
		out = append(out, v.hexCells.renderRow(r*int64(bpr), data, ok, bpr, digits))
	}
	if total == 0 {
		out = append(out, " "+v.com.Styles.Muted.Render("(empty file)"))
	}
	return out
}

func (v *Pane) renderImage(h int) []string {
	d := v.doc
	cols, rows := fitImage(d.img.w, d.img.h, v.innerW(), v.bodyH())
	lines := d.img.renders[[2]int{cols, rows}]
	if lines == nil {
		return []string{" " + v.com.Styles.Muted.Render("drawing…")}
	}
	pad := strings.Repeat(" ", max((v.innerW()-cols)/2, 0))
	out := make([]string, 0, h)
	for i := d.top; i < len(lines) && len(out) < h; i++ {
		out = append(out, pad+lines[i])
	}
	return out
}

func (v *Pane) renderText(h int) []string {
	d := v.doc
	st := v.com.Styles
	gw := v.gutterW()
	tw := v.textW()
	out := make([]string, 0, h)
	line, sub := d.top, 0
	if v.wrapping() {
		line = v.lineAtRow(d.top)
		sub = d.top - v.rowStart[line]
	}
	hitsByLine := v.visibleHits(line, line+h) // a line is at least a row
	for ; line < len(d.lines) && len(out) < h; line++ {
		l := d.lines[line]
		text := l.styled
		if hs := hitsByLine[line]; len(hs) > 0 {
			text = v.markHits(l.plain, hs)
		}
		rows, starts := 1, []int{0}
		if v.wrapping() {
			starts = wrapStarts(l.plain, l.width, tw)
			rows = len(starts)
		}
		for r := sub; r < rows && len(out) < h; r++ {
			g := " "
			if gw > 0 {
				g = strings.Repeat(" ", gw)
				if r == 0 && l.num > 0 {
					num := fmt.Sprintf("%*d", gw-2, l.num)
					mark := " "
					style := st.Viewer.Gutter
					switch l.mark {
					case ':':
						mark, style = ":", st.Viewer.GutterMatch
					case '~':
						mark = "…"
					}
					g = style.Render(num+mark) + " "
				}
			}
			if v.wrapping() {
				end := l.width
				if r+1 < len(starts) {
					end = starts[r+1]
				}
				out = append(out, g+common.Fit(common.CutCells(text, starts[r], end), tw))
			} else {
				out = append(out, g+common.CutFit(text, d.xoff, tw))
			}
		}
		sub = 0
	}
	return out
}

// viewerOwner tags the viewer's MCP requests (mcp.CallObserver.Owner), so
// their progress reaches it; the model's calls carry llm.CallOwner(callID).
func viewerOwner(id common.RequestID) string { return "viewer:" + strconv.FormatUint(uint64(id), 10) }
