package catalog

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unsafe"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

func names(ms []*Entry) []string {
	var out []string
	for _, e := range ms {
		out = append(out, e.item.Name)
	}
	return out
}

// A query that extends the last one searches only that run's candidates,
// and finds what a run over every entry finds, in the same order, even
// where a shorter query matches less ("res1" does not match resource-0012,
// "res12" does).
func TestNarrowingTheQueryFindsWhatAFullRunFinds(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var items []mcp.CatalogItem
	for i := range 3000 {
		n := fmt.Sprintf("%04d", rng.Intn(10000))
		name := []string{"resource-" + n, "list_roots_" + n, "get_tiny_image", "echo", "alpha beta " + n}[rng.Intn(5)]
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, ID: fmt.Sprintf("x://%d", i), Name: name, Title: []string{"Alpha beta", "gamma Delta", "", "eps_ilon"}[rng.Intn(4)]})
	}
	c := newBench(t, items...).c
	for _, typed := range []string{"res0012", "lr", "getim", "alpha b", "al be 1"} {
		var base *filterDoneMsg
		for i := 1; i <= len(typed); i++ {
			q := typed[:i]
			job := filterJob{id: 1, version: c.version, query: q, all: c.all, spans: c.spans}
			full := filterCmd(context.Background(), job)().(common.Result).Msg.(filterDoneMsg)
			job.base = base
			narrowed := filterCmd(context.Background(), job)().(common.Result).Msg.(filterDoneMsg)
			if !slices.Equal(narrowed.matches[1], full.matches[1]) {
				t.Fatalf("%q narrowed from %q: %v\na full run: %v", q, typed[:i-1], names(narrowed.matches[1]), names(full.matches[1]))
			}
			base = &narrowed
		}
	}
}

func TestAFilterRunCancelledByTheNextKeyDeliversNothing(t *testing.T) {
	c := newBench(t, commontest.BigCatalog()...).c
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := filterCmd(ctx, filterJob{id: 1, version: c.version, query: "e", all: c.all, spans: c.spans})().(common.Result); r.Msg != nil {
		t.Errorf("a cancelled run delivered %T", r.Msg)
	}
}

// The next key cancels the run in flight: the run for "r", still waiting
// when "e" is typed, answers nothing, and the one for "re" is shown.
func TestTheNextKeyCancelsTheFilterRunInFlight(t *testing.T) {
	b := newBench(t, commontest.BigCatalog()...)
	b.c.SetTab(1)
	b.run(b.key("/"))
	stale := b.key("r")
	fresh := b.key("e")
	for _, r := range b.results(stale) {
		if r.Msg != nil {
			t.Errorf("the superseded run for \"r\" delivered %T", r.Msg)
		}
	}
	b.run(fresh)
	if b.c.matched != "re" || len(b.c.matches[1]) == 0 {
		t.Errorf("the run for \"re\" is not shown: matched %q, %d matches", b.c.matched, len(b.c.matches[1]))
	}
}

func TestClearingTheFilterShowsTheRowsBuiltBeforeIt(t *testing.T) {
	b := newBench(t, commontest.BigCatalog()...)
	b.c.SetTab(1)
	before := b.c.rows[1]
	b.run(b.key("/"))
	for _, k := range "res12" {
		b.run(b.key(string(k)))
	}
	if n := len(b.c.matches[1]); n == 0 || n == len(b.c.all[1]) {
		t.Fatalf("the filter kept %d of %d", n, len(b.c.all[1]))
	}
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if after := b.c.rows[1]; len(after) != len(before) || &after[0] != &before[0] {
		t.Errorf("clearing the filter rebuilt the rows (%d rows, was %d)", len(after), len(before))
	}
	if got := b.c.TabTitle(1); got != "Resources 2500" {
		t.Errorf("after clearing the tab says %q:\n%s", got, b.view())
	}
}

// Rows kept from before a filter are not brought back once the catalog
// changed under the filter: clearing it shows what the server lists now.
func TestClearingTheFilterAfterANewListingShowsTheNewListing(t *testing.T) {
	b := newBench(t, sampleItems()...)
	b.run(b.key("/"))
	b.run(b.key("e"))
	items := append(sampleItems(), mcp.CatalogItem{Kind: mcp.KindTool, ID: "fresh", Name: "fresh", Server: "mem"})
	for i := range items {
		items[i].Server = "mem"
	}
	b.rt.catalogs["mem"] = &mcp.Catalog{Server: "mem", Listed: mcp.Kinds, Items: items}
	b.run(b.c.Reload("mem", true))
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if got := b.c.TabTitle(0); got != "Tools 3" {
		t.Fatalf("after clearing the tab says %q", got)
	}
	if v := b.view(); !strings.Contains(v, "fresh") {
		t.Errorf("clearing the filter brought back the rows from before the new listing:\n%s", v)
	}
}

