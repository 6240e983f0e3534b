package mcp

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/mcptest"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// textAnswerBytes is the text of the "text64" tool's answer.
const textAnswerBytes = 64 << 20

// addTextTool adds "text64" to ms: mcp-go's own answer of one text item
// of textAnswerBytes (the fixture holds the text once, for every call).
func addTextTool(ms *server.MCPServer) {
	text := strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", textAnswerBytes/32)
	ms.AddTool(mcpgo.NewTool("text64"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText(text), nil
	})
}

// textToolRuntime connects to a fixture whose "text64" tool mcp-go's
// server answers: over streamable HTTP (tr is TransportHTTP, in era), or
// the old HTTP+SSE transport (TransportSSE).
func textToolRuntime(tb testing.TB, tr Transport, era Era) *Runtime {
	tb.Helper()
	sc := ServerConfig{Name: "text", Transport: tr, Era: era, StartTimeout: 20 * time.Second}
	if tr == TransportSSE {
		s := newLegacySSEServer(tb)
		addTextTool(s.ms)
		sc.URL = s.url
	} else {
		ms := server.NewMCPServer("text", "1.0", server.WithToolCapabilities(false))
		addTextTool(ms)
		srv := httptest.NewServer(server.NewStreamableHTTPServer(ms, server.WithStateLess(true)))
		tb.Cleanup(srv.Close)
		sc.URL = srv.URL
	}
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: tb.TempDir()})
	tb.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	if st, _ := rt.ServerStatus("text"); st.State != StateReady {
		tb.Fatalf("text: %s %s", st.State, st.Reason)
	}
	return rt
}

// BenchmarkToolTextAnswer64MiBOverHTTP is one `howl call` (mcp_invoke,
// bounding included) of a tool whose answer mcp-go's server makes: one
// text item of 64 MiB, over streamable HTTP in both eras and the old
// HTTP+SSE transport. The fixture server runs in the benchmark's process,
// so its own encoding of the answer is in the time, B/op and peak too;
// peak-MiB is the most heap live during a call above what was live
// before it, peak-x that over the answer's size.
func BenchmarkToolTextAnswer64MiBOverHTTP(b *testing.B) {
	for _, c := range []struct {
		name string
		tr   Transport
		era  Era
	}{{"http-legacy", TransportHTTP, EraLegacy}, {"http-modern", TransportHTTP, EraModern}, {"sse", TransportSSE, ""}} {
		b.Run(c.name, func(b *testing.B) {
			rt := textToolRuntime(b, c.tr, c.era)
			b.SetBytes(textAnswerBytes)
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				h := mcptest.WatchMemory(math.MaxUint64, nil)
				out, err := rt.CallMeta(context.Background(), "mcp_invoke_text", json.RawMessage(`{"tool":"text64"}`))
				peak = max(peak, h.Held())
				if err != nil || !strings.Contains(string(out), "text sliced") {
					b.Fatalf("%.300s %v", out, err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(peak)/textAnswerBytes, "peak-x")
		})
	}
}
