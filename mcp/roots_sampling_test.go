package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

func TestInteropRootsAreOfferedAndTheirChangeIsAnnounced(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sc := peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio")
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Roots: []string{a}, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := rt.CallMeta(ctx, "mcp_invoke_everything", json.RawMessage(`{"tool":"get-roots-list"}`))
	if err != nil || !strings.Contains(string(out), a) {
		t.Fatalf("get-roots-list = %s, %v; want %s", out, err, a)
	}
	if err := rt.SetRoots(ctx, []string{b}); err != nil {
		t.Fatal(err)
	}
	var last []byte
	for i := 0; i < 50; i++ { // the server re-asks after roots/list_changed
		last, err = rt.CallMeta(ctx, "mcp_invoke_everything", json.RawMessage(`{"tool":"get-roots-list"}`))
		if err == nil && strings.Contains(string(last), b) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("after SetRoots, get-roots-list = %s, %v; want %s", last, err, b)
}

// server-filesystem replaces the directories on its command line with the
// client's roots: with howl offering roots, the roots are what it serves.
func TestInteropFilesystemServesTheClientsRootsInsteadOfItsArguments(t *testing.T) {
	configured, offered := t.TempDir(), t.TempDir()
	sc := peer(t, "filesystem", "@modelcontextprotocol/server-filesystem", configured)
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Roots: []string{offered}, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []byte
	var err error
	for i := 0; i < 50; i++ {
		out, err = rt.CallMeta(ctx, "mcp_invoke_filesystem", json.RawMessage(`{"tool":"list_allowed_directories"}`))
		if err == nil && strings.Contains(string(out), offered) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || !strings.Contains(string(out), offered) || strings.Contains(string(out), configured) {
		t.Fatalf("allowed directories = %s, %v; want only the offered root %s (not %s)", out, err, offered, configured)
	}
}

func TestInteropSamplingIsDeclaredOnlyForEntriesThatAllowIt(t *testing.T) {
	var asked atomic.Int32
	sample := func(ctx context.Context, server string, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
		asked.Add(1)
		return &mcpgo.CreateMessageResult{
			SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("sampled by " + server)},
			Model:           "approved-by-a-person", StopReason: "endTurn",
		}, nil
	}
	on := peer(t, "on", "@modelcontextprotocol/server-everything", "stdio")
	on.Sampling = true
	off := peer(t, "off", "@modelcontextprotocol/server-everything", "stdio")
	rt := startReady(t, &Config{Servers: []ServerConfig{on, off}}, RuntimeOptions{Sample: sample, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	offCat, err := rt.Catalog(ctx, "off", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := offCat.Lookup(KindTool, "trigger-sampling-request"); ok {
		t.Fatal("a server whose entry does not allow sampling was told howl samples")
	}
	out, err := rt.CallMeta(ctx, "mcp_invoke_on", json.RawMessage(`{"tool":"trigger-sampling-request","arguments":{"prompt":"hi","maxTokens":20}}`))
	if err != nil || !strings.Contains(string(out), "sampled by on") || asked.Load() != 1 {
		t.Fatalf("trigger-sampling-request = %s, %v (asked %d)", out, err, asked.Load())
	}
}

func TestSetLogLevelChecksTheLevelAndAsksTheServer(t *testing.T) {
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{})
	ctx := context.Background()
	if err := rt.SetLogLevel(ctx, "demo", "debug"); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetLogLevel(ctx, "demo", "loud"); err == nil || !strings.Contains(err.Error(), "not one of debug") {
		t.Fatalf("bad level: %v", err)
	}
}

func TestRuntimeWithoutRootsRefusesSetRoots(t *testing.T) {
	rt := NewRuntime(&Config{}, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	if err := rt.SetRoots(context.Background(), []string{"/tmp"}); err == nil {
		t.Fatal("SetRoots on a runtime that declared no roots succeeded")
	}
}

// The demo's summarize samples through howl; the answer comes back on both
// eras, and when howl cannot answer (the person declined, no model) the
// call fails with that reason. On 2026-07-28 the call's last raw result
// is then the round that asked, which must never pass for the answer.
func TestSamplingThroughTheDemoAnswersOrFailsWithTheReason(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			decline := atomic.Bool{}
			sample := func(ctx context.Context, server string, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
				if decline.Load() {
					return nil, errors.New("the person said no")
				}
				return &mcpgo.CreateMessageResult{Model: "m1", StopReason: "endTurn",
					SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("short.")}}, nil
			}
			sc := fixture("demo")
			sc.Era, sc.Sampling = era, true
			rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Sample: sample})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := json.RawMessage(`{"tool":"` + demo.SummarizeTool + `","arguments":{"text":"a long text"}}`)
			out, err := rt.CallMeta(ctx, "mcp_invoke_demo", args)
			if err != nil || !strings.Contains(string(out), "Summary by m1: short.") {
				t.Fatalf("approved: %s, %v", out, err)
			}
			decline.Store(true)
			out, err = rt.CallMeta(ctx, "mcp_invoke_demo", args)
			if err == nil || !strings.Contains(err.Error(), "the person said no") {
				t.Fatalf("declined: got %s, %v; want an error carrying the reason", out, err)
			}
		})
	}
}

func TestInteropAServersOwnRootsKeepServerFilesystemOnItsDirectory(t *testing.T) {
	configured, offered := t.TempDir(), t.TempDir()
	sc := peer(t, "filesystem", "@modelcontextprotocol/server-filesystem", configured)
	sc.Roots, sc.OwnRoots = []string{configured}, true
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Roots: []string{offered}, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.SetRoots(ctx, []string{offered, t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	out, err := rt.CallMeta(ctx, "mcp_invoke_filesystem", json.RawMessage(`{"tool":"list_allowed_directories"}`))
	if err != nil || !strings.Contains(string(out), configured) || strings.Contains(string(out), offered) {
		t.Fatalf("allowed directories = %s, %v; want the entry's own root %s (not the working directory's %s)", out, err, configured, offered)
	}
	if st, _ := rt.ServerStatus("filesystem"); len(st.Roots) != 1 || st.Roots[0] != configured {
		t.Errorf("the status must show the roots the server is offered: %v", st.Roots)
	}
}
