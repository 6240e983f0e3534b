package chat

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// longChat is a chat streaming a 1 MiB answer with no paragraph break
// (and no newline at all), drawn once.
func longChat(tb testing.TB) *Pane {
	tb.Helper()
	m := benchChat(&testing.B{}, 10)
	feed(m, llm.TextDelta{Text: strings.Repeat("Some prose, repeated. ", (1<<20)/22)})
	m.Render(0)
	return m
}

// BenchmarkStreamingBatchOfALongAnswer is one batch of a stream (a token
// applied, the view kept at the bottom, the screen drawn) at the end of
// a 1 MiB answer without a paragraph break: what every frame of a long
// answer costs while it streams.
func BenchmarkStreamingBatchOfALongAnswer(b *testing.B) {
	m := longChat(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed(m, llm.TextDelta{Text: "word "})
		m.Render(0)
	}
}

// TestABatchOfALongAnswerCostsTheBatchNotTheAnswer pins that benchmark
// without a clock: at the end of a 1 MiB answer with no paragraph break,
// 20 batches of a token allocate what a few screens do, not the answer
// (each batch rendered the whole answer through glamour before: tens of
// MB apiece).
func TestABatchOfALongAnswerCostsTheBatchNotTheAnswer(t *testing.T) {
	m := longChat(t)
	for range 3 { // the builders' growth past the first MiB
		feed(m, llm.TextDelta{Text: "word "})
		m.Render(0)
	}
	got := commontest.AllocatedBy(func() {
		for range 20 {
			feed(m, llm.TextDelta{Text: "word "})
			m.Render(0)
		}
	})
	if got > 4<<20 {
		t.Errorf("20 batches at the end of a %d-byte answer allocated %d KiB: each batch draws the whole answer", len(m.cur.text), got>>10)
	}
}

// TestALongBlockStreamsAsPlainTextThenRendersAsMarkdown: a block past
// MaxStreamingBlockBytes is drawn as wrapped plain text, with a line
// naming the bound, while glamour is given no more than the bound per
// frame; a paragraph break ending it leaves it plain (its Markdown would
// cost the whole block in one frame), and the finished answer renders as
// Markdown whole.
func TestALongBlockStreamsAsPlainTextThenRendersAsMarkdown(t *testing.T) {
	m := benchChat(&testing.B{}, 2)
	m.SetSize(60, 20)
	sentence := strings.Repeat("Some **bold** prose, repeated. ", 4)
	var sent strings.Builder
	sent.WriteString(m.cur.text)
	for sent.Len() < 3*MaxStreamingBlockBytes {
		before := m.tr.mdBytes
		feed(m, llm.TextDelta{Text: sentence})
		sent.WriteString(sentence)
		m.Render(0)
		if got := m.tr.mdBytes - before; got > MaxStreamingBlockBytes {
			t.Fatalf("at %d bytes a batch gave glamour %d bytes, over MaxStreamingBlockBytes = %d", sent.Len(), got, MaxStreamingBlockBytes)
		}
	}
	screen := strings.Join(m.Render(0), "\n")
	for _, want := range []string{"Some **bold** prose, repeated.", "MaxStreamingBlockBytes"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the long block's screen lacks %q:\n%s", want, screen)
		}
	}
	// Plain, the lines are what wrapping the whole block gives.
	lines := m.tr.itemLines(m.cur, 60)
	done, last := wrapPlain(sent.String(), 58)
	want := append(done, strings.TrimRight(sent.String()[last:], " "))
	for i, l := range want {
		if got := lines[1+i]; got != "  "+l {
			t.Fatalf("plain line %d is %q, want %q", i, got, "  "+l)
		}
	}

	// A paragraph break ends the block: it stays plain (glamour would
	// take the whole block in this frame) until the answer ends.
	before := m.tr.mdBytes
	feed(m, llm.TextDelta{Text: "\n\nThe end.\n"})
	m.Render(0)
	if got := m.tr.mdBytes - before; got > 64 {
		t.Errorf("the finished long block gave glamour %d bytes in the frame it ended", got)
	}
	lines = m.tr.itemLines(m.cur, 60)
	if all := strings.Join(lines, "\n"); !strings.Contains(all, "**bold**") || !strings.Contains(all, "The end.") {
		t.Errorf("the finished long block is not kept plain, with the next block after it:\n%s", strings.Join(lines[len(lines)-4:], "\n"))
	}
	before = m.tr.mdBytes
	feed(m, llm.TextDelta{Text: " More."})
	m.Render(0)
	if got := m.tr.mdBytes - before; got > 64 {
		t.Errorf("a token after the finished block gave glamour %d bytes: the finished block rendered again", got)
	}

	it := m.cur
	if cmd := endTurn(m); cmd != nil {
		deliver(t, m, cmd)
	}
	if got, want := m.tr.itemLines(it, 60)[1:], m.tr.md.Render(it.text, 60); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the finished answer is not its Markdown render")
	}
}

