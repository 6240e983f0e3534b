package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLsJSON100k is `howl ls --json` of the demo with 100,000
// generated resources and 10,000 generated tools and prompts (120,000
// items, pages of 100), from start to the last byte written: the server
// spawned, every page listed, the items sorted and written. howlbench's
// catalog-scale row sets the same command beside the floor.
func BenchmarkLsJSON100k(b *testing.B) {
	dir := isolate(b)
	exe, _ := os.Executable()
	cfg := filepath.Join(dir, "scale.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"scale":{"command":"`+exe+`","args":["demo-server","--scale","100000"]}}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var errb strings.Builder
		if code := run([]string{"--config", cfg, "ls", "--json"}, strings.NewReader(""), io.Discard, &errb); code != 0 {
			b.Fatalf("howl ls --json: exit %d: %s", code, errb.String())
		}
	}
}
