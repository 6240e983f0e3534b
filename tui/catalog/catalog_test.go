package catalog

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// fakeRuntime is the one call the catalog makes: canned catalogs.
type fakeRuntime struct {
	mu       sync.Mutex
	catalogs map[string]*mcp.Catalog
}

func (f *fakeRuntime) Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.catalogs[server]
	if !ok {
		return nil, fmt.Errorf("no server %q", server)
	}
	return c, nil
}

// bench is the catalog's own harness: a list whose commands run at once,
// their results fed back to it (or held, to deliver late).
type bench struct {
	t  testing.TB
	c  *Pane
	rt *fakeRuntime
}

// testCom is the kit a catalog under test shares, drawn without colour.
func testCom() *common.Common {
	th := theme.New(theme.Options{Dark: true, Profile: termenv.Ascii})
	return &common.Common{Ctx: context.Background(), Theme: th, Styles: th.Styles, Keys: common.DefaultKeyMap(),
		Tick: func(time.Duration, tea.Msg) tea.Cmd { return nil }, Log: common.DiscardLogger(), Progress: &common.ProgressBoard{}}
}

func newBench(t testing.TB, items ...mcp.CatalogItem) *bench {
	com := testCom()
	for i := range items {
		items[i].Server = "mem"
	}
	rt := &fakeRuntime{catalogs: map[string]*mcp.Catalog{"mem": {Server: "mem", Listed: mcp.Kinds, Items: items}}}
	b := &bench{t: t, c: New(com, rt, []string{"mem"}), rt: rt}
	b.c.SetSize(48, 38)
	b.c.Focus()
	b.run(b.c.ApplyStatus(mcp.Status{Name: "mem", State: mcp.StateReady}))
	return b
}

// results runs cmd and returns the results it produced, undelivered.
func (b *bench) results(cmd tea.Cmd) []common.Result {
	var out []common.Result
	for _, msg := range commontest.Messages(cmd) {
		if r, ok := msg.(common.Result); ok {
			out = append(out, r)
		}
	}
	return out
}

// run executes cmd and delivers everything it leads to.
func (b *bench) run(cmd tea.Cmd) {
	for _, r := range b.results(cmd) {
		b.run(b.c.HandleResult(r))
	}
}

// key sends one key and returns its command, unrun.
func (b *bench) key(s string) tea.Cmd {
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	return cmd
}

// view draws the list.
func (b *bench) view() string { return strings.Join(b.c.Render(0), "\n") }

func sampleItems() []mcp.CatalogItem {
	return []mcp.CatalogItem{
		{Kind: mcp.KindTool, ID: "echo", Name: "echo", Description: "Echo a message"},
		{Kind: mcp.KindTool, ID: "wipe", Name: "wipe", Description: "Wipe everything"},
		{Kind: mcp.KindResource, ID: "mem://log", Name: "log", URI: "mem://log"},
	}
}

// A listing or a filter result that is not the latest is dropped: each
// request has its own id, from the one source.
func TestStaleListingsAndFilterResultsAreDropped(t *testing.T) {
	b := newBench(t, sampleItems()...)
	full := b.rt.catalogs["mem"]
	b.rt.catalogs["mem"] = &mcp.Catalog{Server: "mem", Listed: mcp.Kinds}
	stale := b.results(b.c.Reload("mem", true)) // an empty listing, superseded by the next
	b.rt.catalogs["mem"] = full
	b.run(b.c.Reload("mem", true))
	for _, r := range stale {
		b.run(b.c.HandleResult(r))
	}
	if got := b.c.TabTitle(0); got != "Tools 2" {
		t.Fatalf("a stale listing replaced the catalog: %q", got)
	}
	b.run(b.key("/"))
	first := b.results(b.key("e")) // the filter for "e", answered after the one for "ec"
	b.run(b.key("c"))
	for _, r := range first {
		b.run(b.c.HandleResult(r))
	}
	if got := b.c.TabTitle(0); got != "Tools 1/2" {
		t.Fatalf("a stale filter result replaced the matches: %q", got)
	}
}

// BenchmarkFilter10k is one incremental filter step over 10,000 items.
func BenchmarkFilter10k(b *testing.B) {
	h := newBench(b, commontest.BigCatalog()...)
	all := h.c.all
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = filterCmd(context.Background(), filterJob{id: 1, version: 1, query: "res12", all: all, spans: h.c.spans})()
	}
}

