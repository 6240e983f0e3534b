package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// A field typed as JSON offers a skeleton of its schema while it is
// empty (properties in written order), and → fills it in.
func TestAJSONFieldOffersASkeletonToFillIn(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("graph", mcp.CatalogItem{Kind: mcp.KindTool, ID: "remember", Name: "remember",
		Schema: json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object",` +
			`"properties":{"name":{"type":"string"},"kind":{"enum":["person","place"]},"observations":{"type":"array","items":{"type":"string"}},"weight":{"type":"number"}}}}},"required":["entities"]}`)})
	hs := newHarness(t, rt, []string{"graph"}, 120, 40)
	hs.keys("enter")
	skeleton := `[{"name":"","kind":"person","observations":[""],"weight":0}]`
	if v := hs.view(); !strings.Contains(v, "↳ → fills in "+skeleton[:40]) {
		t.Fatalf("the form does not offer the skeleton:\n%s", v)
	}
	hs.keys("right")
	if v := hs.view(); strings.Contains(v, "fills in") || !strings.Contains(v, skeleton[:40]) {
		t.Fatalf("→ did not fill the skeleton in:\n%s", v)
	}
	hs.keys("ctrl+s")
	if rt.callCount(`mcp_invoke_graph {"arguments":{"entities":[{"kind":"person","name":"","observations":[""],"weight":0}]},"tool":"remember"}`) != 1 {
		t.Fatalf("calls: %v", rt.calls)
	}
}
