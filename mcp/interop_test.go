package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/howl-mcp/howl/render"
)

// interopEnv points at the node_modules of .ci/interop, where .ci/run
// installs the pinned third-party reference servers with npm ci.
const interopEnv = "HOWL_INTEROP_DIR"

// peer returns the config entry for a pinned reference server, skipping
// loudly when the interop peers are not installed.
func peer(t testing.TB, name, pkgDir string, args ...string) ServerConfig {
	t.Helper()
	dir := os.Getenv(interopEnv)
	if dir == "" {
		t.Skipf("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && %s=$PWD/.ci/interop/node_modules go test ./mcp -run Interop", interopEnv)
	}
	script := filepath.Join(dir, pkgDir, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s is set but %s is missing: run npm ci in .ci/interop", interopEnv, script)
	}
	return ServerConfig{Name: name, Transport: TransportStdio, Command: "node", Args: append([]string{script}, args...), StartTimeout: 30 * time.Second}
}

func TestInteropEverything2025ListsAllHundredResourcesAndClosesIn3s(t *testing.T) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{peer(t, "everything2025", "server-everything-2025", "stdio")}}, RuntimeOptions{CacheDir: t.TempDir()})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ := rt.ServerStatus("everything2025")
	if st.State != StateReady {
		rt.Close()
		t.Fatalf("state %s: %s\n%s", st.State, st.Reason, st.StderrTail)
	}
	t.Logf("server-everything 2025.11.25: ready in %d ms, protocol %s", *st.ReadyMillis, st.Protocol)
	cat, err := rt.Catalog(ctx, "everything2025", false)
	if err != nil {
		t.Fatal(err)
	}
	if n := cat.Count(KindResource); n != 100 {
		t.Errorf("resources = %d, want all 100 (it pages them 10 at a time)", n)
	}
	if len(cat.Warnings) > 0 {
		t.Errorf("warnings: %v", cat.Warnings)
	}
	conn, _ := rt.Conn("everything2025")
	began := time.Now()
	rt.Close()
	took := time.Since(began)
	t.Logf("Close took %v (this version never exits on stdin EOF)", took)
	if took > 3*time.Second {
		t.Errorf("Close took %v, want under 3s", took)
	}
	if conn.cmd.ProcessState == nil {
		t.Error("server still running after Close")
	}
}

func TestInteropEverythingCurrentListsEveryKind(t *testing.T) {
	rt := startRuntime(t, peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"))
	st, _ := rt.ServerStatus("everything")
	if st.State != StateReady {
		t.Fatalf("state %s: %s\n%s", st.State, st.Reason, st.StderrTail)
	}
	t.Logf("server-everything 2026.8.31: ready in %d ms, protocol %s", *st.ReadyMillis, st.Protocol)
	cat, err := rt.Catalog(context.Background(), "everything", false)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Count(KindTool) == 0 {
		t.Error("no tools")
	}
	if n := cat.Count(KindResource); n != 7 {
		t.Errorf("resources = %d, want 7", n)
	}
	if n := cat.Count(KindTemplate); n != 2 {
		t.Errorf("templates = %d, want 2", n)
	}
	if n := cat.Count(KindPrompt); n != 4 {
		t.Errorf("prompts = %d, want 4", n)
	}
	for _, it := range cat.Of(KindTemplate) {
		if !strings.Contains(it.ID, "{") || len(it.Variables) == 0 {
			t.Errorf("template %q: variables %v", it.ID, it.Variables)
		}
	}
	if len(cat.Warnings) > 0 {
		t.Errorf("warnings: %v", cat.Warnings)
	}
}

// BenchmarkTimeToReady measures spawn-to-handshake for the demo server and,
// with the interop peers installed, the current server-everything.
func BenchmarkTimeToReady(b *testing.B) {
	run := func(b *testing.B, sc ServerConfig) {
		dir := b.TempDir()
		for b.Loop() {
			rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: dir})
			_ = rt.Start()
			_ = rt.Wait(context.Background())
			st, _ := rt.ServerStatus(sc.Name)
			if st.State != StateReady {
				b.Fatalf("%s: %s", st.State, st.Reason)
			}
			b.StopTimer()
			rt.Close()
			b.StartTimer()
		}
	}
	b.Run("demo", func(b *testing.B) { run(b, fixture("demo")) })
	b.Run("everything-2026.8.31", func(b *testing.B) {
		run(b, peer(b, "everything", "@modelcontextprotocol/server-everything", "stdio"))
	})
	b.Run("everything-2025.11.25", func(b *testing.B) {
		run(b, peer(b, "everything2025", "server-everything-2025", "stdio"))
	})
}

