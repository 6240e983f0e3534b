// Package commontest is what the TUI packages' test harnesses share: run
// a command as the program would, and a large catalog to measure with.
// Only tests import it.
package commontest

import (
	"fmt"
	"runtime"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
)

// Messages runs cmd, and every command it batches, and returns the
// messages they produced, undelivered: answers in flight, for a harness
// to deliver now or later.
func Messages(cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			out = append(out, msg)
		}
	}
	return out
}

// BigCatalog is 10,000 items, 2,500 of each kind.
func BigCatalog() []mcp.CatalogItem {
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

// ScaleCatalog is a catalog shaped like demo-server --scale 100000:
// 100,000 resources, 10,000 tools and 10,000 prompts.
func ScaleCatalog() []mcp.CatalogItem {
	var items []mcp.CatalogItem
	for i := 1; i <= 100_000; i++ {
		n := fmt.Sprintf("%06d", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, ID: "demo://scale/" + n, Name: "scale-" + n, Title: fmt.Sprintf("Generated item %d", i), URI: "demo://scale/" + n})
	}
	for i := 1; i <= 10_000; i++ {
		n := fmt.Sprintf("%05d", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindTool, ID: "gen_tool_" + n, Name: "gen_tool_" + n, Title: fmt.Sprintf("Generated tool %d", i)},
			mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "gen_prompt_" + n, Name: "gen_prompt_" + n, Title: fmt.Sprintf("Generated prompt %d", i)})
	}
	return items
}

// AllocatedBy is how many bytes f allocates on the heap, freed or not:
// what a test pins when it bounds the work a step does.
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