// TestAStreamedLongLineWrapsAsAWholeOneDoes: a long block wrapped as it
// arrives, a piece at a time, is the block wrapped whole, whatever the
// pieces: words, spaces, newlines, indentation, wide characters and words
// wider than the line; no line is wider than the width.
func TestAStreamedLongLineWrapsAsAWholeOneDoes(t *testing.T) {
	text := strings.Repeat("a few words, 界 wide ones, and   spaces ", 3) + strings.Repeat("x", 130) + " y\n  indented line " +
		strings.Repeat("界", 70) + "\n\nafter a blank line " + strings.Repeat("word ", 40) + "e\u0301tude"
	const w = 30
	whole, last := wrapPlain(text, w)
	whole = append(whole, strings.TrimRight(text[last:], " "))
	for _, step := range []int{1, 2, 3, 7, 64} {
		var got []string
		from := 0
		for end := step; ; end += step {
			end = min(end, len(text))
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++ // a stream's text is whole characters
			}
			done, last := wrapPlain(text[from:end], w)
			got = append(got, done...)
			from += last
			if end == len(text) {
				got = append(got, strings.TrimRight(text[from:], " "))
				break
			}
		}
		if strings.Join(got, "\n") != strings.Join(whole, "\n") {
			t.Fatalf("wrapped %d bytes at a time:\n%s\n--- whole:\n%s", step, strings.Join(got, "\n"), strings.Join(whole, "\n"))
		}
	}
	for _, l := range whole {
		if common.WidthOf(l) > w {
			t.Errorf("a line is %d cells wide, over %d: %q", common.WidthOf(l), w, l)
		}
	}
}

// TestAStreamingAnswerLetsNoEscapeThroughWhereverTheTokensSplit: an
// answer's escape sequences and tabs, cut anywhere between tokens, are
// removed and expanded as the whole answer's are, in Markdown and in a
// long block's plain text alike.
func TestAStreamingAnswerLetsNoEscapeThroughWhereverTheTokensSplit(t *testing.T) {
	hostile := "red \x1b[31mtext\x1b[0m, a \x1b]8;;https://evil.example\x07link\x1b]8;;\x07, a title\x1b]0;pwned\x1b\\, \x9b2J C1, tab\there, \u202eevil\u202c. "
	for _, long := range []bool{false, true} {
		for _, step := range []int{1, 3, 5} {
			m := benchChat(&testing.B{}, 2)
			m.SetSize(80, 20)
			answer := hostile
			if long {
				answer = strings.Repeat(hostile, MaxStreamingBlockBytes/len(hostile)+2)
			}
			for i := 0; i < len(answer); i += step {
				m.apply(llm.TextDelta{Text: answer[i:min(i+step, len(answer))]})
				if i%(step*17) == 0 || i+step >= len(answer) {
					m.cur.touch()
					for _, l := range m.tr.itemLines(m.cur, 80) {
						if strings.ContainsAny(l, "\x1b\x07\t\u009b\u202e") || !utf8.ValidString(l) {
							t.Fatalf("long=%v, %d-byte tokens, at %d bytes: a control got through: %q", long, step, i, l)
						}
					}
				}
			}
		}
	}
}

// A 1 MiB block that a paragraph break ends while the answer streams
// (a model prints a big file, then a sentence about it) is not given to
// glamour in the frame it ends: that frame costs its new bytes.
func TestALongBlockEndingMidStreamIsNotRenderedInThatFrame(t *testing.T) {
	m := longChat(t)
	before := m.tr.mdBytes
	feed(m, llm.TextDelta{Text: "\n\nNext paragraph.\n"})
	m.Render(0)
	if got := m.tr.mdBytes - before; got > MaxStreamingBlockBytes {
		t.Errorf("the frame a %d-byte block ended in gave glamour %d bytes, over MaxStreamingBlockBytes = %d", len(m.cur.text), got, MaxStreamingBlockBytes)
	}
	if s := strings.Join(m.Render(0), "\n"); !strings.Contains(s, "Next paragraph.") {
		t.Errorf("the block after the long one is not drawn:\n%s", s)
	}
}

// Resizing while a long answer of many short paragraphs streams redraws
// its finished blocks within InlineMarkdownBytes of glamour; the rest stay
// plain until the answer ends.
func TestResizingAStreamingAnswerRendersItsBlocksWithinTheBudget(t *testing.T) {
	m := benchChat(&testing.B{}, 10)
	feed(m, llm.TextDelta{Text: strings.Repeat("A short **paragraph** of prose.\n\n", (256<<10)/33)})
	m.Render(0)
	before := m.tr.mdBytes
	m.SetSize(100, 36)
	m.Render(0)
	if got := m.tr.mdBytes - before; got > InlineMarkdownBytes+MaxStreamingBlockBytes {
		t.Errorf("a resize while a %d-byte answer streams gave glamour %d bytes, over InlineMarkdownBytes = %d", len(m.cur.text), got, InlineMarkdownBytes)
	}
	it := m.cur
	if cmd := endTurn(m); cmd != nil {
		deliver(t, m, cmd)
	}
	if got, want := m.tr.itemLines(it, m.width)[1:], m.tr.md.Render(it.text, m.width); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the finished answer's Markdown never replaced its plain blocks")
	}
}
