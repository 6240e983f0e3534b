package tui

import (
	"strings"
	"testing"

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
