package chat

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// ranked is x's ranking of items for typed, run to its end.
func ranked(x *mentionIndex, items []Completion, typed string) []Completion {
	out, _ := x.narrow(context.Background(), items, typed)
	return out
}

// A word that extends the last one is ranked among the last one's
// matches only, and finds what a search of every item finds, in the same
// order (ties included); a word that does not extend it (a backspace, a
// new word) searches every item again; one that extends a word that
// matched nothing matches nothing.
func TestNarrowingAMentionFindsWhatAFullSearchFinds(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var items []Completion
	for i := range 3000 {
		uri := fmt.Sprintf("demo://%s/%04d", []string{"scale", "notes", "images", "sky"}[rng.Intn(4)], rng.Intn(10000))
		items = append(items, MentionCompletion(&mcp.CatalogItem{Kind: mcp.KindResource, Server: []string{"demo", "notes"}[i%2], ID: uri, URI: uri, Name: uri}))
	}
	labels := func(cs []Completion) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.label)
		}
		return out
	}
	var x mentionIndex
	for _, typed := range []string{"@", "@d", "@de", "@dsc", "@dscal1", "@dsc", "@n", "@no9", "@no9zz", "@no9zzq", "@", "@s0"} {
		got := ranked(&x, items, typed)
		var full mentionIndex
		want := ranked(&full, items, typed)
		if !slices.Equal(labels(got), labels(want)) {
			t.Fatalf("%q after narrowing finds %d, a full search %d:\n%v\n%v", typed, len(got), len(want), labels(got)[:min(5, len(got))], labels(want)[:min(5, len(want))])
		}
		// Ranked in chunks, the order is one search's over every label.
		if typed != "@" {
			var one []string
			for _, mt := range fuzzy.FindFrom(typed[1:], labelSource{items: items}) {
				one = append(one, items[mt.Index].label)
			}
			if !slices.Equal(labels(want), one) {
				t.Fatalf("%q ranked in chunks differs from one search over every item:\n%v\n%v", typed, labels(want)[:min(5, len(want))], one[:min(5, len(one))])
			}
		}
		if typed == "@no9zzq" && len(got) != 0 {
			t.Errorf("%q extends a word that matched nothing, yet found %d", typed, len(got))
		}
	}
}

// Over AsyncMentions items a key ranks the popup off the update path: the
// key returns the ranking's command and the popup shows what it showed
// until the answer; an answer for a key since is dropped, the latest one
// shown, and the next key narrows from it.
func TestAMentionKeyOverManyItemsIsRankedOffTheUpdatePath(t *testing.T) {
	var items []Completion
	for i := range AsyncMentions + 1 {
		uri := fmt.Sprintf("demo://scale/%06d", i)
		items = append(items, MentionCompletion(&mcp.CatalogItem{Kind: mcp.KindResource, Server: "demo", ID: uri, URI: uri, Name: uri}))
	}
	c := &Completer{com: testCommon()}
	c.ShowMentions("read @", 5, items)
	answer := func(cmd tea.Cmd) common.Result {
		t.Helper()
		if cmd == nil {
			t.Fatal("the key ranked the popup on the update path: no command")
		}
		return cmd().(common.Result)
	}
	stale := answer(c.Refilter("read @0"))
	if len(c.items) != len(items) {
		t.Fatalf("the popup changed before the ranking answered: %d items", len(c.items))
	}
	fresh := answer(c.Refilter("read @00"))
	c.HandleNarrowed(stale.ID, stale.Msg.(MentionsNarrowed), "read @00")
	if len(c.items) != len(items) {
		t.Errorf("a stale ranking was shown: %d items", len(c.items))
	}
	c.HandleNarrowed(fresh.ID, fresh.Msg.(MentionsNarrowed), "read @00")
	var full mentionIndex
	if want := ranked(&full, items, "@00"); len(c.items) != len(want) || c.items[0].label != want[0].label {
		t.Fatalf("the ranking shown has %d items, a full search %d", len(c.items), len(want))
	}
	next := answer(c.Refilter("read @005"))
	c.HandleNarrowed(next.ID, next.Msg.(MentionsNarrowed), "read @005")
	if want := ranked(&full, items, "@005"); len(c.items) != len(want) || c.items[0].label != want[0].label {
		t.Errorf("the next key's ranking has %d items, a full search %d", len(c.items), len(want))
	}

	// Enter while a ranking is in flight chooses among the typed word's
	// matches, not the older word's still on screen; the late answer is
	// then dropped.
	late := answer(c.Refilter("read @0051"))
	want := ranked(&full, items, "@0051")
	if it, ok := c.Selected(); !ok || it.label != want[0].label {
		t.Errorf("chose %q with the ranking in flight, want %q", it.label, want[0].label)
	}
	if got := c.Accept(); got != "read "+want[0].insert {
		t.Errorf("accepted %q, want %q", got, "read "+want[0].insert)
	}
	c.HandleNarrowed(late.ID, late.Msg.(MentionsNarrowed), "read @0051")
	if c.IsOpen() {
		t.Error("the late ranking reopened the accepted popup")
	}
}