// The name column is as wide as the widest name in cells, not in bytes:
// accented or wide names do not push the descriptions right (and cut them
// shorter).
func TestTheNameColumnIsMeasuredInCells(t *testing.T) {
	b := newBench(t,
		mcp.CatalogItem{Kind: mcp.KindTool, ID: "a", Name: "ab", Description: "first"},
		mcp.CatalogItem{Kind: mcp.KindTool, ID: "b", Name: "éé", Description: "second"},
		mcp.CatalogItem{Kind: mcp.KindTool, ID: "c", Name: "漢", Description: "third"})
	var cols []int
	for _, l := range strings.Split(b.view(), "\n") {
		for _, d := range []string{"first", "second", "third"} {
			if i := strings.Index(l, d); i >= 0 {
				cols = append(cols, common.WidthOf(l[:i]))
			}
		}
	}
	// border, marker (2), the widest name (2 cells), two spaces.
	if want := 1 + 2 + 2 + 2; len(cols) != 3 || cols[0] != want || cols[1] != want || cols[2] != want {
		t.Fatalf("the descriptions start at columns %v, want %d:\n%s", cols, want, b.view())
	}
}

// The filter ranks what a person means first: the name itself, a name
// that starts with the query, a word of the name that does, the query
// inside the name, then the title and id; the starts of words ("lr")
// match; letters scattered over many words do not.
func TestFilterRanksNameMatchesFirstAndDropsScatteredLetters(t *testing.T) {
	items := []mcp.CatalogItem{
		{Kind: mcp.KindResource, ID: "demo://notes/note-009", Name: "note-009", URI: "demo://notes/note-009", Title: "Note 9"},
		{Kind: mcp.KindResource, ID: "demo://images/blue-moon.png", Name: "blue-moon.png", URI: "demo://images/blue-moon.png"},
		{Kind: mcp.KindResource, ID: "demo://images/harvestmoon", Name: "harvestmoon", URI: "demo://images/harvestmoon"},
		{Kind: mcp.KindResource, ID: "demo://images/moon.png", Name: "moon.png", URI: "demo://images/moon.png"},
		{Kind: mcp.KindResource, ID: "demo://sky/1", Name: "sky", Title: "Moon phases", URI: "demo://sky/1"},
		{Kind: mcp.KindResource, ID: "demo://moon", Name: "moon", URI: "demo://moon"},
		{Kind: mcp.KindResource, ID: "demo://mx/o", Name: "more-on-old-news", URI: "demo://mx/o"},
		{Kind: mcp.KindTool, ID: "list_roots", Name: "list_roots"},
		{Kind: mcp.KindTool, ID: "slow_reader", Name: "slow_reader"},
		{Kind: mcp.KindTool, ID: "ls", Name: "ls"},
	}
	for _, tc := range []struct {
		tab   int
		query string
		want  []string
	}{
		{1, "moon", []string{"moon", "moon.png", "blue-moon.png", "harvestmoon", "sky", "more-on-old-news"}},
		{1, "moon png", []string{"moon.png", "blue-moon.png"}},
		{0, "lr", []string{"list_roots"}},
		{0, "ls", []string{"ls"}},
		{0, "slre", []string{"slow_reader"}},
	} {
		b := newBench(t, items...)
		b.run(b.key("/"))
		for _, r := range tc.query {
			b.run(b.key(string(r)))
		}
		var got []string
		for _, e := range b.c.matches[tc.tab] {
			got = append(got, e.name)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q ranks %v, want %v", tc.query, got, tc.want)
		}
	}
}

func TestDetailSaysWhatOpeningAnAppDoes(t *testing.T) {
	b := newBench(t)
	tool := strings.Join(renderDetail(b.c.com, newEntry(&mcp.CatalogItem{Kind: mcp.KindTool, Server: "mem", ID: "dice", Name: "dice", AppURI: "ui://mem/dice.html"}), 200), "\n")
	if !strings.Contains(tool, "ui://mem/dice.html: an MCP App; enter calls the tool and opens its interface in your browser with the result (howl app mem dice does it headless)") {
		t.Errorf("the tool's detail does not say what opening its app does:\n%s", tool)
	}
	res := strings.Join(renderDetail(b.c.com, newEntry(&mcp.CatalogItem{Kind: mcp.KindResource, Server: "mem", ID: "ui://mem/dice.html", URI: "ui://mem/dice.html", AppURI: "ui://mem/dice.html"}), 200), "\n")
	if !strings.Contains(res, "an MCP App's interface: o opens it in your browser") {
		t.Errorf("the app resource's detail does not mark it an app:\n%s", res)
	}
	plain := strings.Join(renderDetail(b.c.com, newEntry(&mcp.CatalogItem{Kind: mcp.KindTool, Server: "mem", ID: "echo", Name: "echo"}), 200), "\n")
	if strings.Contains(plain, "MCP App") {
		t.Errorf("a tool without an app is marked one:\n%s", plain)
	}
}

