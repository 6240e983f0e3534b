package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/theme"

	"github.com/howl-mcp/howl/tui/common/commontest"
)

// BenchmarkViewCatalog10k draws a frame of the catalog over 10,000 items,
// in the middle of the list, with a filter active.
func BenchmarkViewCatalog10k(b *testing.B) {
	rt := newFakeRuntime()
	rt.addServer("big", commontest.BigCatalog()...)
	h := newHarness(b, rt, []string{"big"}, 120, 40)
	h.keys("2", "pgdown", "pgdown", "/")
	h.typeText("res")
	h.keys("enter", "pgdown")
	if title := h.m.catalog.TabTitle(1); !strings.HasSuffix(title, "/2500") {
		b.Fatalf("the resources tab is %q, want the 2500 filtered", title)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.m.View()
	}
}

// BenchmarkViewCatalog120k draws a frame over 120,000 items (issue 20:
// a key's echo waits for it): on the Resources tab without a filter, with
// one item marked new (a list_changed), and under the filter "s" (every
// resource matches). Nothing in a frame may walk the catalog.
func BenchmarkViewCatalog120k(b *testing.B) {
	rt := newFakeRuntime()
	items := commontest.ScaleCatalog()
	rt.addServer("big", items...)
	h := newHarness(b, rt, []string{"big"}, 120, 40)
	h.keys("2")
	frames := func(name string) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.m.View()
			}
		})
	}
	frames("plain")
	h.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventCatalogChanged, Server: "big", Change: &mcp.CatalogChange{Added: []string{items[500].Key()}}}}})
	if title := h.m.catalog.TabTitle(1); !strings.HasSuffix(title, "+1 new") {
		b.Fatalf("the resources tab is %q, want one new", title)
	}
	frames("one-new")
	h.keys("/")
	h.typeText("s")
	if title := h.m.catalog.TabTitle(1); !strings.HasPrefix(title, "Resources 100000/") {
		b.Fatalf("the resources tab is %q, want every resource matched", title)
	}
	frames("filtered")
}

// repaintBytes is what bubbletea's line-diffing renderer writes to go from
// frame a to frame b: every line that changed, whole (an unchanged line
// costs a cursor move, counted as 4 bytes).
func repaintBytes(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	n := 0
	for i, l := range bl {
		if i < len(al) && al[i] == l {
			n += 4
			continue
		}
		n += len(l) + 4
	}
	return n
}

// BenchmarkCatalogCursorMoveRepaint measures the bytes a one-line cursor
// move in the catalog makes the terminal write, in colour, at 140x45 on
// the demo server (reported as bytes/j).
func BenchmarkCatalogCursorMoveRepaint(b *testing.B) {
	prev := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(prev)
	th := theme.New(theme.Options{Dark: true, Profile: termenv.TrueColor})
	h := newHarnessWith(b, demoRuntime(b), []string{"demo"}, 140, 45, Options{Theme: th})
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := h.view()
		k := "j"
		if i%20 >= 10 {
			k = "k"
		}
		h.keys(k)
		total += repaintBytes(before, h.view())
	}
	b.ReportMetric(float64(total)/float64(b.N), "bytes/j")
}