// A server that fails while a filter is shown loses its matches at once,
// and clearing the filter shows it failed, not the rows from before.
func TestAServerThatFailsUnderTheFilterLeavesItAndTheRowsAfterIt(t *testing.T) {
	b := newBench(t, sampleItems()...)
	b.run(b.key("/"))
	b.run(b.key("e"))
	if got := b.c.TabTitle(0); got != "Tools 2/2" {
		t.Fatalf("the filter shows %q", got)
	}
	b.run(b.c.ApplyStatus(mcp.Status{Name: "mem", State: mcp.StateFailed, Reason: "crashed"}))
	if v := b.view(); strings.Contains(v, "echo") {
		t.Errorf("the failed server's matches are still shown:\n%s", v)
	}
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if v := b.view(); !strings.Contains(v, "crashed") || strings.Contains(v, "echo") {
		t.Errorf("clearing the filter brought back the rows from before the failure:\n%s", v)
	}
}

// filterBench is the catalog over the 120,000-item scale catalog, on the
// Resources tab with the filter line open.
func filterBench(tb testing.TB) *bench {
	b := newBench(tb, commontest.ScaleCatalog()...)
	b.c.SetTab(1)
	b.run(b.key("/"))
	return b
}

// BenchmarkFilter120k is a first key over 120,000 items, from the key to
// its rows: "s" matches all 100,000 resources.
func BenchmarkFilter120k(b *testing.B) {
	c := filterBench(b).c
	b.ReportAllocs()
	for b.Loop() {
		_ = filterCmd(context.Background(), filterJob{id: 1, version: c.version, query: "s", all: c.all, spans: c.spans})()
	}
}

// BenchmarkFilter120kTyping types "scale-0001" a key at a time, each run
// narrowing the last: the time from a key to its rows, per key.
func BenchmarkFilter120kTyping(b *testing.B) {
	c := filterBench(b).c
	const q = "scale-0001"
	b.ReportAllocs()
	for b.Loop() {
		var base *filterDoneMsg
		for i := 1; i <= len(q); i++ {
			msg := filterCmd(context.Background(), filterJob{id: 1, version: c.version, query: q[:i], all: c.all, base: base, spans: c.spans})().(common.Result).Msg.(filterDoneMsg)
			base = &msg
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(q))/1e6, "ms/key")
}

// allMatched is the catalog of filterBench, the result of the filter
// "s" over it (every resource matches), and the keys that type the "s"
// and clear it.
func allMatched(b *testing.B) (c *Pane, msg tea.Msg, key, back tea.KeyMsg) {
	c = filterBench(b).c
	msg = filterCmd(context.Background(), filterJob{version: c.version, query: "s", all: c.all, spans: c.spans})().(common.Result).Msg
	return c, msg, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")}, tea.KeyMsg{Type: tea.KeyBackspace}
}

// BenchmarkFilterUpdate120k is the update path's share of a key over
// 120,000 items: the key itself (echo, new run started) and then its
// result swapped in, with 100,000 rows, then the clear.
func BenchmarkFilterUpdate120k(b *testing.B) {
	c, msg, key, back := allMatched(b)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = c.HandleKey(key)
		_ = c.HandleResult(common.Result{Owner: common.OwnerCatalog, ID: c.filterID, Msg: msg})
		_, _ = c.HandleKey(back) // clears: the rows before the filter come back
	}
}

// The rows drawn under a filter mark the letters it matched (found when
// drawn, not kept for every match): "pe" marks wipe's p and e (the
// cursor sits on echo, drawn without marks).
func TestAFilteredRowMarksTheLettersTheFilterMatched(t *testing.T) {
	b := newBench(t, sampleItems()...)
	was := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI) // the package's tests run one at a time
	t.Cleanup(func() { lipgloss.SetColorProfile(was) })
	th := theme.New(theme.Options{Dark: true, Profile: termenv.ANSI})
	b.c.com.Theme, b.c.com.Styles = th, th.Styles
	b.run(b.key("/"))
	b.run(b.key("e"))
	st := th.Styles.List
	want := st.Item.Render("wip") + st.Match.Render("e")
	if v := b.view(); !strings.Contains(v, want) {
		t.Errorf("the row for wipe does not mark its e (want %q):\n%q", want, v)
	}
	cmd, _ := b.c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc})
	b.run(cmd)
	if v := b.view(); strings.Contains(v, st.Match.Render("e")) {
		t.Errorf("after clearing the filter the row still marks a match:\n%q", v)
	}
}

