package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"charm.land/fantasy"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// floodKind is one kind of delta a model streams: the turn that floods
// payload in deltas of that kind, and where the reply keeps it.
type floodKind struct {
	wire, kind string
	scripted   func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
	// payload is what the flood of s streams (tool arguments wrap s).
	payload func(s string) string
	turn    func(payload string) llmtest.Turn
	got     func(Message) string
	// merged: the deltas of this kind that arrive together merge (the
	// others cost the SDK linear time, and little: left as they come).
	merged bool
}

// echoArgs are arguments of the demo's echo through mcp_invoke_demo,
// with s as the message.
func echoArgs(s string) string {
	return fmt.Sprintf(`{"tool":"echo","arguments":{"message":%q}}`, s)
}

func same(s string) string { return s }

// floodKinds are the deltas of each wire that carry text a model may
// stream at length: the reply's text, its reasoning, a call's arguments.
var floodKinds = []floodKind{
	{"chat-completions", "text", scriptedOpenAI, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Text: p} }, func(m Message) string { return m.Text }, true},
	{"chat-completions", "reasoning", scriptedOpenAI, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Reasoning: p, Text: "ok"} }, func(m Message) string { return m.Reasoning }, true},
	{"chat-completions", "tool-arguments", scriptedOpenAI, echoArgs,
		func(p string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_invoke_demo", Arguments: p}}}
		}, firstArguments, true},
	{"anthropic", "text", scriptedAnthropic, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Text: p} }, func(m Message) string { return m.Text }, true},
	{"anthropic", "thinking", scriptedAnthropic, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Reasoning: p, Text: "ok"} }, func(m Message) string { return m.Reasoning }, true},
	{"anthropic", "tool-input", scriptedAnthropic, echoArgs,
		func(p string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_invoke_demo", Arguments: p}}}
		}, firstArguments, false},
}

func firstArguments(m Message) string {
	if len(m.ToolCalls) == 0 {
		return ""
	}
	return m.ToolCalls[0].Arguments
}

// script answers the flood turn, then "done" once tool results came.
func (k floodKind) script(payload string, chunk int) llmtest.Script {
	return func(_ int, req llmtest.Request) llmtest.Turn {
		if len(req.ToolResults()) > 0 {
			return llmtest.Turn{Text: "done"}
		}
		t := k.turn(payload)
		t.ChunkBytes = chunk
		return t
	}
}

// countedModel is m, its stream read by the SDK through a counter of the
// events it is handed (after the merger); on, when set, is called with
// each whole event as the SDK reads it.
func countedModel(t testing.TB, m Model, on func(event []byte)) (Model, *atomic.Int64) {
	t.Helper()
	n := new(atomic.Int64)
	cm, err := newModel(m.(*fantasyModel).choice, func(rt http.RoundTripper) http.RoundTripper { return eventCounter{rt, n, on} })
	if err != nil {
		t.Fatal(err)
	}
	return cm, n
}

// eventCounter counts the server-sent events its responses' readers read.
type eventCounter struct {
	base http.RoundTripper
	n    *atomic.Int64
	on   func(event []byte)
}

func (c eventCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: c.n, on: c.on}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n   *atomic.Int64
	on  func(event []byte)
	nl  bool   // the last byte read was a newline
	buf []byte // the event being read, when on is set
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		events := bytes.Count(p[:n], []byte("\n\n"))
		if b.nl && p[0] == '\n' {
			events++
		}
		b.n.Add(int64(events))
		b.nl = p[n-1] == '\n'
	}
	if b.on != nil {
		b.buf = append(b.buf, p[:n]...)
		for {
			i := bytes.Index(b.buf, []byte("\n\n"))
			if i < 0 {
				break
			}
			b.on(b.buf[:i])
			b.buf = b.buf[i+2:]
		}
	}
	return n, err
}

