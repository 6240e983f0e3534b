//lint:file-ignore SA1019 the fixture is a server that asks for sampling, a feature howl still answers for servers that use it
package tui

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// askServerArg makes the test binary serve the asking fixture on stdio.
const askServerArg = "ask-server"

// serveAskServer is a real MCP server (mcp-go, stdio) whose tools ask the
// client mid-call: "ask" elicits a form with the schema it is given, "ask_url"
// elicits a URL visit, and "sample" asks for a sampling/createMessage
// (of one message, role "user" unless given).
// Each returns what the client answered, so tests read what reached it.
func serveAskServer(in io.Reader, out io.Writer) error {
	s := server.NewMCPServer("ask-fixture", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("ask", mcpgo.WithString("message"), mcpgo.WithString("schema")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcpgo.ElicitationRequest{Params: mcpgo.ElicitationParams{
				Message: req.GetString("message", ""), RequestedSchema: json.RawMessage(req.GetString("schema", `{"type":"object","properties":{}}`))}})
			return elicitationResult(res, err)
		})
	s.AddTool(mcpgo.NewTool("ask_url", mcpgo.WithString("message"), mcpgo.WithString("url")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcpgo.ElicitationRequest{Params: mcpgo.ElicitationParams{
				Mode: mcpgo.ElicitationModeURL, ElicitationID: "visit-1", Message: req.GetString("message", ""), URL: req.GetString("url", "")}})
			return elicitationResult(res, err)
		})
	s.AddTool(mcpgo.NewTool("sample", mcpgo.WithString("prompt"), mcpgo.WithString("system"), mcpgo.WithString("role")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			role := mcpgo.Role(req.GetString("role", string(mcpgo.RoleUser)))
			res, err := s.RequestSampling(ctx, mcpgo.CreateMessageRequest{CreateMessageParams: mcpgo.CreateMessageParams{
				Messages:     []mcpgo.SamplingMessage{{Role: role, Content: mcpgo.NewTextContent(req.GetString("prompt", ""))}},
				SystemPrompt: req.GetString("system", ""), MaxTokens: 64}})
			if err != nil {
				return mcpgo.NewToolResultError("sampling failed: " + err.Error()), nil
			}
			b, _ := json.Marshal(res)
			return mcpgo.NewToolResultText("sampled: " + string(b)), nil
		})
	// The 2026-07-28 way (multi round-trip): the tool returns the question
	// as an input-required result, and the client retries with the answer.
	// mcp-go bridges it to a server request on older connections.
	s.AddTool(mcpgo.NewTool("ask_mrtr", mcpgo.WithString("message"), mcpgo.WithString("schema")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if res := server.ElicitationResponse(req.Params.InputResponses, "q"); res != nil {
				return elicitationResult(res, nil)
			}
			return server.NewInputRequestBuilder("").Elicit("q", mcpgo.ElicitationParams{Message: req.GetString("message", ""),
				RequestedSchema: json.RawMessage(req.GetString("schema", `{"type":"object","properties":{}}`))}).ToolResult(), nil
		})
	s.AddTool(mcpgo.NewTool("sample_mrtr", mcpgo.WithString("prompt")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if res := server.SamplingResponse(req.Params.InputResponses, "s"); res != nil {
				b, _ := json.Marshal(res)
				return mcpgo.NewToolResultText("sampled: " + string(b)), nil
			}
			return server.NewInputRequestBuilder("").Sample("s", mcpgo.CreateMessageParams{
				Messages:  []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(req.GetString("prompt", ""))}},
				MaxTokens: 64}).ToolResult(), nil
		})
	s.AddTool(mcpgo.NewTool("roots"),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res, err := s.RequestRoots(ctx, mcpgo.ListRootsRequest{})
			if err != nil {
				return mcpgo.NewToolResultError("roots/list failed: " + err.Error()), nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return mcpgo.NewToolResultText("roots: " + strings.Join(uris, " ")), nil
		})
	return server.NewStdioServer(s).Listen(context.Background(), in, out)
}

// elicitationResult is the client's answer as the tool's text.
func elicitationResult(res *mcpgo.ElicitationResult, err error) (*mcpgo.CallToolResult, error) {
	if err != nil {
		return mcpgo.NewToolResultError("elicitation failed: " + err.Error()), nil
	}
	b, _ := json.Marshal(map[string]any{"action": res.Action, "content": res.Content})
	return mcpgo.NewToolResultText("answered: " + string(b)), nil
}

