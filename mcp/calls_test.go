package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A request that got no answer (its connection closed, its idle timeout
// ran out) says that howl got none; only an error the server sent reads
// as the server's answer.
func TestAFailedCallSaysWhetherTheServerAnswered(t *testing.T) {
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("hostile")}}, RuntimeOptions{CallTimeout: 500 * time.Millisecond})
	for _, c := range []struct{ tool, want string }{
		{"escapes", "hostile answered tools/call with an error: failed "},
		{"never", "tools/call got no answer from hostile: no progress from hostile for 500ms"},
		{"die", "tools/call got no answer from hostile: the connection closed before the answer came"},
	} {
		_, err := rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"`+c.tool+`"}`))
		if err == nil {
			t.Fatalf("%s: the call succeeded", c.tool)
		}
		msg := err.Error()
		t.Logf("%s: %q", c.tool, msg)
		if !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s: got %q, want it to begin %q", c.tool, msg, c.want)
		}
		if c.tool != "escapes" && (strings.Contains(msg, "answered") || strings.Contains(msg, "transport error")) {
			t.Errorf("%s: %q reads as if the server answered", c.tool, msg)
		}
	}
}
