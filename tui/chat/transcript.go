package chat

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// itemKind is what a transcript item shows.
type itemKind int

const (
	itemUser itemKind = iota
	itemAssistant
	itemTool
	itemNotice
	itemError
	itemTable
)

// maxResultLines bounds an expanded tool block's result preview; enter
// opens the whole result in the viewer.
const maxResultLines = 12

// chatItem is one entry of the transcript. Its rendered lines are cached by
// (width, version): any change bumps version, so a finished item renders
// once per width however long the transcript grows.
type chatItem struct {
	kind itemKind
	// text is the user's text, the assistant's Markdown or a notice.
	text string
	// model names the assistant's model.
	model string
	// reasoning is the assistant's streamed reasoning, shown as one line.
	reasoning string
	// streaming: the assistant's text is still arriving.
	streaming bool

	// Tool calls.
	callID, name, args string
	running, isError   bool
	summary            string
	decision           string // who allowed or denied the call
	// progress is the running call's latest progress (nil: none came).
	progress *mcp.Progress
	// attachment: a resource an @-mention attached to the user's message.
	attachment bool
	bytes      int
	dur        time.Duration
	result     string
	expanded   bool

	// rows are a table whose last column wraps at the width (.help);
	// text then holds notes under it, each wrapped.
	rows [][]string

	// live draws the answer while it streams, and a long one after, until
	// md, its Markdown rendered off the draw path (mdasync.go), arrives.
	live *liveAnswer
	md   *mdLines
	// pending: the answer is drawn without its Markdown, which a render
	// off the draw path brings (over AsyncMarkdownBytes, or past a pass's
	// InlineMarkdownBytes).
	pending bool
	// textBuf and reasoningBuf grow text and reasoning while they stream
	// (appendTo).
	textBuf, reasoningBuf *strings.Builder

	version   int
	cacheW    int
	cacheV    int
	cache     []string
	hasCached bool
}

// touch marks the item changed.
func (it *chatItem) touch() { it.version++ }

// appendTo appends s to *dst through *b, so a streaming answer grows in
// amortized constant time per token: *dst += s copies the whole answer on
// every token, quadratic in its length. *dst stays a plain string, read as
// before (b.String() shares b's bytes, which b never changes); b adopts
// *dst when something else set it (the comparison is free when they are
// the same string).
func appendTo(b **strings.Builder, dst *string, s string) {
	if *b == nil {
		*b = &strings.Builder{}
	}
	if (*b).String() != *dst {
		(*b).Reset()
		(*b).WriteString(*dst)
	}
	(*b).WriteString(s)
	*dst = (*b).String()
}

// settle ends a tool block with how its call went: live from the call's
// finished event, and the same from a stored result when a session is
// reopened.
func (it *chatItem) settle(isError, denied bool, summary string, bytes int, dur time.Duration, decision string) {
	it.running, it.isError, it.summary, it.bytes, it.dur = false, isError, summary, bytes, dur
	it.progress = nil
	if decision != "" {
		it.decision = decision
	}
	if denied {
		it.summary = "denied: " + it.summary
	}
	it.touch()
}

// transcript is the chat's items with their render caches.
type transcript struct {
	com *common.Common
	md  *common.Markdown
	// asyncMD renders long answers on the goroutine of the one job in
	// flight (Pane.mdJob): glamour's renderers keep state while they
	// render, so md, Update's and View's, is never shared with it.
	asyncMD *common.Markdown
	items   []*chatItem
	// frame is the spinner frame running blocks draw.
	frame int
	// renders counts the items drawn anew (cache misses), so a test can
	// pin that a streamed token redraws the tail and nothing else;
	// mdBytes counts the bytes given to glamour, so one can pin what a
	// frame of a streaming answer renders.
	renders, mdBytes int
	// inlineLeft is what the pass over the transcript under way (window,
	// itemAt, itemTop) may still give glamour for finished answers.
	inlineLeft int
}

// add appends an item.
func (t *transcript) add(it *chatItem) *chatItem {
	t.items = append(t.items, it)
	return it
}

// itemLines is one item's lines at width w, cached.
func (t *transcript) itemLines(it *chatItem, w int) []string {
	if it.hasCached && it.cacheW == w && it.cacheV == it.version {
		return it.cache
	}
	t.renders++
	it.cache = t.renderItem(it, w)
	if !it.streaming {
		// A streaming answer expands the tabs of the lines it adds, not
		// of all of them on every frame.
		expandLineTabs(it.cache)
	}
	it.cacheW, it.cacheV, it.hasCached = w, it.version, true
	return it.cache
}