// mentionItems are n resources of one server, as @-mentions.
func mentionItems(n int) []Completion {
	items := make([]Completion, n)
	for i := range items {
		uri := fmt.Sprintf("demo://scale/%06d", i)
		items[i] = MentionCompletion(&mcp.CatalogItem{Kind: mcp.KindResource, Server: "demo", ID: uri, URI: uri, Name: uri})
	}
	return items
}

// A ranking superseded by the next key answers nothing, and the newest
// one is shown; so does one whose popup closed: esc, enter choosing (it
// ranks the word itself), or any close. On two cores a superseded
// ranking ran to its end (40-55 ms at 100,000 items) beside the update
// path, delaying the next key's echo.
func TestASupersededMentionRankingDeliversNothing(t *testing.T) {
	items := mentionItems(AsyncMentions + 1)
	c := &Completer{com: testCommon()}
	c.ShowMentions("read @", 5, items)
	stale := c.Refilter("read @0")
	fresh := c.Refilter("read @00")
	if r := stale().(common.Result); r.Msg != nil {
		t.Errorf("the ranking superseded by the next key delivered %T", r.Msg)
	}
	r := fresh().(common.Result)
	c.HandleNarrowed(r.ID, r.Msg.(MentionsNarrowed), "read @00")
	var full mentionIndex
	if want := ranked(&full, items, "@00"); len(c.items) != len(want) || c.items[0].label != want[0].label {
		t.Fatalf("the newest ranking is not shown: %d items, a full search %d", len(c.items), len(want))
	}

	for _, closing := range []struct {
		name string
		do   func(c *Completer)
	}{
		{"esc", func(c *Completer) { c.HandleKey(tea.KeyMsg{Type: tea.KeyEsc}) }},
		{"enter", func(c *Completer) { c.HandleKey(tea.KeyMsg{Type: tea.KeyEnter}) }},
		{"close", (*Completer).Close},
	} {
		c.ShowMentions("read @", 5, items)
		cmd := c.Refilter("read @01")
		closing.do(c)
		if r := cmd().(common.Result); r.Msg != nil {
			t.Errorf("%s closed the popup, and its ranking still delivered %T", closing.name, r.Msg)
		}
	}
}

// A ranking checks its context between chunks of items: the next key,
// typed while it runs, stops it within a chunk instead of at its end.
func TestAMentionRankingStopsWithinAChunkOfTheNextKey(t *testing.T) {
	items := mentionItems(100_000)
	c := &Completer{com: testCommon()}
	c.ShowMentions("read @", 5, items)
	running := c.Refilter("read @0")
	chunks, total := 0, (len(items)+mentionChunk-1)/mentionChunk
	var next tea.Cmd
	var mu sync.Mutex // the chunks are matched by common.Workers goroutines
	rankedChunk = func() {
		mu.Lock()
		defer mu.Unlock()
		if chunks++; chunks == 3 && next == nil {
			next = c.Refilter("read @00") // typed while the ranking runs
		}
	}
	defer func() { rankedChunk = nil }()
	// Each worker finishes the chunk it is on: 3, and one more for each
	// other worker at most.
	if r := running().(common.Result); r.Msg != nil || chunks < 3 || chunks > 3+common.Workers()-1 {
		t.Errorf("the superseded ranking ran %d of %d chunks with %d workers and delivered %T; want 3 (+ a chunk for each other worker) and nothing", chunks, total, common.Workers(), r.Msg)
	}
	chunks = 0
	r := next().(common.Result)
	if chunks != total {
		t.Errorf("the newest ranking ran %d of %d chunks", chunks, total)
	}
	c.HandleNarrowed(r.ID, r.Msg.(MentionsNarrowed), "read @00")
	if !c.IsOpen() || !strings.Contains(c.items[0].label, "00") {
		t.Errorf("the newest ranking is not shown (open %v)", c.IsOpen())
	}
}