// askServer is the config entry of the asking fixture, allowed to sample.
func askServer(name string) mcp.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: exe, Args: []string{askServerArg},
		Era: mcp.EraLegacy, Sampling: true, StartTimeout: 30 * time.Second}
}

// askBench is the TUI driven synchronously (a harness) over a runtime whose
// elicitations and sampling requests go through a Relay to the program, as
// in production: the relay's goroutine hands its messages to the test,
// which feeds them to Update. The clock is the test's.
type askBench struct {
	t     *testing.T
	h     *harness
	rt    *mcp.Runtime
	relay *Relay
	msgs  chan tea.Msg
	now   time.Time
}

// newAskBench starts the asking fixture and the TUI (120x40) on it.
func newAskBench(t *testing.T, o Options) *askBench {
	t.Helper()
	return newAskBenchOn(t, o, mcp.EraLegacy)
}

// newAskBenchOn is newAskBench on a protocol era.
func newAskBenchOn(t *testing.T, o Options, era mcp.Era) *askBench {
	t.Helper()
	b := &askBench{t: t, relay: NewRelay(), msgs: make(chan tea.Msg, 256), now: time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)}
	sc := askServer("asker")
	sc.Era = era
	b.rt = mcp.NewRuntime(&mcp.Config{Servers: []mcp.ServerConfig{sc}}, mcp.RuntimeOptions{
		CacheDir: filepath.Join(testCacheDir, "cache"), Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")),
		OnEvent: b.relay.Push, Elicit: b.relay.Elicit, Sample: b.relay.Sample,
	})
	if err := b.rt.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.rt.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := b.rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.relay.Run(rctx, func(msg tea.Msg) {
			select {
			case b.msgs <- msg:
			case <-rctx.Done():
			}
		})
	}()
	t.Cleanup(func() { stop(); wg.Wait() })

	g := &guardRuntime{inner: b.rt, t: t}
	o.Runtime, o.Servers, o.Theme, o.Tick, o.DisplayPath = g, []string{"asker"}, testTheme(), noTick, displayTestPath
	o.Now = func() time.Time { return b.now }
	m := New(o)
	if !o.StartInChat {
		m.setChatMode(false) // the dialogs are drawn over the catalog, with or without a model
	}
	b.h = &harness{t: t, m: m, rt: g, clip: &fakeClipboard{}}
	t.Cleanup(m.Close)
	b.h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	b.h.run(m.Init())
	t.Cleanup(b.h.dumpOnFailure)
	return b
}

// call invokes a fixture tool through the model's meta-function, on its
// own goroutine (it blocks until the person answers); the channel gets
// the tool's text, or the error.
func (b *askBench) call(ctx context.Context, tool string, args map[string]any) <-chan string {
	raw, _ := json.Marshal(map[string]any{"tool": tool, "arguments": args})
	out := make(chan string, 1)
	go func() {
		res, err := b.rt.CallMeta(ctx, "mcp_invoke_asker", raw)
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- strings.Join(jsonStrings(res), "\n")
	}()
	return out
}

// jsonStrings are every string in a JSON document (the meta-function's
// envelope carries the tool's text as one).
func jsonStrings(raw []byte) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []string{string(raw)}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// pumpUntil feeds the relay's messages to the program until cond holds;
// cond may also wait on other goroutines (askers), so it is checked
// between messages too.
func (b *askBench) pumpUntil(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.After(30 * time.Second)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case msg := <-b.msgs:
			b.h.send(msg)
		case <-poll.C:
		case <-deadline:
			b.t.Fatalf("waited 30s for %s", what)
		}
	}
}

// waitDialog waits for a dialog with id on top, then steps the clock past
// its grace period.
func (b *askBench) waitDialog(id string) {
	b.t.Helper()
	b.pumpUntil("the "+id+" dialog", func() bool { d := b.h.m.dialogs.Top(); return d != nil && d.ID() == id })
	b.now = b.now.Add(common.PermissionGrace + time.Millisecond)
}

// result waits for a call's text.
func (b *askBench) result(out <-chan string) string {
	b.t.Helper()
	select {
	case s := <-out:
		return s
	case <-time.After(30 * time.Second):
		b.t.Fatal("the call did not return within 30s")
		return ""
	}
}
