package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextEconomy reports the declaration bytes howl sends per server
// against one declaration per tool, and pins the two properties that matter:
// howl's cost does not grow with the server, and it is at least 5x smaller
// than one-per-tool for server-everything. The table goes in the README.
func TestContextEconomy(t *testing.T) {
	servers := []ServerConfig{fixture("demo"), fixture("demo-scale")}
	if os.Getenv(interopEnv) != "" {
		dir := t.TempDir()
		memory := peer(t, "memory", "@modelcontextprotocol/server-memory")
		memory.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}
		servers = append(servers,
			peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"),
			peer(t, "everything2025", "server-everything-2025", "stdio"),
			peer(t, "filesystem", "@modelcontextprotocol/server-filesystem", dir),
			memory)
	} else {
		t.Log("interop peers not installed: measuring the demo server only (set " + interopEnv + " for the full table)")
	}
	rt := startRuntime(t, servers...)
	var rows []Economy
	byName := map[string]Economy{}
	for _, f := range rt.ServerFeatures() {
		cat, err := rt.Catalog(context.Background(), f.Name, false)
		if err != nil {
			t.Fatal(err)
		}
		e := ContextEconomy(f, cat)
		rows = append(rows, e)
		byName[f.Name] = e
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| server | tools | howl functions | howl bytes | one-per-tool bytes | ratio |\n|---|---|---|---|---|---|\n")
	for _, e := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1fx |\n", e.Server, e.Tools, e.MetaFunctions, e.MetaBytes, e.PerToolBytes, e.Ratio)
	}
	t.Log(b.String())

	small, big := byName["demo"], byName["demo-scale"]
	if big.Tools <= small.Tools*10 {
		t.Fatalf("demo-scale has %d tools, demo %d: the scale fixture is not bigger", big.Tools, small.Tools)
	}
	// Same gating, 20x the tools: the cost differs only by the name length.
	if d := float64(big.MetaBytes-small.MetaBytes) / float64(small.MetaBytes); d > 0.10 || d < -0.10 {
		t.Errorf("howl's cost grew %.0f%% with the server's size (%d -> %d bytes)", d*100, small.MetaBytes, big.MetaBytes)
	}
	if big.Ratio < 5 {
		t.Errorf("a %d-tool server: one-per-tool is only %.1fx howl's declarations, want 5x or more", big.Tools, big.Ratio)
	}
	// server-everything is small (13 tools, short schemas): howl's five
	// teaching declarations cost about 40% of its one-per-tool list. Guard
	// against that getting worse; the README states the gap.
	if ev, ok := byName["everything"]; ok && ev.Ratio < 2 {
		t.Errorf("server-everything: one-per-tool is only %.1fx howl's declarations; it was 2.5x", ev.Ratio)
	}
	for _, name := range []string{"everything", "everything2025", "filesystem", "memory"} {
		if _, ok := byName[name]; !ok && os.Getenv(interopEnv) != "" {
			st, _ := rt.ServerStatus(name)
			t.Errorf("%s did not start: %s %s", name, st.Reason, st.StderrTail)
		}
	}
}
