package chat

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxStreamingBlockBytes bounds the Markdown block still being written that
// a streaming answer renders through glamour on each frame. glamour costs
// about 0.4 µs a byte (8 KiB: ~4 ms, a quarter of a frame on a loaded
// machine); a paragraph or a code block of an ordinary answer is well
// under it. A longer block is drawn as sanitized, wrapped plain text,
// extended line by line, and stays plain when it ends (a paragraph
// break): the answer renders as Markdown whole when it ends, off the
// update path (mdasync.go).
const MaxStreamingBlockBytes = 8 << 10

// thinkingBytes is how much of the model's reasoning the one-line
// "thinking:" summary looks at: a line of the widest screen, not the
// whole reasoning on every frame.
const thinkingBytes = 4 << 10

// liveAnswer draws a streaming answer at a cost bounded per frame whatever
// its length: the text is sanitized as it arrives (a SafeWriter holds an
// escape sequence or character cut at the end until it completes), tabs
// expanded, and scanned for block boundaries once; each finished block is
// rendered through glamour once and its lines kept; only the block still
// being written is drawn again, through glamour up to
// MaxStreamingBlockBytes, past it as plain text whose finished lines are
// kept. The lines live in one slice the item's cache shares, so a frame
// appends the tail's lines, not the answer's. When the answer ends the
// item renders whole (renderItem), which is what the transcript keeps.
type liveAnswer struct {
	// raw is the item's text as fed so far.
	raw   string
	sw    *render.SafeWriter
	clean common.TabExpander
	scan  cutScanner
	// cuts end the finished blocks: block i is clean[cuts[i-1]:cuts[i]].
	cuts []int

	// The drawing at width w: out[:headN] is the item's head, then come
	// the lines of the first drawn finished blocks, up to out[:fixed];
	// then the tail's.
	w, headN, drawn, fixed int
	out                    []string
	// plain: the tail is over MaxStreamingBlockBytes and drawn as text;
	// out[:plainN] holds its finished lines and plainFrom is where its
	// unfinished line starts in clean.
	plain             bool
	plainN, plainFrom int
	// note says why the tail is plain (noteText), drawn at width noteW.
	note     []string
	noteW    int
	noteText string
}

// streamingLines are a streaming assistant item's lines at width w under
// its head lines.
func (t *transcript) streamingLines(it *chatItem, head []string, w int) []string {
	la := it.live
	if la == nil || !strings.HasPrefix(it.text, la.raw) {
		la = &liveAnswer{}
		la.sw = render.NewSafeWriter(&la.clean)
		it.live = la
	}
	la.feed(it.text)
	if la.w != w || la.headN != len(head) || la.out == nil {
		la.w, la.headN, la.drawn, la.plain = w, len(head), 0, false
		la.out = append(make([]string, 0, len(head)+64), head...)
		la.fixed = len(la.out)
	} else {
		copy(la.out, head) // the thinking line changes as reasoning streams
	}
	clean := la.clean.String()
	for la.drawn < len(la.cuts) {
		start := 0
		if la.drawn > 0 {
			start = la.cuts[la.drawn-1]
		}
		// A finished block goes through glamour within the pass's
		// InlineMarkdownBytes, and only when it is under
		// MaxStreamingBlockBytes: a long block that just ended, or every
		// block of a long answer after a resize, stays plain text until
		// the answer ends and renders whole (off the update path when
		// long, see mdasync.go).
		block := clean[start:la.cuts[la.drawn]]
		var lines []string
		if n := len(block); n <= MaxStreamingBlockBytes && n <= t.inlineLeft {
			t.inlineLeft -= n
			lines = t.markdown(block, w)
		} else {
			lines = plainBlock(block, w)
		}
		la.out = la.appendBlock(la.out[:la.fixed], lines)
		la.fixed, la.plain = len(la.out), false
		la.drawn++
	}
	start := 0
	if n := len(la.cuts); n > 0 {
		start = la.cuts[n-1]
	}
	for start < len(clean) && clean[start] == '\n' {
		start++
	}
	tail := clean[start:]
	switch {
	case len(tail) <= MaxStreamingBlockBytes:
		la.out = la.appendBlock(la.out[:la.fixed], t.markdown(tail, w))
	default:
		if !la.plain {
			la.plain, la.plainFrom = true, start
			la.out = la.out[:la.fixed]
			if len(la.out) > la.headN {
				la.out = append(la.out, "")
			}
			la.plainN = len(la.out)
		}
		done, last := wrapPlain(clean[la.plainFrom:], w-2)
		la.out = la.out[:la.plainN]
		for _, l := range done {
			la.out = append(la.out, "  "+l)
		}
		la.plainN, la.plainFrom = len(la.out), la.plainFrom+last
		if l := strings.TrimRight(clean[la.plainFrom:], " "); l != "" {
			la.out = append(la.out, "  "+l)
		}
		note := fmt.Sprintf("this block is over %d KiB (MaxStreamingBlockBytes), so it shows as plain text until the answer ends; then it renders as Markdown", MaxStreamingBlockBytes>>10)
		if !it.streaming { // the answer ended: its Markdown is on its way
			note = fmt.Sprintf("this answer is over %d KiB (AsyncMarkdownBytes), so it shows as plain text while its Markdown renders", AsyncMarkdownBytes>>10)
		}
		if la.noteW != w || la.noteText != note {
			la.note, la.noteW, la.noteText = t.appendNote(nil, note, w), w, note
		}
		la.out = append(la.out, la.note...)
	}
	if len(la.out) == la.headN {
		la.out = append(la.out, "  "+t.com.Styles.Muted.Render("…"))
	}
	return la.out
}

