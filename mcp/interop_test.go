package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