// runFlood runs one conversation against model and returns its first reply.
func runFlood(t testing.TB, agent *Agent) Message {
	t.Helper()
	conv := NewConversation()
	conv.AddUser("Say a lot.")
	if err := agent.Run(context.Background(), conv, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	return conv.Messages[1]
}

// TestAFloodOfEachDeltaKindArrivesWholeInFarFewerEvents: 256 KiB of
// reasoning, thinking or tool arguments flooded in 4-byte deltas reach the
// reply identical, while the SDK reads a small fraction of the events sent
// (before, it read each and copied the whole thinking or arguments so far:
// 9 GB and 18 GB for these; reasoning cost 844 MB and 3.5 s); Anthropic
// tool input, passed as it comes, arrives identical too.
func TestAFloodOfEachDeltaKindArrivesWholeInFarFewerEvents(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	for _, k := range floodKinds {
		if k.kind == "text" {
			continue // TestAFloodedReplyArrivesWholeInFarFewerChunks
		}
		t.Run(k.wire+"/"+k.kind, func(t *testing.T) {
			size := 256 << 10
			if !k.merged {
				size = 64 << 10 // passed as they come: only the result is checked
			}
			p := k.payload(floodText(size))
			_, m := k.scripted(t, k.script(p, 4))
			model, events := countedModel(t, m, nil)
			if got := k.got(runFlood(t, NewAgent(model, rt, Options{}))); got != p {
				t.Fatalf("the reply's %s is %d bytes, want the %d sent (identical: %v)", k.kind, len(got), len(p), got == p)
			}
			sent := len(p) / 4
			if n := int(events.Load()); k.merged && n > sent/50 {
				t.Errorf("the SDK read %d events for about %d %s deltas sent back to back, want at most %d: the deltas already read were not merged", n, sent, k.kind, sent/50)
			}
			t.Logf("about %d deltas sent, %d events read by the SDK", sent, events.Load())
		})
	}
}

// BenchmarkFloodedReply: one run whose reply carries 256 KiB of one kind
// (text, reasoning, tool arguments) streamed in 4-byte deltas written back
// to back, against the scripted server of each wire; events/op is how
// many events the SDK read.
func BenchmarkFloodedReply(b *testing.B) {
	rt := startDemo(b, mcp.RuntimeOptions{})
	for _, k := range floodKinds {
		b.Run(k.wire+"/"+k.kind, func(b *testing.B) {
			p := k.payload(floodText(256 << 10))
			_, m := k.scripted(b, k.script(p, 4))
			model, events := countedModel(b, m, nil)
			agent := NewAgent(model, rt, Options{})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if k.got(runFlood(b, agent)) != p {
					b.Fatalf("the reply's %s differs from what was sent", k.kind)
				}
			}
			b.ReportMetric(float64(events.Load())/float64(b.N), "events/op")
		})
	}
}

