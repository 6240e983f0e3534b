package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// TestAnthropicThinkingToolUseAndTwoTextBlocksComeOutUnchanged: a reply
// of a thinking block, a flooded text block, two tool_use blocks with
// streamed input and a second flooded text block gives the same thinking,
// text, calls and usage as were sent; the calls run with their input
// intact and the next request carries the reply and the results.
func TestAnthropicThinkingToolUseAndTwoTextBlocksComeOutUnchanged(t *testing.T) {
	reasoning := "Je réfléchis: " + floodText(3000)
	text, after := floodText(100<<10), "Puis: "+floodText(50<<10)
	calls := readCalls(2)
	tools := observe(startDemo(t, mcp.RuntimeOptions{}), 0, 0)
	srv, model := scriptedAnthropic(t, llmtest.Sequence(
		llmtest.Turn{Reasoning: reasoning, Text: text, ChunkBytes: 3, ToolCalls: calls, TextAfter: after, InputTokens: 11, OutputTokens: 22},
		llmtest.Turn{Text: "done", InputTokens: 1, OutputTokens: 2}))
	conv := NewConversation()
	conv.AddUser("Read it.")
	rec := newRecorder()
	if err := NewAgent(model, tools, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	first := conv.Messages[1]
	if first.Role != RoleAssistant || first.Text != text+after || first.Reasoning != reasoning {
		t.Fatalf("first reply: role %s, text %d bytes (sent %d, same %v), reasoning %d bytes (same %v)",
			first.Role, len(first.Text), len(text+after), first.Text == text+after, len(first.Reasoning), first.Reasoning == reasoning)
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
	if m := reqs[1].Messages[1]; m.Role != "assistant" || m.Text != text+after || len(m.ToolCalls) != 2 {
		t.Errorf("the second request sent the reply back as %s, %d bytes of text (same %v), %d calls", m.Role, len(m.Text), m.Text == text+after, len(m.ToolCalls))
	}
	var thought, streamed strings.Builder
	for _, d := range eventsOf[ReasoningDelta](rec.all()) {
		thought.WriteString(d.Text)
	}
	deltas := eventsOf[TextDelta](rec.all())
	for _, d := range deltas {
		streamed.WriteString(d.Text)
	}
	// The text was merged around the other blocks, not passed as it came.
	if sent := len(text+after) / 3; len(deltas) > sent/50 {
		t.Errorf("the SDK read %d text deltas of about %d sent back to back: the text was not merged", len(deltas), sent)
	}
	if thought.String() != reasoning || streamed.String() != text+after+"done" {
		t.Errorf("streamed %d bytes of thinking (same %v) and %d of text (same %v)", thought.Len(), thought.String() == reasoning, streamed.Len(), streamed.String() == text+after+"done")
	}
	events := rec.all()
	if done, ok := events[len(events)-1].(Done); !ok || done.Reason != StopAnswered || done.Steps != 2 || done.Usage != (Usage{InputTokens: 12, OutputTokens: 24}) {
		t.Errorf("last event %#v, want Done answered in 2 steps, usage 12/24", events[len(events)-1])
	}
}

// TestTheMergerJoinsOnlyAnthropicTextDeltas: runs of text_delta events of
// one index become one event; every other event (other indexes, thinking,
// input_json and signature deltas, block starts and stops, ping, message
// events, errors, extra or other fields, CRLF lines) passes byte for byte
// and ends the run.
func TestTheMergerJoinsOnlyAnthropicTextDeltas(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	text := func(index, s string) string {
		return ev("content_block_delta", `{"type":"content_block_delta","index":`+index+`,"delta":{"type":"text_delta","text":"`+s+`"}}`)
	}
	merged := func(index, s string) string {
		return ev("content_block_delta", `{"delta":{"text":"`+s+`","type":"text_delta"},"index":`+index+`,"type":"content_block_delta"}`)
	}
	thinking := ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`)
	signature := ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`)
	input := ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}`)
	start := ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	stop := ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	ping := ev("ping", `{"type": "ping"}`)
	msgDelta := ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`)
	msgStop := ev("message_stop", `{"type":"message_stop"}`)
	errEvent := ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	extraDelta := ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"e","citation":{}}}`)
	extraTop := ev("content_block_delta", `{"type":"content_block_delta","index":0,"x":1,"delta":{"type":"text_delta","text":"x"}}`)
	extraTopMerged := ev("content_block_delta", `{"delta":{"text":"xy","type":"text_delta"},"index":0,"type":"content_block_delta","x":1}`)
	extraTopOther := strings.Replace(extraTop, `"x":1`, `"x":2`, 1)
	dataOnly := strings.TrimPrefix(text("0", "d"), "event: content_block_delta\n")
	otherName := strings.Replace(text("0", "n"), "event: content_block_delta", "event: content_block_delta2", 1)
	crlf := strings.ReplaceAll(text("0", "c"), "\n", "\r\n")
	for _, tc := range []struct{ name, in, want string }{
		{"a run", text("0", "x") + text("0", `\"y\u00e9`) + text("0", "<z>"), merged("0", `x\"yé<z>`)},
		{"a lone delta passes as it came", text("0", `\u00e9`), text("0", `\u00e9`)},
		{"two indexes never merge", text("0", "x") + text("1", "y") + text("1", "z") + text("0", "w"), text("0", "x") + merged("1", "yz") + text("0", "w")},
		{"every other event passes and ends the run", text("0", "a") + text("0", "b") + thinking + text("0", "c") + signature + text("0", "d") + input + start + text("1", "e") + text("1", "f") + stop + ping + text("1", "g") + msgDelta + msgStop + errEvent,
			merged("0", "ab") + thinking + text("0", "c") + signature + text("0", "d") + input + start + merged("1", "ef") + stop + ping + text("1", "g") + msgDelta + msgStop + errEvent},
		{"an extra delta field", text("0", "x") + extraDelta + text("0", "y"), text("0", "x") + extraDelta + text("0", "y")},
		{"unknown top fields kept when equal", extraTop + strings.Replace(extraTop, `"text":"x"`, `"text":"y"`, 1) + extraTopOther, extraTopMerged + extraTopOther},
		{"an unknown top field absent from the first", text("0", "x") + strings.Replace(extraTop, `"x":1,`, ``, 1) + extraTop, merged("0", "xx") + extraTop},
		{"CRLF lines pass", crlf + crlf, crlf + crlf},
		{"a data line without its event line is not Anthropic's", text("0", "x") + dataOnly + dataOnly, text("0", "x") + dataOnly + dataOnly},
		{"another event name", otherName + otherName, otherName + otherName},
		{"not JSON", ev("content_block_delta", "{") + text("0", "x"), ev("content_block_delta", "{") + text("0", "x")},
		{"OpenAI and Anthropic chunks never join", `data: {"choices":[{"index":0,"delta":{"content":"o"}}]}` + "\n\n" + text("0", "x"),
			`data: {"choices":[{"index":0,"delta":{"content":"o"}}]}` + "\n\n" + text("0", "x")},
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

