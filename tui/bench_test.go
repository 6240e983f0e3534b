package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// bigCatalog is 10,000 items, 2,500 of each kind.
func bigCatalog() []mcp.CatalogItem {
	var items []mcp.CatalogItem
	for i := 0; i < 2500; i++ {
		items = append(items,
			mcp.CatalogItem{Kind: mcp.KindTool, ID: fmt.Sprintf("tool_%04d", i), Name: fmt.Sprintf("tool_%04d", i), Description: "A generated tool for the benchmark."},
			mcp.CatalogItem{Kind: mcp.KindResource, ID: fmt.Sprintf("mem://res/%04d", i), Name: fmt.Sprintf("resource-%04d", i), URI: fmt.Sprintf("mem://res/%04d", i)},
			mcp.CatalogItem{Kind: mcp.KindTemplate, ID: fmt.Sprintf("mem://t/%04d/{id}", i), Name: fmt.Sprintf("template-%04d", i), URI: fmt.Sprintf("mem://t/%04d/{id}", i), Variables: []string{"id"}},
			mcp.CatalogItem{Kind: mcp.KindPrompt, ID: fmt.Sprintf("prompt_%04d", i), Name: fmt.Sprintf("prompt_%04d", i)},
		)
	}
	return items
}

// BenchmarkViewCatalog10k draws a frame of the catalog over 10,000 items,
// in the middle of the list, with a filter active.
func BenchmarkViewCatalog10k(b *testing.B) {
	rt := newFakeRuntime()
	rt.addServer("big", bigCatalog()...)
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
