package catalog

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// serversBench is the catalog over servers names, in that order, each
// listing its items from lists (none: it lists nothing), big ready and
// the others starting, on the tab given.
func serversBench(tb testing.TB, lists map[string][]mcp.CatalogItem, names []string, tab int) *bench {
	com := testCom()
	rt := &fakeRuntime{catalogs: map[string]*mcp.Catalog{}}
	for name, items := range lists {
		for i := range items {
			items[i].Server = name
		}
		rt.catalogs[name] = &mcp.Catalog{Server: name, Listed: mcp.Kinds, Items: items}
	}
	b := &bench{t: tb, c: New(com, rt, names), rt: rt}
	b.c.SetSize(120, 40)
	b.c.Focus()
	b.c.SetTab(tab)
	b.run(b.c.ApplyStatus(mcp.Status{Name: "big", State: mcp.StateReady}))
	return b
}

// scaleServers is the catalog with two servers: big, ready with the
// 120,000-item scale catalog, and side, still starting.
func scaleServers(tb testing.TB) *bench {
	b := serversBench(tb, map[string][]mcp.CatalogItem{"big": commontest.ScaleCatalog()}, []string{"big", "side"}, 1)
	b.rt.catalogs["big"].Position(mcp.KindTool, "") // its index built, as mcp builds a listed catalog's
	return b
}

// BenchmarkApplyStatus120k is a status event that changes nothing in a
// list of 120,000 items: the ready server reported ready again (unchanged),
// and the other server, which lists nothing, failing and starting again
// (its own rows only).
func BenchmarkApplyStatus120k(b *testing.B) {
	h := scaleServers(b)
	b.Run("unchanged", func(b *testing.B) {
		st := mcp.Status{Name: "big", State: mcp.StateReady}
		b.ReportAllocs()
		for b.Loop() {
			_ = h.c.ApplyStatus(st)
		}
	})
	b.Run("other-server", func(b *testing.B) {
		failed := mcp.Status{Name: "side", State: mcp.StateFailed, Reason: "exit status 1"}
		starting := mcp.Status{Name: "side", State: mcp.StateStarting}
		b.ReportAllocs()
		for b.Loop() {
			_ = h.c.ApplyStatus(failed)
			_ = h.c.ApplyStatus(starting)
		}
	})
}

// A status event rebuilds only what it changes (at 120,000 items a
// rebuild of every row, and the filter run again, was 11 ms and 6.7 MB
// on the update path for every event): the ready server reported ready
// again changes nothing, not even the filter's run; a server that lists
// nothing failing changes its own rows, shown once the filter is
// cleared; the listed server failing takes its items away and shows why.
func TestAStatusEventRebuildsOnlyWhatItChanges(t *testing.T) {
	b := serversBench(t, map[string][]mcp.CatalogItem{"big": sampleItems()}, []string{"side", "big"}, 0)
	b.run(b.key("/"))
	b.run(b.key("e"))
	version, filterID, rows := b.c.version, b.c.filterID, b.c.rows[0]
	if got := b.c.TabTitle(0); got != "Tools 2/2" {
		t.Fatalf("the filter shows %q", got)
	}
	if cmd := b.c.ApplyStatus(mcp.Status{Name: "big", State: mcp.StateReady}); cmd != nil {
		t.Errorf("the ready server reported ready again asked for work: %d messages (a listing or a filter run)", len(commontest.Messages(cmd)))
	}
	if b.c.version != version || b.c.filterID != filterID || &b.c.rows[0][0] != &rows[0] {
		t.Errorf("the ready server reported ready again rebuilt the list (version %d -> %d, filter run %d -> %d)", version, b.c.version, filterID, b.c.filterID)
	}
	if cmd := b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateFailed, Reason: "exit status 7"}); cmd != nil {
		t.Errorf("a server that lists nothing failing asked for work: %d messages (a listing or a filter run)", len(commontest.Messages(cmd)))
	}
	if b.c.version != version || b.c.filterID != filterID {
		t.Errorf("a server that lists nothing failing rebuilt every entry or ran the filter again (version %d -> %d)", version, b.c.version)
	}
	if v := b.view(); strings.Contains(v, "exit status 7") || !strings.Contains(v, "echo") {
		t.Errorf("under the filter the failed server shows, or the matches went:\n%s", v)
	}
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if v := b.view(); !strings.Contains(v, "failed: exit status 7") || !strings.Contains(v, "wipe") {
		t.Errorf("after clearing the filter the failed server's reason or the ready server's items are missing:\n%s", v)
	}
	if got := b.c.Selected(); got == nil || got.item.ID != "echo" {
		t.Errorf("the cursor left the first item: %v", got)
	}
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateStarting}))
	if v := b.view(); strings.Contains(v, "exit status 7") || !strings.Contains(v, "starting") {
		t.Errorf("the server starting again still shows its failure:\n%s", v)
	}
	b.run(b.c.ApplyStatus(mcp.Status{Name: "big", State: mcp.StateFailed, Reason: "crashed"}))
	if v := b.view(); !strings.Contains(v, "failed: crashed") || strings.Contains(v, "echo") {
		t.Errorf("the listed server failing left its items or hid why:\n%s", v)
	}
	if got := b.c.TabTitle(0); got != "Tools ?" {
		t.Errorf("after the listed server failed the tab says %q", got)
	}
}

// BenchmarkFilterClearDeep120k clears a filter whose cursor sits on its
// last match, the last of 100,000 resources: the rows from before the
// filter come back with the cursor on that item.
func BenchmarkFilterClearDeep120k(b *testing.B) {
	c, msg, key, back := allMatched(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		_, _ = c.HandleKey(key)
		_ = c.HandleResult(common.Result{Owner: common.OwnerCatalog, ID: c.filterID, Msg: msg})
		c.cursor[1] = len(c.rows[1]) - 1
		b.StartTimer()
		_, _ = c.HandleKey(back)
	}
}

