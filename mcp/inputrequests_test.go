package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A result asking for more than MaxInputRequests inputs in one round
// fails its request before mcp-go's client acts on it (a goroutine for
// each, then a retry carrying every answer); one asking for
// MaxInputRequests is answered. Over every transport; on 2026-07-28,
// where a result asks (before it, mcp-go's server sends requests instead,
// and the old HTTP+SSE server here still answers with the result).
func TestAResultAskingForTooManyInputsFailsBeforeTheClientAnswersThem(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   Transport
		era  Era
	}{
		{"stdio", TransportStdio, EraModern}, {"http", TransportHTTP, EraModern}, {"sse", TransportSSE, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt, _ := standInRuntime(t, c.tr, c.era)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			out, err := rt.CallMeta(ctx, "mcp_invoke_standin", json.RawMessage(`{"tool":"roots-16"}`))
			if err != nil || !strings.Contains(string(out), "answered 16") {
				t.Errorf("%d inputs in a round: %s %v", MaxInputRequests, out, err)
			}
			out, err = rt.CallMeta(ctx, "mcp_invoke_standin", json.RawMessage(`{"tool":"roots-100000"}`))
			if err == nil && !strings.Contains(string(out), `"isError":true`) || !strings.Contains(string(out)+errString(err), "asked for 100000 inputs") {
				t.Errorf("100,000 inputs in a round: %s %v", out, err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
