package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// The servers dialog shows the roots each server is offered when it asks:
// the default ones, or the entry's own "roots" (server-filesystem serves
// those instead of its command line's directories).
func TestServersDialogShowsEachServersRoots(t *testing.T) {
	shared, own := filepath.Join(t.TempDir(), "project"), filepath.Join(t.TempDir(), "notes-only")
	withDefault, withOwn, withNone := demoServer("work"), demoServer("notes"), demoServer("bare")
	withOwn.Roots, withOwn.OwnRoots = []string{own}, true
	withNone.Roots, withNone.OwnRoots = []string{}, true
	rt := mcp.NewRuntime(&mcp.Config{Servers: []mcp.ServerConfig{withDefault, withOwn, withNone}}, mcp.RuntimeOptions{
		CacheDir: filepath.Join(testCacheDir, "cache"), Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")),
		Roots: []string{shared},
	})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, rt, []string{"work", "notes", "bare"}, 140, 45)
	defer hs.dumpOnFailure()
	hs.keys("S")
	v := hs.view()
	var rootsLines []string
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "    roots     ") {
			rootsLines = append(rootsLines, l)
		}
	}
	if len(rootsLines) != 3 {
		t.Fatalf("%d roots lines, want one per server:\n%s", len(rootsLines), v)
	}
	for i, want := range []string{shared, own, `none offered (its "roots" is empty)`} {
		if !strings.Contains(rootsLines[i], want) {
			t.Errorf("server %d: %q, want %q", i, rootsLines[i], want)
		}
	}
}