func TestInteropEverythingThroughTheMetaFunctions(t *testing.T) {
	spill := t.TempDir()
	rt := NewRuntime(&Config{Servers: []ServerConfig{
		peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"),
		peer(t, "everything2025", "server-everything-2025", "stdio"),
	}}, RuntimeOptions{CacheDir: t.TempDir(), Spill: render.NewSpillStore(spill)})
	defer rt.Close()
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)

	// A blob resource through a template (its blob is UTF-8 text: inlined).
	out := call(t, rt, "mcp_read_everything", `{"uri":"demo://resource/dynamic/blob/{resourceId}","arguments":{"resourceId":3}}`)
	if !strings.Contains(string(out), `"uri":"demo://resource/dynamic/blob/3"`) || !strings.Contains(string(out), `"sniffed":true`) {
		t.Errorf("blob template read: %s", out)
	}
	// The 2025 version's even resources are blobs, odd ones text.
	for _, n := range []string{"1", "2"} {
		out := call(t, rt, "mcp_read_everything2025", `{"uri":"test://static/resource/`+n+`"}`)
		if !strings.Contains(string(out), "Resource "+n) {
			t.Errorf("resource %s: %s", n, out)
		}
	}
	// The argument prompt, required argument missing, then given.
	if _, err := rt.CallMeta(ctx, "mcp_prompt_everything", json.RawMessage(`{"prompt":"args-prompt"}`)); err == nil || !strings.Contains(err.Error(), `"city"`) {
		t.Errorf("missing city: %v", err)
	}
	out = call(t, rt, "mcp_prompt_everything", `{"prompt":"args-prompt","arguments":{"city":"Paris"}}`)
	if !strings.Contains(string(out), `"text":"[user]\nWhat's weather in Paris?`) {
		t.Errorf("args-prompt: %s", out)
	}
	// A multi-message prompt with an assistant turn and an image.
	out = call(t, rt, "mcp_prompt_everything2025", `{"prompt":"complex_prompt","arguments":{"temperature":"0.5"}}`)
	if !strings.Contains(string(out), `[assistant]\n`) || !strings.Contains(string(out), "[image saved to "+spill) {
		t.Errorf("complex_prompt: %s", out)
	}
	// A tool returning an image: spilled, no base64.
	out = call(t, rt, "mcp_invoke_everything", `{"tool":"get-tiny-image"}`)
	if !strings.Contains(string(out), `"spilled":true`) || strings.Contains(string(out), "iVBOR") {
		t.Errorf("get-tiny-image: %.400s", out)
	}
}

// interopRuntime starts the named peers with an event hook and waits.
func interopRuntime(t *testing.T, onEvent func(Event), servers ...ServerConfig) *Runtime {
	t.Helper()
	rt := NewRuntime(&Config{Servers: servers}, RuntimeOptions{CacheDir: t.TempDir(), Spill: render.NewSpillStore(t.TempDir()), OnEvent: onEvent})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	for _, s := range servers {
		if st, _ := rt.ServerStatus(s.Name); st.State != StateReady {
			t.Fatalf("%s: %s %s\n%s", s.Name, st.State, st.Reason, st.StderrTail)
		}
	}
	return rt
}