// appendNote appends note, a line of howl's own about why text shows as
// it does, wrapped to w, muted and indented, to out.
func (t *transcript) appendNote(out []string, note string, w int) []string {
	for _, l := range common.WrapText(note, w-2) {
		out = append(out, "  "+t.com.Styles.Muted.Render(l))
	}
	return out
}

// plainBlock is a finished block as sanitized text wrapped to w, indented
// as a rendered block is: milliseconds a MiB, against glamour's hundreds.
func plainBlock(block string, w int) []string {
	return appendPlain(nil, strings.Trim(block, "\n"), w)
}

// appendPlain appends clean, sanitized text, wrapped to w and indented as
// the transcript's text is, to out.
func appendPlain(out []string, clean string, w int) []string {
	done, last := wrapPlain(clean, w-2)
	out = slices.Grow(out, len(done)+1)
	for _, l := range done {
		out = append(out, "  "+l)
	}
	if l := strings.TrimRight(clean[last:], " "); l != "" {
		out = append(out, "  "+l)
	}
	return out
}

// appendBlock appends a block's lines to out, a blank line before them
// when something of the answer is drawn already.
func (la *liveAnswer) appendBlock(out, lines []string) []string {
	if len(lines) > 0 && len(out) > la.headN {
		out = append(out, "")
	}
	return append(out, lines...)
}

// markdown renders src at width w, tabs expanded in the lines.
func (t *transcript) markdown(src string, w int) []string {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	t.mdBytes += len(src)
	return expandLineTabs(t.md.Render(src, w))
}

// expandLineTabs expands any tab in lines: a tab would move the terminal's
// cursor past cells the frame thinks it drew.
func expandLineTabs(lines []string) []string {
	for i, l := range lines {
		if strings.Contains(l, "\t") {
			lines[i] = strings.ReplaceAll(l, "\t", "    ")
		}
	}
	return lines
}

// feed sanitizes what text adds to what was fed and scans it for block
// boundaries: the cost of the bytes that arrived.
func (la *liveAnswer) feed(text string) {
	if len(text) > len(la.raw) {
		la.sw.Write([]byte(text[len(la.raw):]))
	}
	la.raw = text
	la.cuts = la.scan.scan(la.clean.String(), la.cuts)
}

