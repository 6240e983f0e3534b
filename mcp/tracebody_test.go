package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// Bodies ride on the trace only while SetTraceBodies is on: the call's
// params and the raw result, sized, on both eras.
func TestTraceCarriesBodiesOnlyWhileBodiesAreOn(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var log eventLog
			rt := startDemo(t, era, RuntimeOptions{OnEvent: log.add})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			echo, _ := json.Marshal(map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": "body check"}})
			rt.SetTracing(true)
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", echo); err != nil {
				t.Fatal(err)
			}
			rt.SetTraceBodies(true)
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", echo); err != nil {
				t.Fatal(err)
			}
			var calls []RPCTrace
			log.mu.Lock()
			for _, e := range log.ev {
				if e.Kind == EventTrace && e.Trace.Method == "tools/call" {
					calls = append(calls, *e.Trace)
				}
			}
			log.mu.Unlock()
			if len(calls) != 2 {
				t.Fatalf("%d calls traced, want 2", len(calls))
			}
			if calls[0].Request != nil || calls[0].Response != nil {
				t.Errorf("bodies kept while off: %+v", calls[0])
			}
			c := calls[1]
			if !strings.Contains(string(c.Request), `"body check"`) || !strings.Contains(string(c.Response), `body check`) ||
				c.ResponseBytes != c.Bytes || c.RequestBytes != len(c.Request) || c.At.IsZero() {
				t.Errorf("the bodies are wrong: %+v", c)
			}
			rec := c.Record("demo")
			if rec.Direction != TraceSent || rec.Outcome != "ok" || rec.Target != demo.EchoTool {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

func TestTraceBodyOverTheBoundIsCutToAJSONStringWithItsSize(t *testing.T) {
	big := []byte(`{"text":"` + strings.Repeat("é", MaxTraceBodyBytes) + `"}`)
	body, n, cut := traceRaw(big)
	if !cut || n != len(big) || !json.Valid(body) || body[0] != '"' {
		t.Fatalf("cut %v, size %d of %d, valid %v", cut, n, len(big), json.Valid(body))
	}
	var s string
	_ = json.Unmarshal(body, &s)
	if len(s) > MaxTraceBodyBytes+3 || !strings.HasPrefix(s, `{"text":"éé`) {
		t.Errorf("kept %d bytes, want at most %d (MaxTraceBodyBytes)", len(s), MaxTraceBodyBytes)
	}
	small := []byte(`{"a":1}`)
	if body, n, cut := traceRaw(small); cut || n != len(small) || string(body) != string(small) {
		t.Errorf("a small body changed: %s %d %v", body, n, cut)
	}
}
