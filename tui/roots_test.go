package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// TestRootsCommandListsAndChangesWhatServersGet offers one directory,
// adds and removes another with .roots, and reads what a real server
// (roots/list from inside a tool) gets each time.
func TestRootsCommandListsAndChangesWhatServersGet(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	rt := mcp.NewRuntime(&mcp.Config{Servers: []mcp.ServerConfig{askServer("asker")}}, mcp.RuntimeOptions{
		CacheDir: filepath.Join(testCacheDir, "cache"), Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")),
		Roots: []string{a},
	})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	serverSees := func() string {
		out, err := rt.CallMeta(ctx, "mcp_invoke_asker", []byte(`{"tool":"roots"}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if got := serverSees(); !strings.Contains(got, "file://"+a) {
		t.Fatalf("the server sees %s, want %s", got, a)
	}
	hs := newChatHarness(t, rt, []string{"asker"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.line(".roots")
	if v := hs.view(); !strings.Contains(v, "ROOTS OFFERED TO SERVERS") || !strings.Contains(v, a) {
		t.Fatalf(".roots does not list %s:\n%s", a, v)
	}
	hs.line(".roots add " + b)
	if v := hs.view(); !strings.Contains(v, "roots changed") {
		t.Fatalf("no word of the change:\n%s", v)
	}
	if got := serverSees(); !strings.Contains(got, "file://"+a) || !strings.Contains(got, "file://"+b) {
		t.Errorf("after .roots add, the server sees %s", got)
	}
	hs.line(".roots remove " + a)
	if got := serverSees(); strings.Contains(got, "file://"+a) || !strings.Contains(got, "file://"+b) {
		t.Errorf("after .roots remove, the server sees %s", got)
	}
	missing := filepath.Join(b, "nope")
	hs.line(".roots add " + missing)
	if v := hs.view(); !strings.Contains(v, "is not a directory howl can see") {
		t.Errorf("adding a missing directory should say so:\n%s", v)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the test's missing directory exists")
	}
}