// pieceOf is the string an event adds as a delta of kind (the arguments
// of a call, thinking, reasoning), if it adds one; a call's start adds none.
func pieceOf(kind string, event []byte) (string, bool) {
	_, data, ok := bytes.Cut(event, []byte("data: "))
	var e struct {
		Choices []struct {
			Delta struct {
				ReasoningContent *string `json:"reasoning_content"`
				ToolCalls        []struct {
					Function struct {
						Name      *string `json:"name"`
						Arguments *string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
		Delta struct {
			Thinking *string `json:"thinking"`
		} `json:"delta"`
	}
	if !ok || json.Unmarshal(data, &e) != nil {
		return "", false
	}
	switch {
	case kind == "thinking" && e.Delta.Thinking != nil:
		return *e.Delta.Thinking, true
	case kind == "reasoning" && len(e.Choices) == 1 && e.Choices[0].Delta.ReasoningContent != nil:
		return *e.Choices[0].Delta.ReasoningContent, true
	case kind == "tool-arguments" && len(e.Choices) == 1 && len(e.Choices[0].Delta.ToolCalls) == 1:
		if f := e.Choices[0].Delta.ToolCalls[0].Function; f.Name == nil && f.Arguments != nil {
			return *f.Arguments, true
		}
	}
	return "", false
}

// TestASlowStreamOfEachKindReachesTheSDKDeltaByDelta: when the server
// flushes one reasoning, thinking or argument delta and waits, that delta
// reaches the SDK before the next is written: nothing waits for more data
// to merge.
// (Text: TestASlowStreamReachesTheSDKDeltaByDelta.)
func TestASlowStreamOfEachKindReachesTheSDKDeltaByDelta(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	for _, k := range floodKinds {
		if !k.merged || k.kind == "text" {
			continue
		}
		t.Run(k.wire+"/"+k.kind, func(t *testing.T) {
			p := k.payload("Un, deux, trois, quatre, cinq, six.")
			var want []string
			for s := p; s != ""; s = s[min(5, len(s)):] {
				want = append(want, s[:min(5, len(s))])
			}
			paced := &pacedDeltas{pace: make(chan struct{}), want: want}
			_, m := k.scripted(t, func(_ int, req llmtest.Request) llmtest.Turn {
				if len(req.ToolResults()) > 0 {
					return llmtest.Turn{Text: "done"}
				}
				turn := k.turn(p)
				turn.Text, turn.ChunkBytes, turn.Pace = "", 5, paced.pace
				return turn
			})
			model, _ := countedModel(t, m, func(event []byte) {
				if piece, ok := pieceOf(k.kind, event); ok {
					paced.take(piece)
				}
			})
			conv := NewConversation()
			conv.AddUser("Count.")
			paced.run(t, NewAgent(model, rt, Options{}), conv, func(Event) {})
			if r := k.got(conv.Messages[1]); r != p {
				t.Errorf("the reply's %s is %q, want %q", k.kind, r, p)
			}
		})
	}
}

// mergeAll is in rewritten by the merger, read whole.
func mergeAll(in string) string {
	var m sseMerger
	m.in = []byte(in)
	m.merge(true)
	return string(m.out)
}

// TestTheMergerJoinsOnlyOneCallsArgumentChunks: runs of argument chunks of
// one tool call become one chunk; chunks of another call, text, a call's
// start, extra fields, two calls in a chunk, a field twice, CRLF lines,
// malformed JSON and a delta over MaxMergedTextBytes pass byte for byte
// and end the run.
func TestTheMergerJoinsOnlyOneCallsArgumentChunks(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	args := func(i, s string) string {
		return chunk(`{"tool_calls":[{"index":` + i + `,"function":{"arguments":"` + s + `"}}]}`)
	}
	merged := func(i, s string) string {
		return `data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"` + s + `"},"index":` + i + `}]},"finish_reason":null,"index":0}],"created":1,"id":"a","model":"m","object":"chat.completion.chunk"}` + "\n\n"
	}
	text := func(s string) string { return chunk(`{"content":"` + s + `"}`) }
	mergedText := `data: {"choices":[{"delta":{"content":"xy"},"finish_reason":null,"index":0}],"created":1,"id":"a","model":"m","object":"chat.completion.chunk"}` + "\n\n"
	start := chunk(`{"tool_calls":[{"index":1,"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}`)
	withType := chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"arguments":"e"}}]}`)
	withName := chunk(`{"tool_calls":[{"index":0,"function":{"name":"","arguments":"e"}}]}`)
	twoCalls := chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"e"}},{"index":1,"function":{"arguments":"f"}}]}`)
	twice := chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"e","arguments":"f"}}]}`)
	textTwice := chunk(`{"content":"e","content":"f"}`)
	crlf := strings.ReplaceAll(args("0", "c"), "\n", "\r\n")
	malformed := strings.Replace(args("0", "m"), `"}}]}`, `"}]}`, 1)
	big := args("0", strings.Repeat("b", MaxMergedTextBytes+1))
	for _, tc := range []struct{ name, in, want string }{
		{"a run", args("0", `{\"a`) + args("0", `\":\"é\"`) + args("0", `}`), merged("0", `{\"a\":\"é\"}`)},
		{"a lone chunk passes as it came", args("0", "x"), args("0", "x")},
		{"two calls interleaved never merge", args("0", "x") + args("1", "y") + args("1", "z") + args("0", "w") + args("1", "v"),
			args("0", "x") + merged("1", "yz") + args("0", "w") + args("1", "v")},
		{"text and arguments never merge", text("x") + text("y") + args("0", "x") + args("0", "y") + text("z"), mergedText + merged("0", "xy") + text("z")},
		{"a call's start passes", args("0", "x") + args("0", "y") + start + args("1", "z") + args("1", "w"), merged("0", "xy") + start + merged("1", "zw")},
		{"an extra call field", args("0", "x") + args("0", "y") + withType + args("0", "z"), merged("0", "xy") + withType + args("0", "z")},
		{"an extra function field", args("0", "x") + args("0", "y") + withName + args("0", "z"), merged("0", "xy") + withName + args("0", "z")},
		{"two calls in a chunk", args("0", "x") + args("0", "y") + twoCalls + args("0", "z"), merged("0", "xy") + twoCalls + args("0", "z")},
		{"arguments twice", args("0", "x") + args("0", "y") + twice + args("0", "z"), merged("0", "xy") + twice + args("0", "z")},
		{"content twice", text("x") + text("y") + textTwice + text("z"), mergedText + textTwice + text("z")},
		{"CRLF lines", args("0", "x") + args("0", "y") + crlf + crlf, merged("0", "xy") + crlf + crlf},
		{"malformed JSON", args("0", "x") + args("0", "y") + malformed + args("0", "z"), merged("0", "xy") + malformed + args("0", "z")},
		{"a delta over the bound", args("0", "x") + args("0", "y") + big + args("0", "z"), merged("0", "xy") + big + args("0", "z")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeAll(tc.in); got != tc.want {
				t.Errorf("got\n%.600s\nwant\n%.600s", got, tc.want)
			}
		})
	}
}