// At 120,000 items the filter line still shows its whole count: the
// input leaves room for "100000 of 100000".
func TestTheFilterLineShowsItsWholeCountAt120k(t *testing.T) {
	b := filterBench(t)
	b.run(b.key("s"))
	line := strings.Split(b.view(), "\n")[1]
	if !strings.Contains(line, "100000 of 100000") || !strings.Contains(line, "/ s") {
		t.Errorf("the filter line cuts its count or its query: %q", line)
	}
}

// The in-order check reads an ASCII name's bytes and any other name's
// runes: a query finds both kinds, a query with a letter beyond ASCII
// never finds an ASCII name, and a rune that folds to ASCII (the Kelvin
// sign) still matches its letter.
func TestTheFilterFindsASCIIAndOtherNamesAlike(t *testing.T) {
	items := []mcp.CatalogItem{
		{Kind: mcp.KindTool, ID: "cafe", Name: "cafe"},
		{Kind: mcp.KindTool, ID: "café-menu", Name: "café-menu"},
		{Kind: mcp.KindTool, ID: "omega", Name: "Ωmega"},
		{Kind: mcp.KindTool, ID: "kelvin", Name: "\u212Aelvin"},
	}
	for _, tc := range []struct{ query, want string }{
		{"caf", "cafe café-menu"},
		{"café", "café-menu"},
		{"ωm", "Ωmega"},
		{"mega", "Ωmega"},
		{"kel", "\u212Aelvin"},
		{"cafe menu", ""},
	} {
		b := newBench(t, items...)
		b.run(b.key("/"))
		for _, r := range tc.query {
			b.run(b.key(string(r)))
		}
		if got := strings.Join(names(b.c.matches[0]), " "); got != tc.want {
			t.Errorf("%q finds %q, want %q", tc.query, got, tc.want)
		}
	}
}

// Under a filter each server's matches sit under its header, the server
// with the best match first: a match's server is found from its place
// among the kind's entries (a server with none of the kind, d, holds an
// empty span between a and b), and the name column is as wide as the
// widest match.
func TestFilteredRowsGroupEachMatchUnderItsServer(t *testing.T) {
	com := testCom()
	tools := map[string][]string{"a": {"alpha-x", "zeta"}, "b": {"wx"}, "c": {"x", "y"}}
	rt := &fakeRuntime{catalogs: map[string]*mcp.Catalog{}}
	for _, sv := range []string{"a", "b", "c", "d"} {
		items := []mcp.CatalogItem{{Kind: mcp.KindResource, Server: sv, ID: sv + "://r", URI: sv + "://r", Name: "r"}}
		for _, n := range tools[sv] {
			items = append(items, mcp.CatalogItem{Kind: mcp.KindTool, Server: sv, ID: n, Name: n})
		}
		rt.catalogs[sv] = &mcp.Catalog{Server: sv, Listed: mcp.Kinds, Items: items}
	}
	b := &bench{t: t, c: New(com, rt, []string{"a", "d", "b", "c"}), rt: rt}
	b.c.SetSize(48, 38)
	for _, sv := range []string{"a", "d", "b", "c"} {
		b.run(b.c.ApplyStatus(mcp.Status{Name: sv, State: mcp.StateReady}))
	}
	b.run(b.key("/"))
	b.run(b.key("x"))
	var got []string
	for _, r := range b.c.rows[0] {
		if r.kind == rowHeader {
			got = append(got, "["+r.server.name+"]")
		} else {
			got = append(got, r.server.name+":"+r.e.item.Name)
		}
	}
	if want := "[c] c:x [a] a:alpha-x [b] b:wx"; strings.Join(got, " ") != want {
		t.Errorf("the rows under the filter are %q, want %q", strings.Join(got, " "), want)
	}
	if b.c.nameW[0] != len("alpha-x") {
		t.Errorf("the name column is %d cells, want %d (alpha-x)", b.c.nameW[0], len("alpha-x"))
	}
}

