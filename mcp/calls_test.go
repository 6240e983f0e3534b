package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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

// An HTTP server that answers a call with an error status answered it:
// the message says so, without mcp-go's "transport error: " prefix, and
// does not say that no answer came.
func TestACallAnsweredWithAnHTTPErrorStatusReadsAsTheServersAnswer(t *testing.T) {
	err := callAnsweredWithAStatus(t, func(w http.ResponseWriter) {
		http.Error(w, "the database is down", http.StatusServiceUnavailable)
	})
	if err == nil {
		t.Fatal("the call succeeded")
	}
	msg := err.Error()
	want := "status answered tools/call with an error: request failed with status 503: the database is down"
	if !strings.HasPrefix(msg, want) || strings.Contains(msg, "no answer") || strings.Contains(msg, "transport error") {
		t.Errorf("got %q, want it to begin %q", msg, want)
	}
}

// An HTTP error status's body is read up to MaxErrorBodyBytes, whatever
// its length: mcp-go puts the body it read into the call's error.
func TestAnHTTPErrorStatusBodyIsReadUpToMaxErrorBodyBytes(t *testing.T) {
	err := callAnsweredWithAStatus(t, func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusInternalServerError)
		chunk := []byte(strings.Repeat("stack frame ", 1<<10))
		for range (64 << 20) / len(chunk) { // 64 MiB, stopped when howl stops reading
			if _, err := w.Write(chunk); err != nil {
				break
			}
		}
	})
	var se *ServerError
	if !errors.As(err, &se) {
		t.Fatalf("the call's error is %v, not a ServerError", err)
	}
	whole := se.Err.Error()
	if len(whole) > MaxErrorBodyBytes+1024 || !strings.Contains(whole, "MaxErrorBodyBytes") || !strings.Contains(whole, "status 500") {
		t.Errorf("the error holds %d bytes of the body (MaxErrorBodyBytes = %d), ending %q", len(whole), MaxErrorBodyBytes, whole[max(len(whole)-120, 0):])
	}
}

// callAnsweredWithAStatus is the error of a call to the tool down of a
// streamable HTTP server, status, whose answer to tools/call is written
// by answer (an error status, say).
func callAnsweredWithAStatus(t *testing.T, answer func(w http.ResponseWriter)) error {
	t.Helper()
	ms := server.NewMCPServer("status", "1.0", server.WithToolCapabilities(false))
	ms.AddTool(mcpgo.NewTool("down"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("never sent"), nil
	})
	url := handAnsweredServer(t, ms, func(w http.ResponseWriter, _ *http.Request, msg fixtureMessage) bool {
		if msg.Method != "tools/call" {
			return false
		}
		answer(w)
		return true
	})
	rt := startRuntime(t, ServerConfig{Name: "status", Transport: TransportHTTP, URL: url, Era: EraLegacy, StartTimeout: 20 * time.Second})
	_, err := rt.CallMeta(context.Background(), "mcp_invoke_status", json.RawMessage(`{"tool":"down"}`))
	return err
}
