package mcp

import (
	"sync"
	"testing"
)

// A catalog made by hand (not by a listing, whose dedupe builds the
// index) builds its index once, whichever goroutine looks first: the
// TUI's listing and its commands look items up at once. Lookup used to
// build it unguarded, a data race -race reports.
func TestACatalogMadeByHandIsLookedUpFromManyGoroutines(t *testing.T) {
	cat := &Catalog{Server: "mem", Items: []CatalogItem{{Kind: KindTool, ID: "echo"}, {Kind: KindResource, ID: "mem://log"}}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if j, ok := cat.Position(KindResource, "mem://log"); !ok || j != 1 {
				t.Errorf("mem://log is at %d (%v), want 1", j, ok)
			}
			if _, ok := cat.Lookup(KindTool, "echo"); !ok {
				t.Error("echo not found")
			}
		}()
	}
	wg.Wait()
	if _, ok := cat.Position(KindTool, "mem://log"); ok {
		t.Error("a resource's id was found as a tool")
	}
}