// TestTheMergerHoldsOnlyTheStartOfAnAnthropicTextDelta: an event not yet
// whole is held only while it may be a text delta; any other event is
// passed on at once, and merged text stays within MaxMergedTextBytes.
func TestTheMergerHoldsOnlyTheStartOfAnAnthropicTextDelta(t *testing.T) {
	for _, tc := range []struct {
		tail string
		held bool
	}{
		{"event: content_bl", true},
		{"event: content_block_delta\n", true},
		{"event: content_block_delta\ndata: {\"type\"", true},
		{"event: content_block_start\n", false},
		{"event: ping\ndata: {", false},
		{"event: content_block_delta\r\n", false},
		{"event: content_block_delta\ndata: {}\nid: 1", false},
	} {
		m := sseMerger{in: []byte(tc.tail)}
		m.merge(false)
		if held := string(m.in) == tc.tail && len(m.out) == 0; held != tc.held || (!held && string(m.out) != tc.tail) {
			t.Errorf("%q: passed %q, held %q; want held %v", tc.tail, m.out, m.in, tc.held)
		}
	}
	delta := "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + strings.Repeat("x", 1000) + `"}}` + "\n\n"
	var m sseMerger
	m.in = []byte(strings.Repeat(delta, 200))
	m.merge(false)
	if len(m.in) != 0 || strings.Count(string(m.out), "data:") != 4 {
		t.Errorf("200 deltas of 1000 bytes became %d events (held %d bytes), want 4 of at most MaxMergedTextBytes (%d)", strings.Count(string(m.out), "data:"), len(m.in), MaxMergedTextBytes)
	}
	for _, e := range strings.Split(strings.TrimSpace(string(m.out)), "\n\n") {
		if n := strings.Count(e, "x"); n > MaxMergedTextBytes {
			t.Errorf("an event holds %d bytes of text", n)
		}
	}
}