// TestTheMergerJoinsAnthropicThinkingAndSignatureDeltas: runs of thinking
// deltas, or of signature deltas, of one block become one event; other
// blocks, other kinds, input_json deltas (whose cost grows linearly),
// extra fields, a field twice, CRLF lines, malformed JSON and a delta over
// MaxMergedTextBytes pass byte for byte and end the run.
func TestTheMergerJoinsAnthropicThinkingAndSignatureDeltas(t *testing.T) {
	delta := func(index, typ, field, s string) string {
		return "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":` + index + `,"delta":{"type":"` + typ + `","` + field + `":"` + s + `"}}` + "\n\n"
	}
	merged := func(index, typ, field, s string) string {
		return "event: content_block_delta\ndata: " + `{"delta":{"` + field + `":"` + s + `","type":"` + typ + `"},"index":` + index + `,"type":"content_block_delta"}` + "\n\n"
	}
	think := func(index, s string) string { return delta(index, "thinking_delta", "thinking", s) }
	thought := func(index, s string) string { return merged(index, "thinking_delta", "thinking", s) }
	sig := func(s string) string { return delta("0", "signature_delta", "signature", s) }
	text := func(s string) string { return delta("0", "text_delta", "text", s) }
	input := func(s string) string { return delta("1", "input_json_delta", "partial_json", s) }
	extra := strings.Replace(think("0", "e"), `"thinking":"e"`, `"thinking":"e","x":1`, 1)
	twice := strings.Replace(think("0", "e"), `"thinking":"e"`, `"thinking":"e","thinking":"f"`, 1)
	textTwice := strings.Replace(text("e"), `"text":"e"`, `"text":"e","text":"f"`, 1)
	crlf := strings.ReplaceAll(think("0", "c"), "\n", "\r\n")
	malformed := strings.Replace(think("0", "m"), `"}}`, `"}`, 1)
	big := think("0", strings.Repeat("b", MaxMergedTextBytes+1))
	for _, tc := range []struct{ name, in, want string }{
		{"a thinking run", think("0", "x") + think("0", `\"y\u00e9`) + think("0", "<z>"), thought("0", `x\"yé<z>`)},
		{"a signature run", sig("s1") + sig("s2"), merged("0", "signature_delta", "signature", "s1s2")},
		{"two blocks interleaved never merge", think("0", "x") + think("1", "y") + think("1", "z") + think("0", "w") + think("1", "v"),
			think("0", "x") + thought("1", "yz") + think("0", "w") + think("1", "v")},
		{"kinds never merge", think("0", "a") + think("0", "b") + sig("s") + sig("t") + text("c") + text("d"),
			thought("0", "ab") + merged("0", "signature_delta", "signature", "st") + merged("0", "text_delta", "text", "cd")},
		{"input_json deltas pass as they come", think("0", "a") + think("0", "b") + input("{") + input("}"), thought("0", "ab") + input("{") + input("}")},
		{"an extra delta field", think("0", "x") + think("0", "y") + extra + think("0", "z"), thought("0", "xy") + extra + think("0", "z")},
		{"thinking twice", think("0", "x") + think("0", "y") + twice + think("0", "z"), thought("0", "xy") + twice + think("0", "z")},
		{"text twice", text("x") + text("y") + textTwice + text("z"), merged("0", "text_delta", "text", "xy") + textTwice + text("z")},
		{"CRLF lines", think("0", "x") + think("0", "y") + crlf + crlf, thought("0", "xy") + crlf + crlf},
		{"malformed JSON", think("0", "x") + think("0", "y") + malformed + think("0", "z"), thought("0", "xy") + malformed + think("0", "z")},
		{"a delta over the bound", think("0", "x") + think("0", "y") + big + think("0", "z"), thought("0", "xy") + big + think("0", "z")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeAll(tc.in); got != tc.want {
				t.Errorf("got\n%.600s\nwant\n%.600s", got, tc.want)
			}
		})
	}
}

