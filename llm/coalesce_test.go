package llm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// floodText is n bytes of varied text, with multi-byte characters, so a
// lost, doubled or reordered delta shows.
func floodText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "mot %d, «é» ", i)
	}
	return b.String()
}

// TestAFloodedReplyArrivesWholeInFarFewerChunks: a reply that a fast
// local server floods in 4-byte deltas, written back to back, comes out
// whole and identical, with its finish (stop) reason and usage, while the
// SDK reads a small fraction of the chunks: before, it read every one and
// copied the reply so far on each (1 MiB on the Chat Completions wire:
// 262,144 chunks, about 137 GB of copying; 256 KiB on Anthropic's).
func TestAFloodedReplyArrivesWholeInFarFewerChunks(t *testing.T) {
	for _, wire := range []struct {
		name     string
		scripted func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
		size     int
	}{{"chat-completions", scriptedOpenAI, 1 << 20}, {"anthropic", scriptedAnthropic, 256 << 10}} {
		t.Run(wire.name, func(t *testing.T) {
			text := floodText(wire.size)
			const chunk = 4
			_, model := wire.scripted(t, llmtest.Sequence(llmtest.Turn{Text: text, ChunkBytes: chunk, InputTokens: 7, OutputTokens: 300000, Truncated: true}))
			conv := NewConversation()
			conv.AddUser("Say a lot.")
			rec := newRecorder()
			if err := NewAgent(model, startDemo(t, mcp.RuntimeOptions{}), Options{}).Run(context.Background(), conv, rec.on); err != nil {
				t.Fatal(err)
			}
			if got := conv.Answer(); got != text {
				t.Fatalf("the answer is %d bytes, want the %d sent (identical: %v)", len(got), len(text), got == text)
			}
			deltas := eventsOf[TextDelta](rec.all())
			var streamed strings.Builder
			for _, d := range deltas {
				streamed.WriteString(d.Text)
			}
			if streamed.String() != text {
				t.Errorf("the streamed deltas make %d bytes, not the text sent", streamed.Len())
			}
			sent := len(text) / chunk
			if len(deltas) > sent/50 {
				t.Errorf("the SDK read %d text chunks of the %d sent back to back, want at most %d: the chunks already read were not merged", len(deltas), sent, sent/50)
			}
			last := conv.Messages[len(conv.Messages)-1]
			if !last.Truncated || last.Usage == nil || *last.Usage != (Usage{InputTokens: 7, OutputTokens: 300000}) {
				t.Errorf("last message: truncated %v, usage %+v; want it cut at the token limit, usage 7/300000", last.Truncated, last.Usage)
			}
			events := rec.all()
			if done, ok := events[len(events)-1].(Done); !ok || done.Reason != StopAnswered || !done.Truncated || done.Usage != (Usage{InputTokens: 7, OutputTokens: 300000}) {
				t.Errorf("last event %#v, want Done answered, truncated, usage 7/300000", events[len(events)-1])
			}
			t.Logf("%d chunks sent, %d read by the SDK", sent, len(deltas))
		})
	}
}

// TestReasoningToolCallsAndUsageAroundAFloodComeOutUnchanged: a reply
// whose flooded text sits between a role chunk, reasoning_content deltas,
// tool calls with streamed arguments, a finish chunk and a usage chunk
// gives the same reasoning, text, calls and usage as were sent, and the
// calls run with their arguments intact.
func TestReasoningToolCallsAndUsageAroundAFloodComeOutUnchanged(t *testing.T) {
	reasoning := "Je réfléchis: " + floodText(3000)
	text := floodText(200 << 10)
	calls := readCalls(2)
	tools := observe(startDemo(t, mcp.RuntimeOptions{}), 0, 0)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{Reasoning: reasoning, Text: text, ChunkBytes: 3, ToolCalls: calls, InputTokens: 11, OutputTokens: 22},
		llmtest.Turn{Text: "done", InputTokens: 1, OutputTokens: 2}))
	conv := NewConversation()
	conv.AddUser("Read it.")
	rec := newRecorder()
	if err := NewAgent(model, tools, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	first := conv.Messages[1]
	if first.Role != RoleAssistant || first.Text != text || first.Reasoning != reasoning {
		t.Fatalf("first reply: role %s, text %d bytes (sent %d, same %v), reasoning %q", first.Role, len(first.Text), len(text), first.Text == text, first.Reasoning)
	}
	if len(first.ToolCalls) != len(calls) {
		t.Fatalf("first reply has %d calls, want %d", len(first.ToolCalls), len(calls))
	}
	for i, c := range first.ToolCalls {
		if c.ID != calls[i].ID || c.Name != calls[i].Name || c.Arguments != calls[i].Arguments {
			t.Errorf("call %d is %+v, want %+v", i, c, calls[i])
		}
	}
	if first.Usage == nil || *first.Usage != (Usage{InputTokens: 11, OutputTokens: 22}) || first.Truncated {
		t.Errorf("first reply: usage %+v, truncated %v", first.Usage, first.Truncated)
	}
	if tools.calls != 2 {
		t.Errorf("%d calls ran, want 2", tools.calls)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].ToolResults()) != 2 {
		t.Fatalf("%d requests; the second should carry 2 results", len(reqs))
	}
	var thought strings.Builder
	for _, d := range eventsOf[ReasoningDelta](rec.all()) {
		thought.WriteString(d.Text)
	}
	if thought.String() != reasoning {
		t.Errorf("the reasoning streamed as %q", thought.String())
	}
	events := rec.all()
	if done, ok := events[len(events)-1].(Done); !ok || done.Reason != StopAnswered || done.Steps != 2 || done.Usage != (Usage{InputTokens: 12, OutputTokens: 24}) {
		t.Errorf("last event %#v, want Done answered in 2 steps, usage 12/24", events[len(events)-1])
	}
}

