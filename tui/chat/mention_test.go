package chat

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

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
		got := x.narrow(items, typed)
		var full mentionIndex
		want := full.narrow(items, typed)
		if !slices.Equal(labels(got), labels(want)) {
			t.Fatalf("%q after narrowing finds %d, a full search %d:\n%v\n%v", typed, len(got), len(want), labels(got)[:min(5, len(got))], labels(want)[:min(5, len(want))])
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
	if want := full.narrow(items, "@00"); len(c.items) != len(want) || c.items[0].label != want[0].label {
		t.Fatalf("the ranking shown has %d items, a full search %d", len(c.items), len(want))
	}
	next := answer(c.Refilter("read @005"))
	c.HandleNarrowed(next.ID, next.Msg.(MentionsNarrowed), "read @005")
	if want := full.narrow(items, "@005"); len(c.items) != len(want) || c.items[0].label != want[0].label {
		t.Errorf("the next key's ranking has %d items, a full search %d", len(c.items), len(want))
	}

	// Enter while a ranking is in flight chooses among the typed word's
	// matches, not the older word's still on screen; the late answer is
	// then dropped.
	late := answer(c.Refilter("read @0051"))
	want := full.narrow(items, "@0051")
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
