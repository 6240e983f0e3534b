package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

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
		func(p string) llmtest.Turn { return llmtest.Turn{Text: p} }, func(m Message) string { return m.Text }},
	{"chat-completions", "reasoning", scriptedOpenAI, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Reasoning: p, Text: "ok"} }, func(m Message) string { return m.Reasoning }},
	{"chat-completions", "tool-arguments", scriptedOpenAI, echoArgs,
		func(p string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_invoke_demo", Arguments: p}}}
		}, firstArguments},
	{"anthropic", "text", scriptedAnthropic, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Text: p} }, func(m Message) string { return m.Text }},
	{"anthropic", "thinking", scriptedAnthropic, same,
		func(p string) llmtest.Turn { return llmtest.Turn{Reasoning: p, Text: "ok"} }, func(m Message) string { return m.Reasoning }},
	{"anthropic", "tool-input", scriptedAnthropic, echoArgs,
		func(p string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_invoke_demo", Arguments: p}}}
		}, firstArguments},
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
// events it is handed (after the merger).
func countedModel(t testing.TB, m Model) (Model, *atomic.Int64) {
	t.Helper()
	n := new(atomic.Int64)
	cm, err := newModel(m.(*fantasyModel).choice, func(rt http.RoundTripper) http.RoundTripper { return eventCounter{rt, n} })
	if err != nil {
		t.Fatal(err)
	}
	return cm, n
}

// eventCounter counts the server-sent events its responses' readers read.
type eventCounter struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (c eventCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n  *atomic.Int64
	nl bool // the last byte read was a newline
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
			model, events := countedModel(b, m)
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
