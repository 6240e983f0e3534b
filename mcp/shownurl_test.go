package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestShownURLCutsUserinfoQueryValuesAndFragment(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com/mcp":                       "https://example.com/mcp",
		"https://u:pw@example.com/mcp?key=s3&x=1#frag":  "https://example.com/mcp?key=…&x=…",
		"http://127.0.0.1:8080/sse?s3cr3t":              "http://127.0.0.1:8080/sse?…",
		"http://tok@127.0.0.1/mcp":                      "http://127.0.0.1/mcp",
		"http://127.0.0.1:1/mcp?key=a%20b&key=c&empty=": "http://127.0.0.1:1/mcp?key=…&key=…&empty=…",
	} {
		if got := ShownURL(raw); got != want {
			t.Errorf("ShownURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// eventsJSON is every event l kept, as JSON lines.
func eventsJSON(l *eventLog) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.ev {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// A url whose ${VAR}s fill a secret into its userinfo and query: the
// status (target and reason), the events and a call's error show it cut
// (?key=…), never the secret, whether the server cannot be reached or
// goes away after the handshake, on streamable HTTP and legacy SSE.
func TestASecretExpandedIntoTheURLShowsInNoStatusOrError(t *testing.T) {
	const secret, password = "s3cr3t-query-value", "p4ssw0rd-value"
	getenv := env(map[string]string{"SECRET": secret, "PASS": password})
	ms := server.NewMCPServer("up", "1.0", server.WithToolCapabilities(false))
	ms.AddTool(mcpgo.NewTool("echo"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("called echo"), nil
	})
	up := httptest.NewServer(server.NewStreamableHTTPServer(ms, server.WithStateLess(true)))
	t.Cleanup(up.Close)
	for _, tc := range []struct{ name, typ, base, era string }{
		{"unreachable-http", "http", "http://127.0.0.1:1", "legacy"},
		{"unreachable-sse", "sse", "http://127.0.0.1:1", "legacy"},
		// modern: no GET stream that would keep up.Close waiting
		{"gone-http", "http", up.URL, "modern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := `{"mcpServers": {"s": {"url": "` + strings.Replace(tc.base, "http://", "http://u:${PASS}@", 1) + `/mcp?key=${SECRET}", "type": "` + tc.typ + `", "protocol": "` + tc.era + `", "startTimeout": "20s"}}}`
			cfg, err := ParseConfig("c.json", []byte(raw), getenv)
			if err != nil {
				t.Fatal(err)
			}
			var events eventLog
			rt := startRuntimeWith(t, RuntimeOptions{OnEvent: events.add}, cfg.Servers...)
			if tc.base == up.URL {
				if st, _ := rt.ServerStatus("s"); st.State != StateReady {
					t.Fatalf("%s %s", st.State, st.Reason)
				}
				up.Close()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, callErr := rt.CallMeta(ctx, "mcp_invoke_s", json.RawMessage(`{"tool":"echo"}`))
			st, _ := rt.ServerStatus("s")
			status, _ := json.Marshal(st)
			shown := "status " + string(status) + "\ncall: " + errText(callErr) + "\nevents:\n" + eventsJSON(&events)
			if strings.Contains(shown, secret) || strings.Contains(shown, password) {
				t.Errorf("the secret shows:\n%s", shown)
			}
			if !strings.Contains(st.Target, "/mcp?key=…") || callErr == nil {
				t.Errorf("target %q, call error %v: want the url cut (?key=…) and the call failed", st.Target, callErr)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