func TestInteropEveryPromptWithAndWithoutArgumentsAndCompletion(t *testing.T) {
	rt := interopRuntime(t, nil,
		peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"),
		peer(t, "everything2025", "server-everything-2025", "stdio"))
	ctx := context.Background()
	completed := 0
	for _, server := range []string{"everything", "everything2025"} {
		cat, err := rt.Catalog(ctx, server, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range cat.Of(KindPrompt) {
			required := MissingArguments(p, nil)
			// Without arguments: fine, or a teaching error naming each required one.
			_, err := rt.CallMeta(ctx, "mcp_prompt_"+server, json.RawMessage(`{"prompt":"`+p.ID+`"}`))
			if len(required) == 0 && err != nil {
				t.Errorf("%s/%s without arguments: %v", server, p.ID, err)
			}
			for _, a := range required {
				if err == nil || !strings.Contains(err.Error(), `"`+a.Name+`"`) {
					t.Errorf("%s/%s: missing %q not named: %v", server, p.ID, a.Name, err)
				}
			}
			// With every argument: values from the server's completion
			// where it has some (earlier values as context), else a guess.
			args := map[string]string{}
			for _, a := range p.Arguments {
				c, err := rt.Complete(ctx, server, KindPrompt, p.ID, a.Name, "", args)
				if err != nil {
					t.Errorf("%s/%s: completing %s: %v", server, p.ID, a.Name, err)
				}
				if len(c.Values) > 0 {
					args[a.Name] = c.Values[0]
					completed++
				} else {
					args[a.Name] = "1"
				}
			}
			b, _ := json.Marshal(map[string]any{"prompt": p.ID, "arguments": args})
			out, err := rt.CallMeta(ctx, "mcp_prompt_"+server, b)
			if err != nil || !strings.Contains(string(out), `"text":"[user]\n`) {
				t.Errorf("%s/%s with %v: %.200s %v", server, p.ID, args, out, err)
			}
		}
	}
	if completed == 0 {
		t.Error("no prompt argument got a completion from either server")
	}
	t.Logf("%d argument values came from server completion", completed)
}

func TestInteropLongRunningToolReportsProgress(t *testing.T) {
	var progress atomic.Int64
	rt := interopRuntime(t, func(e Event) {
		if e.Method == "notifications/progress" {
			progress.Add(1)
		}
	}, peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"))
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_everything", json.RawMessage(`{"tool":"trigger-long-running-operation","arguments":{"duration":1,"steps":4}}`))
	if err != nil || !strings.Contains(string(out), "completed") {
		t.Fatalf("%s %v", out, err)
	}
	if n := progress.Load(); n < 4 {
		t.Errorf("%d progress notifications for 4 steps", n)
	}
}

func TestInteropFilesystemAndMemory(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the root"), 0o644); err != nil {
		t.Fatal(err)
	}
	memory := peer(t, "memory", "@modelcontextprotocol/server-memory")
	memory.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	rt := interopRuntime(t, nil, peer(t, "filesystem", "@modelcontextprotocol/server-filesystem", root), memory)
	ctx := context.Background()
	// server-filesystem is tools-only: the absent kinds are absent, not failures.
	st, _ := rt.ServerStatus("filesystem")
	cat, _ := rt.Catalog(ctx, "filesystem", false)
	if st.Features.Resources || st.Features.Prompts || len(cat.Warnings) > 0 || cat.Count(KindTool) == 0 {
		t.Errorf("filesystem: features %+v, warnings %v, %d tools", st.Features, cat.Warnings, cat.Count(KindTool))
	}
	if got := names(DeclarationsFor(*st.Features)); len(got) != 3 {
		t.Errorf("filesystem declarations: %v", got)
	}
	b, _ := json.Marshal(map[string]any{"tool": "read_text_file", "arguments": map[string]any{"path": filepath.Join(root, "hello.txt")}})
	out, err := rt.CallMeta(ctx, "mcp_invoke_filesystem", b)
	if err != nil || !strings.Contains(string(out), "hello from the root") {
		t.Errorf("read_text_file: %s %v", out, err)
	}
	// server-memory's resource.
	out = call(t, rt, "mcp_invoke_memory", `{"tool":"create_entities","arguments":{"entities":[{"name":"howl","entityType":"client","observations":["reads MCP servers"]}]}}`)
	if !strings.Contains(string(out), "howl") || strings.Contains(string(out), `"isError":true`) {
		t.Errorf("create_entities: %s", out)
	}
	out = call(t, rt, "mcp_read_memory", `{"uri":"memory://knowledge-graph"}`)
	if !strings.Contains(string(out), "reads MCP servers") {
		t.Errorf("memory graph: %s", out)
	}
}

func TestInteropEverythingAddsElicitationToolsAndHowlAnswersThem(t *testing.T) {
	sc := peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio")
	var asked atomic.Int64
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: t.TempDir(),
		Elicit: func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error) {
			asked.Add(1)
			return acceptWithName(req), nil
		}})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	// Declaring elicitation makes the server register more tools and send
	// tools/list_changed: the catalog must hold the full list.
	cat, err := rt.Catalog(context.Background(), "everything", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup(KindTool, "trigger-elicitation-request"); !ok {
		t.Fatalf("the elicitation tool is missing: %d tools", cat.Count(KindTool))
	}
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_everything", json.RawMessage(`{"tool":"trigger-elicitation-request"}`))
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 1 || !strings.Contains(string(out), "accept") {
		t.Errorf("asked %d times; result %.300s", asked.Load(), out)
	}
}

// acceptWithName answers server-everything's elicitation form as a person
// would: its one required field (name, which has no default) filled in,
// the rest left at their defaults.
func acceptWithName(req ElicitRequest) ElicitResponse {
	content := SchemaDefaults(req.Schema)
	content["name"] = "Ada"
	return ElicitResponse{Action: ElicitAccept, Content: content}
}