// renderItem draws one item at width w, uncached.
func (t *transcript) renderItem(it *chatItem, w int) []string {
	st := t.com.Styles
	indent := func(lines []string, pre string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = pre + l
		}
		return out
	}
	switch it.kind {
	case itemUser:
		out := []string{st.Accent.Bold(true).Render("› you")}
		return append(out, indent(common.WrapText(common.ExpandTabs(render.Sanitize(it.text)), w-2), "  ")...)
	case itemAssistant:
		head := "● " + render.SanitizeLine(common.OrDefault(it.model, "assistant"))
		out := []string{st.Success.Bold(true).Render(head)}
		if it.reasoning != "" {
			r := it.reasoning[:render.RuneBoundary(it.reasoning, thinkingBytes)]
			r = strings.Join(strings.Fields(render.SanitizeLine(r)), " ")
			out = append(out, "  "+st.Muted.Italic(true).Render(common.Truncate("thinking: "+r, w-2)))
		}
		if it.streaming {
			return t.streamingLines(it, out, w)
		}
		if lines, ok := it.rendered(w); ok {
			it.pending = false
			return append(out, lines...)
		}
		if asyncMarkdown(it) || len(it.text) > t.inlineLeft {
			it.pending = true
			return t.pendingLines(it, out, w)
		}
		t.inlineLeft -= len(it.text)
		it.live, it.pending = nil, false
		return append(out, t.markdown(common.ExpandTabs(render.Sanitize(it.text)), w)...)
	case itemTool:
		return t.renderTool(it, w)
	case itemTable:
		if it.rows != nil {
			return renderRows(it.rows, it.text, w)
		}
		var out []string
		for _, l := range strings.Split(it.text, "\n") {
			out = append(out, "  "+common.Truncate(render.SanitizeLine(l), w-2))
		}
		return out
	case itemError:
		var out []string
		for _, l := range common.WrapText("✗ "+render.Sanitize(it.text), w-2) {
			out = append(out, "  "+st.Error.Render(l))
		}
		return out
	default:
		var out []string
		for _, l := range common.WrapText(common.ExpandTabs(render.Sanitize(it.text)), w-2) {
			out = append(out, "  "+st.Muted.Render(l))
		}
		return out
	}
}

// renderRows draws a table at width w, indented two cells: the first
// column padded to the widest cell (at most two fifths of the width), the
// second wrapped beside it with a hanging indent. A row whose first cell is
// wider than that column has it on lines of its own, the second below it.
// The notes follow, each wrapped: nothing is cut.
func renderRows(rows [][]string, notes string, w int) []string {
	w -= 2
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, common.WidthOf(render.SanitizeLine(r[0])))
	}
	nameW = min(nameW, max(w*2/5, 12))
	descW := max(w-nameW-2, 8)
	pad := strings.Repeat(" ", nameW+2)
	var out []string
	for _, r := range rows {
		name := render.SanitizeLine(r[0])
		desc := ""
		if len(r) > 1 {
			desc = render.SanitizeLine(r[1])
		}
		lines := common.WrapText(desc, descW)
		if common.WidthOf(name) > nameW {
			// Its own lines, wrapped whole words at a time: nothing is cut.
			for _, l := range common.WrapWords(name, w) {
				out = append(out, strings.TrimRight("  "+l, " "))
			}
			name = ""
		}
		for i, l := range lines {
			lead := pad
			if i == 0 && name != "" {
				lead = common.Fit(name, nameW) + "  "
			}
			out = append(out, strings.TrimRight("  "+lead+l, " "))
		}
	}
	if notes != "" {
		for _, n := range strings.Split(notes, "\n") {
			for _, l := range common.WrapText(render.SanitizeLine(n), w) {
				out = append(out, strings.TrimRight("  "+l, " "))
			}
		}
	}
	return out
}

