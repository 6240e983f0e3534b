package llm

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// benchSteps is how many tool round trips one benchmarked run makes.
const benchSteps = 5

// BenchmarkToolRoundTrip measures the loop's own cost per tool round trip
// (the model's request with a call, dispatch, the result sent back), against
// a scripted model that answers at once and the demo server over stdio. It
// times the same MCP call alone in the same iterations and reports the
// difference per round trip as overhead-µs/roundtrip (budget: 2000). The
// scripted server runs in this process, so its own time is reported too
// (fake-model-µs/roundtrip) and left out of overhead-without-fake.
func BenchmarkToolRoundTrip(b *testing.B) {
	rt := startDemo(b, mcp.RuntimeOptions{})
	const args = `{"tool":"echo","arguments":{"message":"hello"}}`
	script := func(_ int, req llmtest.Request) llmtest.Turn {
		results := 0
		for _, m := range req.Messages {
			if len(m.ToolResults) > 0 {
				results++
			}
		}
		if results < benchSteps {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_invoke_demo", Arguments: args}}}
		}
		return llmtest.Turn{Text: "done"}
	}
	for _, p := range []struct {
		name  string
		start func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
	}{{"openai", scriptedOpenAI}, {"anthropic", scriptedAnthropic}} {
		b.Run(p.name, func(b *testing.B) {
			srv, model := p.start(b, script)
			agent := NewAgent(model, rt, Options{})
			ctx := context.Background()
			var mcpTime, loopTime, fakeTime time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				for range benchSteps {
					if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", json.RawMessage(args)); err != nil {
						b.Fatal(err)
					}
				}
				mcpTime += time.Since(t0)
				conv := NewConversation()
				conv.AddUser("Search five times.")
				busy := srv.Busy()
				t1 := time.Now()
				if err := agent.Run(ctx, conv, nil); err != nil {
					b.Fatal(err)
				}
				loopTime += time.Since(t1)
				fakeTime += srv.Busy() - busy
			}
			n := float64(b.N * benchSteps)
			b.ReportMetric(float64(mcpTime.Microseconds())/n, "mcp-µs/call")
			b.ReportMetric(float64(loopTime.Microseconds())/n, "loop-µs/roundtrip")
			b.ReportMetric(float64(fakeTime.Microseconds())/n, "fake-model-µs/roundtrip")
			b.ReportMetric(float64((loopTime-mcpTime).Microseconds())/n, "overhead-µs/roundtrip")
			b.ReportMetric(float64((loopTime-mcpTime-fakeTime).Microseconds())/n, "overhead-without-fake-µs/roundtrip")
		})
	}
}
