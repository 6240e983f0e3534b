package chat

import (
	"fmt"
	"testing"
	"time"

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

// TestAppendingATokenCostsTheSameForLongTranscripts pins the benchmark's
// claim: within 2x from 10 to 1,000 messages, and View under 5 ms.
func TestAppendingATokenCostsTheSameForLongTranscripts(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	small := testing.Benchmark(func(b *testing.B) { benchAppend(b, 10) })
	large := testing.Benchmark(func(b *testing.B) { benchAppend(b, 1000) })
	ratio := float64(large.NsPerOp()) / float64(small.NsPerOp())
	t.Logf("append+view: 10 messages %v/op, 1000 messages %v/op, ratio %.2f", time.Duration(small.NsPerOp()), time.Duration(large.NsPerOp()), ratio)
	if ratio > 2 {
		t.Errorf("appending to 1,000 messages costs %.2fx appending to 10 (want within 2x)", ratio)
	}
	m := benchChat(&testing.B{}, 1000)
	start := time.Now()
	const views = 50
	for range views {
		m.Render(0)
	}
	per := time.Since(start) / views
	t.Logf("View with 1,000 messages: %v", per)
	if per > 5*time.Millisecond {
		t.Errorf("View takes %v, want under 5ms", per)
	}
}

func benchAppend(b *testing.B, n int) {
	m := benchChat(b, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{events: []llm.Event{llm.TextDelta{Text: "word "}}}})
		m.Render(0)
		if i%200 == 199 {
			b.StopTimer()
			m.cur.text = "Streaming a reply: "
			b.StartTimer()
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
