package catalog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// marksKept is how many marks of new items the pane holds, over every
// server, and what they cost.
func (c *Pane) marksKept() (n, bytes int) {
	for _, sv := range c.servers {
		n += len(sv.marks.set)
		bytes += sv.marks.bytes
	}
	return n, bytes
}

// renamed is n resources whose ids all carry round r: a server that
// renames every item on each listing.
func renamed(n, r int) []mcp.CatalogItem {
	items := make([]mcp.CatalogItem, n)
	for i := range items {
		uri := fmt.Sprintf("demo://round-%d/item-%05d", r, i)
		items[i] = mcp.CatalogItem{Kind: mcp.KindResource, Server: "mem", ID: uri, URI: uri, Name: fmt.Sprintf("item-%05d", i)}
	}
	return items
}

// relist makes the runtime list items for mem from now on, and tells the
// pane that list_changed added them all and removed the items removed.
func (b *bench) relist(items, removed []mcp.CatalogItem) {
	b.rt.mu.Lock()
	b.rt.catalogs["mem"] = &mcp.Catalog{Server: "mem", Listed: mcp.Kinds, Items: items}
	b.rt.mu.Unlock()
	var ch mcp.CatalogChange
	for i := range items {
		ch.Added = append(ch.Added, items[i].Key())
	}
	for i := range removed {
		ch.Removed = append(ch.Removed, removed[i].Key())
	}
	b.run(b.c.HandleCatalogChanged("mem", &ch))
}

// A server that renames all its items on every list_changed does not
// grow the marks of new items without end: a listing drops the marks of
// the items it no longer holds, so after each round the server has no
// more marks than items (before, every round's 2,000 stayed: 16,000 after
// eight rounds). The changes name no removed items, as when the event
// that named them was dropped by a busy relay, or the runtime had no
// listing to compare with.
func TestMarksOfItemsAServerRenamedAreDropped(t *testing.T) {
	b := newBench(t, renamed(2000, 0)...)
	for r := 1; r <= 8; r++ {
		b.relist(renamed(2000, r), nil)
		if n, _ := b.c.marksKept(); n > 2000 {
			t.Fatalf("after %d rounds of renaming 2,000 items the pane keeps %d marks, want at most 2,000 (one an item)", r, n)
		}
		if got := b.c.TabTitle(1); got != "Resources 2000 +2000 new" {
			t.Fatalf("after %d rounds the tab says %q", r, got)
		}
	}
}

// One server's marks hold at most MaxNewMarkBytes, however many items a
// change adds: past it the rest are not marked, and the tab says its
// count is a floor ("+N+ new") until the marked ones are seen.
func TestNewMarksAreBoundedInBytes(t *testing.T) {
	b := newBench(t, sampleItems()...)
	items := renamed(20_000, 1)
	b.relist(items, nil)
	n, bytes := b.c.marksKept()
	if bytes > MaxNewMarkBytes || n == 0 || n >= len(items) {
		t.Fatalf("a change adding 20,000 items kept %d marks of %d bytes, want some, and at most MaxNewMarkBytes = %d", n, bytes, MaxNewMarkBytes)
	}
	title := regexp.MustCompile(`^Resources 20000 \+(\d+)\+ new$`).FindStringSubmatch(b.c.TabTitle(1))
	if title == nil || title[1] != strconv.Itoa(n) {
		t.Fatalf("the tab says %q, want \"Resources 20000 +%d+ new\" (the marks kept, and more)", b.c.TabTitle(1), n)
	}
	b.c.SetTab(1)
	b.c.MarkSeen() // the first resource: marked, as the first kept
	if got, want := b.c.TabTitle(1), fmt.Sprintf("Resources 20000 +%d+ new", n-1); got != want {
		t.Errorf("after one was seen the tab says %q, want %q", got, want)
	}
	// The bound is on what is kept now: the items removed free their
	// marks for the next change.
	b.relist(renamed(3, 2), items)
	if got := b.c.TabTitle(1); got != "Resources 3 +3 new" {
		t.Errorf("after the next change the tab says %q", got)
	}
	if n, _ := b.c.marksKept(); n != 3 {
		t.Errorf("the pane keeps %d marks for 3 items", n)
	}
}

// A mark the person clears while a listing is in flight stays cleared
// when the listing lands: the listing carries no copy of the marks from
// when it started.
func TestAMarkSeenWhileAListingRunsStaysCleared(t *testing.T) {
	b := newBench(t, sampleItems()...)
	b.run(b.c.HandleCatalogChanged("mem", &mcp.CatalogChange{Added: []string{"tool:wipe"}}))
	if got := b.c.TabTitle(0); got != "Tools 2 +1 new" {
		t.Fatalf("after the change the tab says %q", got)
	}
	inFlight := b.results(b.c.Reload("mem", true))
	if !b.c.SelectID("wipe") {
		t.Fatal("no row for wipe")
	}
	b.c.MarkSeen()
	for _, r := range inFlight {
		b.run(b.c.HandleResult(r))
	}
	if got := b.c.TabTitle(0); got != "Tools 2" {
		t.Errorf("the listing that was in flight brought the seen mark back: the tab says %q", got)
	}
	if v := b.view(); strings.Contains(v, "+ wipe") {
		t.Errorf("the seen tool is marked again:\n%s", v)
	}
}

// markedRows counts the rows of tab i drawn with the new mark.
func (b *bench) markedRows(i int) int {
	n := 0
	for _, r := range b.c.rows[i] {
		if r.kind == rowItem && r.e.fresh {
			n++
		}
	}
	return n
}

// Each tab's count of new items is the number of rows marked, over every
// server, at every step: a change on two servers, one seen, one removed
// while its listing is still in flight (the count drops at once, not when
// the listing lands), a server failing and coming back.
func TestEachTabCountsTheRowsMarkedOnEveryServer(t *testing.T) {
	b := serversBench(t, map[string][]mcp.CatalogItem{"big": renamed(50, 0), "side": renamed(10, 9)}, []string{"side", "big"}, 1)
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateReady}))
	check := func(step string, want int) {
		t.Helper()
		if n := b.markedRows(1); n != want {
			t.Fatalf("%s: %d rows marked, want %d", step, n, want)
		}
		title := fmt.Sprintf("Resources 60 +%d new", want)
		if want == 0 {
			title = "Resources 60"
		}
		if got := b.c.TabTitle(1); got != title {
			t.Fatalf("%s: the tab says %q, want %q (the rows marked)", step, got, title)
		}
	}
	big, side := b.rt.catalogs["big"].Items, b.rt.catalogs["side"].Items
	b.run(b.c.HandleCatalogChanged("big", &mcp.CatalogChange{Added: []string{big[1].Key(), big[2].Key(), big[3].Key()}}))
	b.run(b.c.HandleCatalogChanged("side", &mcp.CatalogChange{Added: []string{side[0].Key()}}))
	check("a change on each server", 4)
	b.c.SelectID(big[2].ID)
	b.c.MarkSeen()
	check("one seen", 3)
	inFlight := b.results(b.c.HandleCatalogChanged("big", &mcp.CatalogChange{Removed: []string{big[3].Key()}}))
	b.c.rebuild() // the rows as drawn
	check("one removed, its listing in flight", 2)
	for _, r := range inFlight {
		b.run(b.c.HandleResult(r))
	}
	check("the listing landed", 2)
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateFailed, Reason: "gone"}))
	if got := b.c.TabTitle(1); got != "Resources 50+? +1 new" {
		t.Fatalf("with side failed the tab says %q", got)
	}
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateReady}))
	check("side listed again, its mark kept", 2)
}