// renderTool draws a tool call block: one line collapsed (name, short
// arguments, outcome, size and duration); expanded, the arguments and the
// start of the result.
func (t *transcript) renderTool(it *chatItem, w int) []string {
	st := t.com.Styles
	mark := "▸"
	if it.expanded {
		mark = "▾"
	}
	var outcome string
	switch {
	case it.running && it.progress != nil:
		outcome = st.Accent.Render(common.ProgressText(*it.progress, t.frame))
	case it.running:
		outcome = st.Muted.Render("running…")
	case it.isError:
		outcome = st.Error.Render("✗ " + render.SanitizeLine(it.summary))
	default:
		outcome = st.Muted.Render("→ " + render.SanitizeLine(it.summary))
	}
	size := ""
	if !it.running {
		size = st.Subtle.Render(" [" + llm.FormatCost(it.bytes, it.dur) + "]")
	}
	// Who decided comes before the arguments, so a narrow screen keeps it.
	decision := ""
	if it.decision != "" {
		decision = st.Muted.Render("["+render.SanitizeLine(it.decision)+"]") + " "
	}
	icon := "⚙ "
	if it.attachment {
		icon = "📎 "
	}
	// A name or arguments of megabytes are cut before they are sanitized:
	// a running block is drawn again on every spinner tick.
	name := it.name[:render.RuneBoundary(it.name, 4*w)]
	head := "  " + mark + " " + st.Detail.Kind.Render(icon+render.SanitizeLine(name)) + " " + decision + st.Subtle.Render(render.SanitizeLine(shortText(it.args, 60))) + " " + outcome + size
	out := []string{common.Truncate(head, w)}
	if !it.expanded {
		return out
	}
	if it.decision != "" {
		out = append(out, "    "+st.Detail.Label.Render("decision")+" "+render.SanitizeLine(it.decision))
	}
	out = append(out, "    "+st.Detail.Label.Render("arguments"))
	for _, l := range common.WrapText(render.Sanitize(PrettyArgs(it.args)), w-6) {
		out = append(out, "      "+l)
	}
	out = append(out, "    "+st.Detail.Label.Render("result"))
	switch {
	case it.running:
		out = append(out, "      "+st.Muted.Render("running…"))
	case it.result == "":
		out = append(out, "      "+st.Muted.Render("(the result shows when the turn ends)"))
	default:
		lines := strings.Split(render.Sanitize(PrettyArgs(it.result)), "\n")
		more := len(lines) - maxResultLines
		if more > 0 {
			lines = lines[:maxResultLines]
		}
		for _, l := range lines {
			out = append(out, "      "+common.Truncate(common.ExpandTabs(l), w-6))
		}
		if more > 0 {
			out = append(out, "      "+st.Muted.Render(fmt.Sprintf("… %d more lines: enter opens the result", more)))
		}
	}
	return out
}

// PrettyArgs indents JSON; anything else is returned as it is.
func PrettyArgs(s string) string {
	// Indented as written, not decoded and encoded again: a number past
	// float64's precision (9007199254740993) or a repeated key is shown
	// exactly as the call sends it.
	// A model's arguments nested thousands deep are shown on one line:
	// indented they would be thousands of times their size.
	var b bytes.Buffer
	if _, err := render.IndentJSON(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

// shortText is s on one line, cut to n bytes at a rune boundary.
func shortText(s string, n int) string {
	// Only the start can show: white space folded, n bytes take at most
	// the first 4n (a cut there still says "…").
	if cut := render.RuneBoundary(s, 4*n); cut < len(s) {
		s = s[:cut] + " …"
	}
	return render.Ellipsize(strings.Join(strings.Fields(s), " "), n)
}

// window renders the lines [top, top+h) of the transcript at width w and
// returns them with the total line count. Items outside the window still
// come from their caches (their heights are needed), so appending to the
// tail of a long transcript costs the tail's render, not the transcript's.
func (t *transcript) window(w, top, h int) ([]string, int) {
	t.inlineLeft = InlineMarkdownBytes
	total := 0
	// h may be "everything" (1<<30): preallocate no more than a screen.
	out := make([]string, 0, min(h, 512))
	for i, it := range t.items {
		lines := t.itemLines(it, w)
		if i > 0 {
			if total >= top && total < top+h {
				out = append(out, "")
			}
			total++
		}
		if total+len(lines) > top && total < top+h {
			from := max(top-total, 0)
			to := min(len(lines), top+h-total)
			out = append(out, lines[from:to]...)
		}
		total += len(lines)
	}
	return out, total
}

// itemAt is the index of the item drawn on transcript line y, or -1.
func (t *transcript) itemAt(w, y int) int {
	t.inlineLeft = InlineMarkdownBytes
	total := 0
	for i, it := range t.items {
		if i > 0 {
			total++
		}
		n := len(t.itemLines(it, w))
		if y >= total && y < total+n {
			return i
		}
		total += n
	}
	return -1
}

// itemTop is the first transcript line of item i.
func (t *transcript) itemTop(w, i int) int {
	t.inlineLeft = InlineMarkdownBytes
	total := 0
	for j, it := range t.items[:i] {
		if j > 0 {
			total++
		}
		total += len(t.itemLines(it, w))
	}
	if i > 0 {
		total++
	}
	return total
}