// BenchmarkListChanged120k is the update path's share of a list_changed
// on a server of 120,000 items that added one: the new item marked, and
// the new listing (built off the update path) swapped in.
func BenchmarkListChanged120k(b *testing.B) {
	h := scaleServers(b)
	sv := h.c.byName["big"]
	listing := h.results(loadCatalogCmd(context.Background(), h.rt, nil, "big", 1, nil, false))[0].Msg
	added := &mcp.CatalogChange{Added: []string{h.rt.catalogs["big"].Items[500].Key()}}
	b.Run("cursor-at-top", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.c.HandleCatalogChanged("big", added)
			_ = h.c.HandleResult(common.Result{Owner: common.OwnerCatalog, ID: sv.pending, Msg: listing})
		}
	})
	// The cursor on the last resource, each listing a new one (as after
	// a list_changed): its row is found in the new listing.
	b.Run("cursor-at-end", func(b *testing.B) {
		listings := []tea.Msg{listing, h.results(loadCatalogCmd(context.Background(), h.rt, nil, "big", 1, nil, false))[0].Msg}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			h.c.cursor[1] = len(h.c.all[1]) // under big's header
			_ = h.c.HandleCatalogChanged("big", added)
			_ = h.c.HandleResult(common.Result{Owner: common.OwnerCatalog, ID: sv.pending, Msg: listings[i%2]})
			if e := h.c.Selected(); e == nil || e.item.Name != "scale-100000" {
				b.Fatalf("the cursor left the last resource for %v", e)
			}
		}
	})
}

// Clearing a filter puts the cursor back on the item it was on, found
// from the item's place among its server's entries (not by walking the
// rows before it): here the last resource of the second server.
func TestClearingTheFilterKeepsTheCursorOnItsItem(t *testing.T) {
	b := serversBench(t, map[string][]mcp.CatalogItem{"big": commontest.BigCatalog(), "side": sampleItems()}, []string{"side", "big"}, 1)
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateReady}))
	b.run(b.key("/"))
	for _, k := range "resource-2499" {
		b.run(b.key(string(k)))
	}
	if got := b.c.Selected(); got == nil || got.item.Name != "resource-2499" {
		t.Fatalf("the filter's best match is %v", got)
	}
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if got := b.c.Selected(); got == nil || got.item.Name != "resource-2499" || got.item.Server != "big" {
		t.Fatalf("after clearing the filter the cursor is on %v, want big's resource-2499", got)
	}
	if r := b.c.rows[1][b.c.cursor[1]]; r.e.item.Name != "resource-2499" || b.c.offset[1] == 0 {
		t.Errorf("the cursor's row is not scrolled into view: offset %d", b.c.offset[1])
	}
}

// The marks of new items are counted per server as each listing lands:
// a new item stays marked through a second listing, another server's
// change leaves the count, and a server that fails takes its marks away.
func TestNewItemsStayMarkedAcrossListingsAndLeaveWithTheirServer(t *testing.T) {
	b := serversBench(t, map[string][]mcp.CatalogItem{"big": commontest.BigCatalog(), "side": sampleItems()}, []string{"side", "big"}, 1)
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateReady}))
	big := b.rt.catalogs["big"].Items
	b.run(b.c.HandleCatalogChanged("big", &mcp.CatalogChange{Added: []string{big[1].Key(), big[5].Key()}}))
	if got := b.c.TabTitle(1); got != "Resources 2501 +2 new" {
		t.Fatalf("after a list_changed the tab says %q", got)
	}
	b.run(b.c.Reload("big", true))
	b.run(b.c.ApplyStatus(mcp.Status{Name: "side", State: mcp.StateFailed, Reason: "gone"}))
	if got := b.c.TabTitle(1); got != "Resources 2500+? +2 new" {
		t.Fatalf("after a second listing and another server failing the tab says %q", got)
	}
	if !b.c.SelectID(big[1].ID) {
		t.Fatalf("no row for %s", big[1].ID)
	}
	b.c.MarkSeen()
	if got := b.c.TabTitle(1); got != "Resources 2500+? +1 new" {
		t.Fatalf("after the cursor was on a new item the tab says %q", got)
	}
	b.run(b.c.ApplyStatus(mcp.Status{Name: "big", State: mcp.StateFailed, Reason: "gone"}))
	if got := b.c.TabTitle(1); got != "Resources ?" {
		t.Errorf("after its server failed the tab says %q", got)
	}
}

// BenchmarkListingArrives120k is a listing of 120,000 items arriving in
// the catalog: its entries prepared (off the update path) and swapped in
// (on it). What it allocates beyond what stays is garbage the next
// collection, while the person types, has to sweep. one-new has an item
// marked new: its mark is applied as the listing lands, one index lookup
// (the listing used to look up every item in a copy of the marks).
func BenchmarkListingArrives120k(b *testing.B) {
	for _, marked := range []int{0, 1} {
		b.Run([]string{"none-new", "one-new"}[marked], func(b *testing.B) {
			h := scaleServers(b)
			if marked > 0 {
				h.run(h.c.HandleCatalogChanged("big", &mcp.CatalogChange{Added: []string{h.rt.catalogs["big"].Items[500].Key()}}))
			}
			b.ReportAllocs()
			for b.Loop() {
				h.run(h.c.Reload("big", false))
			}
			if got, want := h.c.TabTitle(1) != "Resources 100000", marked > 0; got != want {
				b.Fatalf("the tab says %q", h.c.TabTitle(1))
			}
		})
	}
}
