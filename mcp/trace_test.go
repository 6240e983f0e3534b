package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// With tracing on, every request to a server is reported with what it
// named, how long it took and its size or error, on both eras; with it
// off, nothing is.
func TestTracingReportsEachRequestOnlyWhileOn(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var log eventLog
			rt := startDemo(t, era, RuntimeOptions{OnEvent: log.add})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			echo, _ := json.Marshal(map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": "hi"}})
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", echo); err != nil {
				t.Fatal(err)
			}
			traces := func() []RPCTrace {
				log.mu.Lock()
				defer log.mu.Unlock()
				var out []RPCTrace
				for _, e := range log.ev {
					if e.Kind == EventTrace {
						out = append(out, *e.Trace)
					}
				}
				return out
			}
			if got := traces(); len(got) != 0 {
				t.Fatalf("tracing is off, yet %d requests were traced: %+v", len(got), got)
			}

			rt.SetTracing(true)
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", echo); err != nil {
				t.Fatal(err)
			}
			broken, _ := json.Marshal(map[string]any{"uri": demo.BrokenURI})
			_, _ = rt.CallMeta(ctx, "mcp_read_demo", broken)
			rt.SetTracing(false)
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", echo); err != nil {
				t.Fatal(err)
			}

			var call, read *RPCTrace
			got := traces()
			for i := range got {
				switch got[i].Method {
				case "tools/call":
					call = &got[i]
				case "resources/read":
					read = &got[i]
				}
			}
			if call == nil || call.Target != demo.EchoTool || call.Bytes == 0 || call.Err != "" || call.Duration <= 0 {
				t.Errorf("the echo call's trace = %+v; want tools/call naming echo, with its size and time", call)
			}
			if read == nil || read.Target != demo.BrokenURI || !strings.Contains(read.Err, "always fails to read") || read.Bytes != 0 {
				t.Errorf("the broken read's trace = %+v; want resources/read naming the URI, with its error", read)
			}
			calls := 0
			for _, tr := range got {
				if tr.Method == "tools/call" {
					calls++
				}
			}
			if calls != 1 {
				t.Errorf("%d tools/call traced, want only the one made while tracing was on: %+v", calls, got)
			}
		})
	}
}

// A request howl withdraws (the person cancelled it) is traced as
// cancelled, not as a failure with a Go error's text.
func TestTracingSaysCancelledForAWithdrawnRequest(t *testing.T) {
	var log eventLog
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{OnEvent: log.add})
	rt.SetTracing(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	slow, _ := json.Marshal(map[string]any{"tool": demo.SlowTool, "arguments": map[string]any{"duration_ms": 10000}})
	if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", slow); err == nil {
		t.Fatal("the slow call outlived its context")
	}
	e := log.waitFor(t, "the slow call's trace", func(e Event) bool { return e.Kind == EventTrace && e.Trace.Method == "tools/call" })
	if line := e.Trace.String(); !e.Trace.Cancelled || !strings.HasPrefix(line, "→ tools/call slow · ") || !strings.HasSuffix(line, " · cancelled") {
		t.Errorf("the withdrawn call is traced as %+v: %q", e.Trace, line)
	}
}

// A server's own requests (roots, elicitation) are traced with howl's
// answer, on both eras (2026-07-28 asks inside the call's result).
func TestTracingShowsWhatAServerAskedAndHowlAnswered(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var log eventLog
			decline := func(context.Context, string, ElicitRequest) (ElicitResponse, error) {
				return ElicitResponse{Action: ElicitDecline}, nil
			}
			rt := startDemo(t, era, RuntimeOptions{OnEvent: log.add, Roots: []string{t.TempDir()}, Elicit: decline})
			rt.SetTracing(true)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, tool := range []string{demo.RootsTool, demo.BookTableTool} {
				args, _ := json.Marshal(map[string]any{"tool": tool})
				if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					t.Fatal(err)
				}
			}
			for _, want := range []string{"← roots/list · ", " · answered 1 root", "← elicitation/create · ", " · answered decline"} {
				log.waitFor(t, want, func(e Event) bool { return e.Kind == EventTrace && strings.Contains(e.Trace.String(), want) })
			}
		})
	}
}
