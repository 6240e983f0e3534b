package chat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/tui/common"
)

// benchChat builds a chat of n finished messages (user and assistant in
// turn, Markdown with a code block every tenth), rendered once, with a
// streaming assistant item at the tail.
func benchChat(b *testing.B, n int) *Pane {
	b.Helper()
	com := testCommon()
	m := New(com, nil, nil, 0)
	m.SetSize(120, 36)
	c := m
	for i := range n {
		if i%2 == 0 {
			c.tr.add(&chatItem{kind: itemUser, text: fmt.Sprintf("question %d: how does this work?", i)})
			continue
		}
		text := fmt.Sprintf("Answer %d with **bold**, `code` and a [link](https://example.com).", i)
		if i%10 == 1 {
			text += "\n\n```go\nfunc main() { println(\"hi\") }\n```\n"
		}
		c.tr.add(&chatItem{kind: itemAssistant, model: "m", text: text})
	}
	c.turn = com.NewID()
	c.running = true
	c.tools = map[string]*chatItem{}
	c.cur = c.tr.add(&chatItem{kind: itemAssistant, model: "m", streaming: true, text: "Streaming a reply: "})
	c.stick()
	m.Render(0)
	return m
}

// BenchmarkAppendToken appends one token to the streaming tail and draws
// the screen, for a 10- and a 1,000-message transcript: only the tail is
// rendered again, so the two cost about the same.
func BenchmarkAppendToken(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			m := benchChat(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{events: []llm.Event{llm.TextDelta{Text: "word "}}}})
				m.Render(0)
				if i%200 == 199 { // keep the tail a realistic length
					b.StopTimer()
					m.cur.text = "Streaming a reply: "
					b.StartTimer()
				}
			}
		})
	}
}

// TestAppendingATokenRedrawsOnlyTheTail pins BenchmarkAppendToken's claim
// without a clock: a token appended to a 1,000-message transcript draws
// one item anew, the streaming tail, however long the transcript is; the
// other 1,000 come from their caches.
func TestAppendingATokenRedrawsOnlyTheTail(t *testing.T) {
	for _, n := range []int{10, 1000} {
		m := benchChat(&testing.B{}, n)
		for i := range 3 {
			before := m.tr.renders
			m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{events: []llm.Event{llm.TextDelta{Text: "word "}}}})
			m.Render(0)
			if got := m.tr.renders - before; got != 1 {
				t.Errorf("%d messages, token %d: %d items drawn anew, want 1 (the streaming tail)", n, i, got)
			}
		}
		// A frame with nothing new draws nothing anew.
		before := m.tr.renders
		m.Render(0)
		if got := m.tr.renders - before; got != 0 {
			t.Errorf("%d messages: a repeated frame drew %d items anew, want 0", n, got)
		}
	}
}

// BenchmarkAppendTokenToLongAnswer appends a token to a 20 KB streaming
// answer: only its last block goes through glamour again.
func BenchmarkAppendTokenToLongAnswer(b *testing.B) {
	m := benchChat(b, 10)
	var long []byte
	for len(long) < 20<<10 {
		long = append(long, "## Part\n\nSome **bold** prose with `code`, long enough to wrap.\n\n```go\nfunc f() int { return 1 }\n```\n\n"...)
	}
	m.cur.text = string(long)
	m.cur.touch()
	m.Render(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{events: []llm.Event{llm.TextDelta{Text: "word "}}}})
		m.Render(0)
	}
}

// BenchmarkAppendTokenWithoutDrawing applies one token to a 1 MiB
// streaming answer, as each event of a batch between two frames is: the
// cost of growing the answer alone, which must not grow with its length
// (TestAppendingATokenToALongAnswerCopiesOnlyTheToken pins it).
func BenchmarkAppendTokenWithoutDrawing(b *testing.B) {
	m := benchChat(b, 10)
	m.apply(llm.TextDelta{Text: strings.Repeat("Some prose, repeated. ", (1<<20)/22)})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.apply(llm.TextDelta{Text: "word "})
	}
}

// BenchmarkEndOfALongAnswer is the Update and the View that end a 1 MiB
// answer which streamed without a paragraph break: the frame in which no
// key echoes while the Markdown renders, if it renders there
// (TestALongAnswerEndsWithoutGlamourOnTheUpdatePath pins it).
func BenchmarkEndOfALongAnswer(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := benchChat(b, 10)
		feed(m, llm.TextDelta{Text: longMarkdown})
		m.Render(0)
		b.StartTimer()
		endTurn(m)
		m.Render(0)
	}
}

// BenchmarkResizeWithALongAnswer is the Update and the View of a new
// width with a 1 MiB answer in the transcript
// (TestResizingALongAnswerRendersItOffTheUpdatePath pins it).
func BenchmarkResizeWithALongAnswer(b *testing.B) {
	m := benchChat(b, 10)
	feed(m, llm.TextDelta{Text: longMarkdown})
	endTurn(m)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.SetSize(100+i%2, 36)
		m.Render(0)
	}
}

// BenchmarkResizeWithManyAnswers is the Update and the View of a new
// width with a hundred 3 KiB answers in the transcript
// (TestResizingManyAnswersRendersAFewInPlace pins it).
func BenchmarkResizeWithManyAnswers(b *testing.B) {
	m := benchChat(b, 2)
	m.running = false
	for i := range 100 {
		m.tr.add(&chatItem{kind: itemUser, text: "q"})
		m.tr.add(&chatItem{kind: itemAssistant, model: "m", text: fmt.Sprintf("Answer %d. ", i) + strings.Repeat("Some **bold** prose, `code`. ", 3000/29)})
	}
	m.SetSize(120, 36)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.SetSize(100+i%2, 36)
		m.Render(0)
	}
}