// The rows of a run are built in chunks of rowChunk matches by the
// workers: over several chunks, with servers whose matches interleave
// (ranks mixed) and one server with no entries of the kind, each
// server's matches still come under its header in rank order, the
// servers in the order of their best match, exactly as one pass over the
// keys places them.
func TestFilteredRowsAcrossChunksMatchOnePass(t *testing.T) {
	ends := []int32{20000, 20000, 45000, 60000} // the second server has none
	spans := make([]serverSpan, len(ends))
	for i, end := range ends {
		spans[i] = serverSpan{sv: &Server{name: fmt.Sprintf("s%d", i)}, end: end}
	}
	entries := make([]*Entry, ends[len(ends)-1])
	for i := range entries {
		entries[i] = &Entry{}
	}
	rng := rand.New(rand.NewSource(2))
	var keys []uint64
	for p := range int32(len(entries)) {
		if rng.Intn(4) > 0 { // three in four match
			keys = append(keys, uint64(rng.Intn(8))<<52|uint64(p))
		}
	}
	slices.Sort(keys)
	if len(keys) < 3*rowChunk {
		t.Fatalf("%d matches do not span several chunks of %d", len(keys), rowChunk)
	}
	// One pass: each server's matches in key order, the servers in the
	// order of their first match.
	var order []int
	bySpan := map[int][]*Entry{}
	for _, k := range keys {
		p := int32(k & keyPlaceMask)
		s := slices.IndexFunc(spans, func(sp serverSpan) bool { return p < sp.end })
		if _, ok := bySpan[s]; !ok {
			order = append(order, s)
		}
		bySpan[s] = append(bySpan[s], entries[p])
	}
	var want []row
	for _, s := range order {
		want = append(want, row{kind: rowHeader, server: spans[s].sv})
		for _, e := range bySpan[s] {
			want = append(want, row{kind: rowItem, server: spans[s].sv, e: e})
		}
	}
	matches, rows, best := filteredRows(context.Background(), spans, entries, keys, "q")
	if len(rows) != len(want) || best != 1 {
		t.Fatalf("%d rows (best %d), want %d (best 1)", len(rows), best, len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Fatalf("row %d is %+v, want %+v", i, rows[i], want[i])
		}
	}
	for i, k := range keys {
		if matches[i] != entries[k&keyPlaceMask] {
			t.Fatalf("match %d is not the entry of key %d", i, i)
		}
	}
	// A run cancelled while its rows are built answers nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, r, _ := filteredRows(ctx, spans, entries, keys, "q"); m != nil || r != nil {
		t.Errorf("a cancelled run built %d rows", len(r))
	}
}

// A run's rows and matches come from pools and go back once the next run
// is shown: changing the filter between "s" (100,000 matches) and "1"
// (40,952) reuses the rows of the run before last (fresh pages cost a
// fault each on their first write: 15 ms for 100,000 rows on a VM,
// against 0.15 ms), while the rows shown are never handed to another
// run: while the next run works, and after it is shown, the rows on
// screen still read as a run of their own query done apart.
func TestFilterRunsReuseTheRowsOfRunsNoLongerShown(t *testing.T) {
	b := filterBench(t)
	c := b.c
	fresh := func(q string) [numKinds][]row {
		msg := filterCmd(context.Background(), filterJob{id: 1, version: c.version, query: q, all: c.all, spans: c.spans})().(common.Result).Msg.(filterDoneMsg)
		return msg.rows
	}
	want := map[string][numKinds][]row{"s": fresh("s"), "1": fresh("1")}
	// shows checks the tabs with matches (a tab with none shows a notice
	// naming the query typed, at once).
	shows := func(q, when string) {
		t.Helper()
		for k := range c.rows {
			if len(want[q][k]) > 1 && !slices.Equal(c.rows[k], want[q][k]) {
				t.Fatalf("%s, the rows of tab %d differ from the run of %q done apart (%d rows, want %d)", when, k, q, len(c.rows[k]), len(want[q][k]))
			}
		}
	}
	b.run(b.key("s"))
	shows("s", "after s")
	// Each step types the other query (as the filter line does: its
	// value, then the run).
	step := func(i int) {
		t.Helper()
		was, q := "s", "1"
		if i%2 == 1 {
			was, q = "1", "s"
		}
		c.filter.SetValue(q)
		results := b.results(c.setQuery(q)) // the run is done, its rows not shown yet
		shows(was, "while the next run was in flight")
		for _, r := range results {
			msg, ok := r.Msg.(filterDoneMsg)
			for k := range msg.rows {
				if ok && len(msg.rows[k]) > 0 && len(c.rows[k]) > 0 && &msg.rows[k][0] == &c.rows[k][0] {
					t.Fatalf("the run of %q wrote its rows of tab %d where the rows on screen are", q, k)
				}
			}
		}
		for _, r := range results {
			b.run(c.HandleResult(r))
		}
		shows(q, "once the next run was shown")
	}
	step(0)
	step(1)
	var allocated uint64
	const keys = 6
	for i := range keys {
		allocated += commontest.AllocatedBy(func() { step(i) })
	}
	// The rows of "s" alone are 100,000 * 48 bytes: a run that made its
	// rows anew would allocate more than that every other key.
	rows := uint64(len(want["s"][1])) * uint64(unsafe.Sizeof(row{}))
	if per := allocated / keys; per > rows/4 {
		t.Errorf("each key allocated %d bytes on average; the rows of \"s\" alone are %d: the runs no longer shown were not reused", per, rows)
	}
}
