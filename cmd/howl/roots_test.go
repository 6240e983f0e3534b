package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestRootsAreTheWorkingDirectoryUnlessTheConfigListsThem(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		extra map[string]json.RawMessage
		want  []string
	}{
		{"no roots key: the working directory", nil, []string{wd}},
		{"listed", map[string]json.RawMessage{"roots": json.RawMessage(`["/srv/a","/srv/b"]`)}, []string{"/srv/a", "/srv/b"}},
		{"empty list: none (server-filesystem keeps its own)", map[string]json.RawMessage{"roots": json.RawMessage(`[]`)}, []string{}},
		{"malformed: none", map[string]json.RawMessage{"roots": json.RawMessage(`"/srv"`)}, nil},
	}
	for _, c := range cases {
		var warned strings.Builder
		got := configRoots(&warned, &mcp.Config{Extra: c.extra})
		if !slices.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("%s: roots %q, want %q", c.name, got, c.want)
		}
		if (c.want == nil) != strings.Contains(warned.String(), "roots") {
			t.Errorf("%s: said %q", c.name, warned.String())
		}
	}
}

// A malformed "roots" is said on the verb's stderr, which sanitizes (the
// message names the config's path), not written to the process's own.
func TestAMalformedRootsIsSaidOnTheVerbsStderr(t *testing.T) {
	isolate(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"roots": 5, "mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ := howl(t, "--config", cfg, "ls")
	if !strings.Contains(errOut, "roots") || !strings.Contains(errOut, cfg) {
		t.Errorf("the verb's stderr does not name the malformed roots and the file:\n%s", errOut)
	}
}