// TestASlowStreamReachesTheSDKDeltaByDelta: when the server flushes one
// delta and waits, that delta reaches the person before the next is
// written: nothing waits for more data to merge. Both wires merge: the
// Chat Completions one and Anthropic's.
func TestASlowStreamReachesTheSDKDeltaByDelta(t *testing.T) {
	for _, wire := range []struct {
		name     string
		scripted func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
	}{{"chat-completions", scriptedOpenAI}, {"anthropic", scriptedAnthropic}} {
		t.Run(wire.name, func(t *testing.T) {
			text := "Un, deux, trois, quatre, cinq, six."
			want := []string{"Un, d", "eux, ", "trois", ", qua", "tre, ", "cinq,", " six."}
			paced := &pacedDeltas{pace: make(chan struct{}), want: want}
			_, model := wire.scripted(t, llmtest.Sequence(llmtest.Turn{Text: text, ChunkBytes: 5, Pace: paced.pace}))
			conv := NewConversation()
			conv.AddUser("Count.")
			paced.run(t, NewAgent(model, startDemo(t, mcp.RuntimeOptions{}), Options{}), conv, func(e Event) {
				if d, ok := e.(TextDelta); ok {
					paced.take(d.Text)
				}
			})
		})
	}
}

// pacedDeltas is the client side of a slow stream: the server writes a
// delta, then waits on pace until take has seen it.
type pacedDeltas struct {
	pace  chan struct{}
	want  []string
	got   []string
	stuck bool // a server write waited on the client for 10 s
}

// take records a delta and lets the server write the next.
func (p *pacedDeltas) take(piece string) {
	p.got = append(p.got, piece)
	if len(p.got) >= len(p.want) {
		return
	}
	select {
	case p.pace <- struct{}{}: // the server may write the next delta
	case <-time.After(10 * time.Second):
		p.stuck = true
	}
}

// run runs agent on conv (on hears its events) for up to 20 s and checks
// that each delta was delivered before the next was written.
func (p *pacedDeltas) run(t *testing.T, agent *Agent, conv *Conversation, on func(Event)) {
	t.Helper()
	// A failure cancels the request, so the server's handler ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx, conv, on) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		cancel()
		<-done
		t.Fatalf("the run did not end; deltas so far %q", p.got)
	}
	if p.stuck || !slices.Equal(p.got, p.want) {
		t.Errorf("deltas %q (a server write waited on the client: %v), want %q, each delivered before the next was written", p.got, p.stuck, p.want)
	}
}

