package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/dialog"
)

// TestInteropMemorySkeletonIsFlaggedAndFilledEntitiesAreWritten runs the
// real server-memory: its create_entities form flags the skeleton's empty
// name and type, and the filled-in JSON writes the entity.
func TestInteropMemorySkeletonIsFlaggedAndFilledEntitiesAreWritten(t *testing.T) {
	dir := os.Getenv("HOWL_INTEROP_DIR")
	if dir == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./tui -run Interop")
	}
	store := filepath.Join(t.TempDir(), "memory.jsonl")
	sc := mcp.ServerConfig{Name: "memory", Transport: mcp.TransportStdio, Command: "node",
		Args: []string{filepath.Join(dir, "@modelcontextprotocol/server-memory/dist/index.js")},
		Env:  map[string]string{"MEMORY_FILE_PATH": store}, StartTimeout: 30 * time.Second}
	rt := newRuntime(t, nil, sc)
	t.Cleanup(func() { rt.Close() })
	hs := newHarness(t, rt, []string{"memory"}, 120, 40)
	defer hs.dumpOnFailure()
	hs.selectItem("create_entities")
	hs.keys("enter", "right", "ctrl+s")
	if v := hs.view(); !strings.Contains(v, "entities[0].name") || !strings.Contains(v, "entities[0].entityType") {
		t.Fatalf("the skeleton's empty name and type are not flagged:\n%s", v)
	}
	d := hs.m.dialogs.Top().(*dialog.FormDialog)
	d.Form().SetValue("entities", `[{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first program"]}]`)
	hs.keys("ctrl+s")
	b, err := os.ReadFile(store)
	if err != nil || !strings.Contains(string(b), "Ada Lovelace") || strings.Contains(string(b), `"name":""`) {
		t.Fatalf("the memory file holds %q, %v", b, err)
	}
}
