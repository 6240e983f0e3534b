package chat

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/howl-mcp/howl/mcp"
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