// TestTheMergerJoinsOnlyPlainTextChunks: the rewrite of a stream, read
// whole: runs of plain text chunks of one id become one chunk keeping the
// first's other fields; every other event (role changes, a lone reasoning
// chunk, tool calls, a finish reason, usage, comments, [DONE], another id, CRLF lines,
// unknown fields) passes byte for byte and ends the run.
func TestTheMergerJoinsOnlyPlainTextChunks(t *testing.T) {
	text := func(id, content string) string {
		return `data: {"id":"` + id + `","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}]}` + "\n\n"
	}
	merged := func(id, content string) string {
		return `data: {"choices":[{"delta":{"content":"` + content + `"},"finish_reason":null,"index":0}],"created":1,"id":"` + id + `","model":"m","object":"chat.completion.chunk","system_fingerprint":"fp"}` + "\n\n"
	}
	role := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	roleMerged := func(content string) string {
		return `data: {"choices":[{"delta":{"content":"` + content + `","role":"assistant"},"finish_reason":null,"index":0}],"id":"a","model":"m"}` + "\n\n"
	}
	reasoning := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"reasoning_content":"hm"},"finish_reason":null}]}` + "\n\n"
	tool := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}` + "\n\n"
	finish := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}` + "\n\n"
	usage := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"?"},"finish_reason":null}],"usage":{"total_tokens":3}}` + "\n\n"
	unknown := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"u","audio":{}},"finish_reason":null}]}` + "\n\n"
	extra := `data: {"id":"a","model":"m","x":1,"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n"
	extraMerged := `data: {"choices":[{"delta":{"content":"xy"},"index":0}],"id":"a","model":"m","x":1}` + "\n\n"
	extraOther := `data: {"id":"a","model":"m","x":2,"choices":[{"index":0,"delta":{"content":"z"}}]}` + "\n\n"
	crlf := strings.ReplaceAll(text("a", "c"), "\n", "\r\n")
	for _, tc := range []struct{ name, in, want string }{
		{"a run", text("a", "x") + text("a", `\"y\u00e9`) + text("a", "<z>"), merged("a", `x\"yé<z>`)},
		{"a lone chunk passes as it came", text("a", `\u00e9`), text("a", `\u00e9`)},
		{"the role on the first", role + text("a", "x") + text("a", "y"), roleMerged("xy")},
		{"a role later starts a new run", text("a", "x") + role + text("a", "y"), text("a", "x") + roleMerged("y")},
		{"reasoning, tool calls, finish and usage pass", text("a", "x") + text("a", "y") + reasoning + text("a", "z") + tool + text("a", "w") + finish + usage + "data: [DONE]\n\n",
			merged("a", "xy") + reasoning + text("a", "z") + tool + text("a", "w") + finish + usage + "data: [DONE]\n\n"},
		{"another id", text("a", "x") + text("b", "y") + text("b", "z"), text("a", "x") + merged("b", "yz")},
		{"a comment", text("a", "x") + ": ping\n\n" + text("a", "y"), text("a", "x") + ": ping\n\n" + text("a", "y")},
		{"an unknown delta field", text("a", "x") + unknown + text("a", "y"), text("a", "x") + unknown + text("a", "y")},
		{"unknown top fields kept when equal", extra + strings.Replace(extra, `"x"}`, `"y"}`, 1) + extraOther, extraMerged + extraOther},
		{"CRLF lines pass", crlf + crlf, crlf + crlf},
		{"a content literal that is not one string", text("a", "x") + strings.Replace(text("a", "y"), `"y"`, `"y","role":"tool"`, 1),
			text("a", "x") + strings.Replace(text("a", "y"), `"y"`, `"y","role":"tool"`, 1)},
		{"not JSON", "data: {\n\n" + text("a", "x"), "data: {\n\n" + text("a", "x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m sseMerger
			m.in = []byte(tc.in)
			m.merge(true)
			if got := string(m.out); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestTheMergerNeverHoldsMoreThanTheBound: merged text stays within
// MaxMergedTextBytes, and a part of an event that cannot merge, or is
// over the bound, is passed on at once, with the rest of its event.
func TestTheMergerNeverHoldsMoreThanTheBound(t *testing.T) {
	chunk := `data: {"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 1000) + `"}}]}` + "\n\n"
	var m sseMerger
	m.in = []byte(strings.Repeat(chunk, 200))
	m.merge(false)
	if len(m.in) != 0 || strings.Count(string(m.out), "data:") != 4 {
		t.Errorf("200 chunks of 1000 bytes became %d events (held %d bytes), want 4 of at most MaxMergedTextBytes (%d)", strings.Count(string(m.out), "data:"), len(m.in), MaxMergedTextBytes)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(m.out)), "\n\n") {
		if n := strings.Count(line, "x"); n > MaxMergedTextBytes {
			t.Errorf("an event holds %d bytes of text", n)
		}
	}
	// An event begun with another field is passed on before it is whole.
	m = sseMerger{in: []byte("event: x\ndata: {")}
	m.merge(false)
	if string(m.out) != "event: x\ndata: {" || len(m.in) != 0 {
		t.Fatalf("passed %q, held %q", m.out, m.in)
	}
	m.out = nil
	m.in = []byte("}\n\n" + chunk + chunk + "data: {")
	m.merge(false)
	if want := "}\n\n" + merged2(chunk); string(m.out) != want || string(m.in) != "data: {" {
		t.Errorf("passed %q, held %q", m.out, m.in)
	}
}

// merged2 is two copies of chunk as the merger joins them.
func merged2(chunk string) string {
	var m sseMerger
	m.in = []byte(chunk + chunk)
	m.merge(true)
	return string(m.out)
}