// The tab bar is drawn every frame: its counts of new and switched-off
// items are the sums of its servers' counts, not found by walking every
// entry a frame (building
// each one's key, while any item is new: 120,000 strings a frame at
// the demo's --scale). At 5,000 resources with one marked new, a title
// costs its own formatting only; the count still follows the marks
// (seen, the mark goes).
func TestTheTabTitleCountsNewItemsWithoutWalkingTheCatalog(t *testing.T) {
	var items []mcp.CatalogItem
	for i := range 5000 {
		uri := fmt.Sprintf("file:///srv/data/reports/2026/report-%04d.json", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, ID: uri, URI: uri, Name: fmt.Sprintf("report-%04d", i)})
	}
	b := newBench(t, items...)
	b.c.SetTab(1)
	b.run(b.c.HandleCatalogChanged("mem", &mcp.CatalogChange{Added: []string{items[0].Key()}}))
	if got := b.c.TabTitle(1); got != "Resources 5000 +1 new" {
		t.Fatalf("the tab says %q, want the new resource counted", got)
	}
	// Its formatting allocates about 4 times; fmt's printer pool loses
	// printers on purpose under -race, which adds one now and then. A walk
	// of the catalog would be thousands.
	if allocs := testing.AllocsPerRun(20, func() { _ = b.c.TabTitle(1) }); allocs > 8 {
		t.Errorf("a tab title allocates %.0f times over 5,000 resources: it walks the catalog (want <= 8, its formatting)", allocs)
	}
	b.c.MarkSeen() // the cursor is on the first resource, the new one
	if got := b.c.TabTitle(1); got != "Resources 5000" {
		t.Errorf("after the cursor was on the new item the tab says %q", got)
	}
}

// An entry points at its item in the listed catalog (the runtime's
// cache) instead of copying it: at the demo's --scale the copies were
// 45 MB of a heap every collection marks while the person types. A
// listing of 10,000 resources allocates under 450 bytes an entry: its
// display strings and match index, the entries one allocation and the
// lists made their size. With a copy of the item it was about 1,000; with
// the entries one by one, the lists grown and an ASCII name's letters
// kept as runes too (four bytes each), 639.
func TestAnEntryPointsAtItsListedItem(t *testing.T) {
	var items []mcp.CatalogItem
	for i := range 10_000 {
		n := fmt.Sprintf("%06d", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, Server: "mem", ID: "demo://scale/" + n, URI: "demo://scale/" + n, Name: "scale-" + n, Title: "Generated item " + n})
	}
	rt := &fakeRuntime{catalogs: map[string]*mcp.Catalog{"mem": {Server: "mem", Listed: mcp.Kinds, Items: items}}}
	load := loadCatalogCmd(context.Background(), rt, nil, "mem", 1, nil, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg := load().(common.Result).Msg.(catalogLoadedMsg)
	runtime.ReadMemStats(&after)
	entries := msg.entries[kindIndex(mcp.KindResource)]
	if len(entries) != len(items) || entries[7].item != &items[7] {
		t.Fatalf("entry 7 of %d does not point at listed item 7", len(entries))
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / uint64(len(items)); per > 450 {
		t.Errorf("a listing allocates %d bytes an entry, want <= 450 (a copy of the item alone is %d)", per, unsafe.Sizeof(mcp.CatalogItem{}))
	}
}

// A change after a list_changed carries the catalog it was found in, and
// the pane shows that one rather than asking the runtime again: the
// runtime's refresh listing is kept out of its cache by a list_changed
// that lands while it runs, so asking again listed the server twice in a
// storm of them.
func TestACatalogChangeShowsItsOwnListing(t *testing.T) {
	old := mcp.CatalogItem{Kind: mcp.KindResource, Server: "mem", ID: "mem://old", URI: "mem://old", Name: "old"}
	fresh := mcp.CatalogItem{Kind: mcp.KindResource, Server: "mem", ID: "mem://fresh", URI: "mem://fresh", Name: "fresh"}
	b := newBench(t, old)
	listing := &mcp.Catalog{Server: "mem", Listed: mcp.Kinds, Items: []mcp.CatalogItem{fresh}}
	b.run(b.c.HandleCatalogChanged("mem", &mcp.CatalogChange{Added: []string{fresh.Key()}, Removed: []string{old.Key()}, Listing: listing}))
	entries := b.c.byName["mem"].entries[kindIndex(mcp.KindResource)]
	if len(entries) != 1 || entries[0].item.ID != "mem://fresh" {
		var ids []string
		for _, e := range entries {
			ids = append(ids, e.item.ID)
		}
		t.Errorf("the pane shows %v, want the change's own listing (mem://fresh), not the runtime's", ids)
	}
}