// cutScanner finds, line by line as they complete, the offsets where a
// Markdown text splits into blocks that render alone as they render
// together: a blank line outside a code fence followed by a block that
// cannot continue the previous one (not a list item, an indented line or
// a quote). Each cut ends a block before its blank line.
type cutScanner struct {
	// pos is where the first line not yet scanned starts; lines counts
	// those scanned; text[pos:seen] has no newline.
	pos, seen, lines int
	inFence          bool
	// Of the last line scanned: blank and where it starts; whether it
	// and the one before may be continued after a blank line.
	blank         bool
	blankAt       int
	cont, contBef bool
}

// scan reads the complete lines of text past s.pos and appends the cuts
// they reveal. A cut needs the line after the blank one whole: "-" may
// still grow into "- item".
func (s *cutScanner) scan(text string, cuts []int) []int {
	for {
		from := max(s.pos, s.seen)
		nl := strings.IndexByte(text[from:], '\n')
		if nl < 0 {
			s.seen = len(text)
			return cuts
		}
		nl += from - s.pos
		l := text[s.pos : s.pos+nl]
		if s.lines >= 2 && s.blank && !s.inFence && startsBlock(l) && !s.contBef {
			cuts = append(cuts, s.blankAt)
		}
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			s.inFence = !s.inFence
		}
		s.blank, s.blankAt = l == "", s.pos
		s.contBef, s.cont = s.cont, continues(l)
		s.lines++
		s.pos += nl + 1
	}
}

// startsBlock reports whether a line starts a block that cannot belong to
// the block before it.
func startsBlock(l string) bool {
	l = strings.TrimRight(l, "\n")
	if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '>' || l[0] == '|' {
		return false
	}
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") {
		return false
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return false
	}
	return !strings.HasPrefix(l, "[") // reference definitions bind to earlier text
}

// continues reports whether a block's last line may be continued by what
// follows a blank line (a list item or a quote).
func continues(l string) bool {
	l = strings.TrimLeft(strings.TrimRight(l, "\n"), " ")
	return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, ">")
}

// wrapPlain word-wraps sanitized text without tabs to w cells: the lines
// that are finished, and the offset where the last one starts. More text
// can change only that last line, so wrapping on from there gives what
// wrapping all of it would: a stream is wrapped at the cost of what
// arrived. Spaces where a line breaks are dropped; a word wider than w is
// broken across lines.
func wrapPlain(s string, w int) (done []string, last int) {
	w = max(w, 1)
	ls, pos, cw := 0, 0, 0 // the line's start, how far it is laid out, its width
	word := false          // the line holds a word
	for pos < len(s) {
		if s[pos] == '\n' {
			done = append(done, strings.TrimRight(s[ls:pos], " "))
			pos++
			ls, cw, word = pos, 0, false
			continue
		}
		j := pos
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && s[k] != ' ' && s[k] != '\n' {
			k++
		}
		if j == k { // spaces before a newline or the end
			cw += j - pos
			pos = j
			continue
		}
		if room := w - cw - (j - pos); room > 0 {
			if n, ww := fitCells(s[j:k], room); n == k-j {
				cw += j - pos + ww
				pos, word = k, true
				continue
			}
		}
		if word {
			done = append(done, strings.TrimRight(s[ls:pos], " "))
			ls, pos, cw, word = j, j, 0, false
			continue
		}
		// A word wider than the line: as much as fits, at least a character.
		n, _ := fitCells(s[ls:k], w)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s[ls:])
		}
		done = append(done, s[ls:ls+n])
		ls, pos, cw = ls+n, ls+n, 0
	}
	return done, ls
}

// fitCells is how many bytes of s fit in cells, whole characters as the
// frame measures them, and their width; it reads no further than that.
func fitCells(s string, cells int) (n, width int) {
	for n < len(s) {
		size, cw := 1, 1
		if s[n] >= utf8.RuneSelf || n+1 < len(s) && s[n+1] >= utf8.RuneSelf {
			var g string
			g, cw = ansi.FirstGraphemeCluster(s[n:], ansi.WcWidth)
			size = len(g)
		}
		if width+cw > cells {
			break
		}
		n, width = n+size, width+cw
	}
	return n, width
}