// TestTheMergerJoinsReasoningChunksOfOneName: runs of reasoning_content
// chunks, or of reasoning chunks, become one chunk; the two names never
// merge with each other nor with content (fantasy prefers
// reasoning_content to reasoning within a chunk, and ends the reasoning at
// content), and a chunk holding two of them, or a field twice, passes as
// it came and ends the run.
func TestTheMergerJoinsReasoningChunksOfOneName(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	merged := func(field, s string) string {
		return `data: {"choices":[{"delta":{"` + field + `":"` + s + `"},"finish_reason":null,"index":0}],"created":1,"id":"a","model":"m","object":"chat.completion.chunk"}` + "\n\n"
	}
	rc := func(s string) string { return chunk(`{"reasoning_content":"` + s + `"}`) }
	r := func(s string) string { return chunk(`{"reasoning":"` + s + `"}`) }
	text := func(s string) string { return chunk(`{"content":"` + s + `"}`) }
	both := chunk(`{"reasoning_content":"","reasoning":"b"}`)
	withText := chunk(`{"reasoning_content":"t","content":"u"}`)
	withNull := chunk(`{"reasoning_content":null}`)
	twice := chunk(`{"reasoning":"e","reasoning":"f"}`)
	for _, tc := range []struct{ name, in, want string }{
		{"a reasoning_content run", rc("x") + rc(`\"y\u00e9`) + rc("") + rc("<z>"), merged("reasoning_content", `x\"yé<z>`)},
		{"a reasoning run", r("x") + r("y") + r("z"), merged("reasoning", "xyz")},
		{"reasoning next to content never merges", rc("a") + rc("b") + text("c") + text("d") + rc("e") + rc("f"),
			merged("reasoning_content", "ab") + merged("content", "cd") + merged("reasoning_content", "ef")},
		{"the two names never merge", rc("a") + rc("b") + r("c") + r("d") + rc("e"),
			merged("reasoning_content", "ab") + merged("reasoning", "cd") + rc("e")},
		{"a chunk with both names passes", rc("a") + rc("b") + both + r("c") + r("d"),
			merged("reasoning_content", "ab") + both + merged("reasoning", "cd")},
		{"a chunk with reasoning and content passes", rc("a") + rc("b") + withText + rc("c") + rc("d"),
			merged("reasoning_content", "ab") + withText + merged("reasoning_content", "cd")},
		{"a null passes", rc("a") + rc("b") + withNull + rc("c"), merged("reasoning_content", "ab") + withNull + rc("c")},
		{"reasoning twice", r("a") + r("b") + twice + r("c"), merged("reasoning", "ab") + twice + r("c")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeAll(tc.in); got != tc.want {
				t.Errorf("got\n%.600s\nwant\n%.600s", got, tc.want)
			}
		})
	}
}

// streamParts streams one turn of the scripted OpenAI-compatible server
// through fantasy (and the merger) and returns the parts' types, a run of
// one type counted once, the reasoning gathered from its deltas and how
// many reasoning deltas came.
func streamParts(t *testing.T, turn llmtest.Turn) (shape []fantasy.StreamPartType, reasoning string, deltas int) {
	t.Helper()
	_, m := scriptedOpenAI(t, llmtest.Sequence(turn))
	stream, err := m.(*fantasyModel).lm.Stream(context.Background(), fantasy.Call{Prompt: fantasy.Prompt{fantasy.NewUserMessage("Think.")}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for part := range stream {
		if part.Type == fantasy.StreamPartTypeError {
			t.Fatal(part.Error)
		}
		if part.Type == fantasy.StreamPartTypeReasoningDelta {
			b.WriteString(part.Delta)
			deltas++
		}
		if len(shape) == 0 || shape[len(shape)-1] != part.Type {
			shape = append(shape, part.Type)
		}
	}
	return shape, b.String(), deltas
}

// TestAReasoningStreamKeepsItsShape: 64 KiB of reasoning_content flooded
// in 4-byte deltas, then text, reach fantasy in far fewer reasoning deltas
// with the same reasoning and the same parts around them (reasoning start,
// deltas, end, then the text) as the same reasoning sent in one delta.
func TestAReasoningStreamKeepsItsShape(t *testing.T) {
	p := floodText(64 << 10)
	want, _, _ := streamParts(t, llmtest.Turn{Reasoning: p, Text: "ok"})
	shape, got, n := streamParts(t, llmtest.Turn{Reasoning: p, Text: "ok", ChunkBytes: 4})
	if got != p {
		t.Fatalf("the reasoning is %d bytes, want the %d sent (identical: %v)", len(got), len(p), got == p)
	}
	if !slices.Equal(shape, want) {
		t.Errorf("the parts ran %v, want %v as when the reasoning comes in one delta", shape, want)
	}
	if sent := len(p) / 4; n > sent/50 {
		t.Errorf("fantasy read %d reasoning deltas for %d sent back to back, want at most %d: the deltas already read were not merged", n, sent, sent/50)
	}
	t.Logf("parts %v; %d reasoning deltas for %d sent", shape, n, len(p)/4)
}
