package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// standInServer serves "hello" (a text and structuredContent) and
// "confirm", which asks for a name before it answers: on 2026-07-28 with
// an input_required result, before it with an elicitation/create request.
func standInServer(ms *server.MCPServer) {
	ms.AddTool(mcpgo.NewTool("hello"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultStructured(map[string]any{"greeting": "hello world"}, "hello world"), nil
	})
	ms.AddTool(mcpgo.NewTool("confirm"), func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		if answer := server.ElicitationResponse(req.Params.InputResponses, "name"); answer != nil {
			return mcpgo.NewToolResultText("hello " + fmtAny(answer.Content)), nil
		}
		return server.NewInputRequestBuilder("").Elicit("name", mcpgo.ElicitationParams{
			Message:         "your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}).ToolResult(), nil
	})
	// "roots-N" asks for the client's roots N times in one round, and
	// answers "answered N" once it has them.
	for _, n := range []int{MaxInputRequests, 100_000} {
		ms.AddTool(mcpgo.NewTool(fmt.Sprintf("roots-%d", n)), func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if k := len(req.Params.InputResponses); k > 0 {
				return mcpgo.NewToolResultText(fmt.Sprintf("answered %d", k)), nil
			}
			b := server.NewInputRequestBuilder("")
			for i := range n {
				b.Roots(strconv.Itoa(i))
			}
			return b.ToolResult(), nil
		})
	}
}

// newStandInServer is a standInServer that can ask for elicitation.
func newStandInServer() *server.MCPServer {
	ms := server.NewMCPServer("standin", "1.0", server.WithToolCapabilities(false), server.WithElicitation())
	standInServer(ms)
	return ms
}

func fmtAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// standInRuntime connects to a standInServer over tr in era; its
// elicitations are answered with the name "howl", and it offers one root.
func standInRuntime(t *testing.T, tr Transport, era Era) (*Runtime, *Conn) {
	t.Helper()
	sc := ServerConfig{Name: "standin", Transport: tr, Era: era, StartTimeout: 20 * time.Second}
	switch tr {
	case TransportStdio:
		sc = fixture("standin")
		sc.Era = era
	case TransportSSE:
		s := newLegacySSEServer(t)
		standInServer(s.ms)
		sc.URL = s.url
	default:
		srv := httptest.NewServer(server.NewStreamableHTTPServer(newStandInServer()))
		t.Cleanup(srv.Close)
		sc.URL = srv.URL
	}
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{
		Elicit: func(context.Context, string, ElicitRequest) (ElicitResponse, error) {
			return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"name": "howl"}}, nil
		},
		Roots: []string{t.TempDir()},
	})
	conn, err := rt.Conn("standin")
	if err != nil {
		t.Fatal(err)
	}
	return rt, conn
}

// An answer howl reads raw over HTTP (streamable, in both eras, and the
// old HTTP+SSE) reaches mcp-go's client as {}: howl has the whole result
// from the tap, and the client no longer parses a typed copy of it (on a
// 64 MiB text that parse took 2.7 s). The result the caller sees is the
// server's, whole.
func TestAnAnswerHowlReadsRawOverHTTPIsNotParsedByMCPGoToo(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   Transport
		era  Era
	}{{"http-legacy", TransportHTTP, EraLegacy}, {"http-modern", TransportHTTP, EraModern}, {"sse", TransportSSE, ""}} {
		t.Run(c.name, func(t *testing.T) {
			rt, conn := standInRuntime(t, c.tr, c.era)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sctx, sink := withRawSink(ctx)
			req := mcpgo.CallToolRequest{}
			req.Params.Name = "hello"
			// mcp-go's parse of {} fails ("content is missing"); the
			// raw sink's callers (rawResult) go by the raw result.
			typed, _ := conn.client.CallTool(sctx, req)
			if typed != nil && (len(typed.Content) != 0 || typed.StructuredContent != nil) {
				t.Errorf("mcp-go's client parsed the result howl reads raw: %+v", typed)
			}
			raw := string(sink.get())
			if !strings.Contains(raw, `"text":"hello world"`) || !strings.Contains(raw, `"structuredContent":{"greeting":"hello world"}`) {
				t.Errorf("the raw result is not the server's: %s", raw)
			}
			// Within the bounds, what the caller gets is the server's
			// result, byte for byte.
			out, err := rt.CallMeta(ctx, "mcp_invoke_standin", json.RawMessage(`{"tool":"hello"}`))
			if err != nil || string(out) != raw {
				t.Errorf("the call's result: %s %v, the server's: %s", out, err, raw)
			}
		})
	}
}

// A tool that asks for input mid-call still gets its answer over
// streamable HTTP in both eras: on 2026-07-28 its input_required result
// is mcp-go's to act on, so it is not stood in for.
func TestAToolThatAsksForInputOverHTTPGetsItsAnswerInBothEras(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			rt, _ := standInRuntime(t, TransportHTTP, era)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := rt.CallMeta(ctx, "mcp_invoke_standin", json.RawMessage(`{"tool":"confirm"}`))
			if err != nil || !strings.Contains(string(out), `hello {\"name\":\"howl\"}`) {
				t.Errorf("%s %v", out, err)
			}
		})
	}
}
