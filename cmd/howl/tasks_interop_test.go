package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool whose execution.taskSupport is required runs as a task through
// `howl call`, the same invoke path the model uses.
func TestInteropCallRunsATaskRequiredToolAsATask(t *testing.T) {
	nm := os.Getenv("HOWL_INTEROP_DIR")
	if nm == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./cmd/howl -run Interop")
	}
	dir := isolate(t)
	script := filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}}}`, script)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := howl(t, "--config", cfg, "call", "everything", "simulate-research-query", "topic=howling")
	if code != exitOK || !strings.Contains(strings.ToLower(out), "howling") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
