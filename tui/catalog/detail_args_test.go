package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// detailOf is the detail pane's text for one item, at 70 columns.
func detailOf(t *testing.T, it mcp.CatalogItem) string {
	t.Helper()
	b := newBench(t, it)
	return strings.Join(renderDetail(b.c.com, &Entry{item: &it}, 70), "\n")
}

// A prompt or a tool that takes no arguments does not list "none" under
// an Arguments heading, nor offer to fill them in: enter just gets it.
func TestAnItemWithoutArgumentsSaysOnlyWhatEnterDoes(t *testing.T) {
	for _, c := range []struct {
		it   mcp.CatalogItem
		want string
	}{
		{mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "hello", Name: "hello"}, "enter: get the prompt (it takes no arguments)"},
		{mcp.CatalogItem{Kind: mcp.KindTool, ID: "ping", Name: "ping", Schema: json.RawMessage(`{"type":"object"}`)}, "enter: call it (it takes no arguments; enter again confirms)"},
	} {
		v := detailOf(t, c.it)
		for _, bad := range []string{"Arguments", "none", "fill in the arguments", "* required"} {
			if strings.Contains(v, bad) {
				t.Errorf("%s %s shows %q:\n%s", c.it.Kind, c.it.Name, bad, v)
			}
		}
		if !strings.Contains(v, c.want) {
			t.Errorf("%s %s does not say %q:\n%s", c.it.Kind, c.it.Name, c.want, v)
		}
	}
}

// The "* required" legend shows only when something is required.
func TestTheRequiredLegendShowsOnlyWhenAnArgumentIsRequired(t *testing.T) {
	optional := detailOf(t, mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "p", Name: "p", Arguments: []mcp.PromptArgument{{Name: "tone"}}})
	if strings.Contains(optional, "* required") || !strings.Contains(optional, "tone") {
		t.Errorf("a prompt with only an optional argument:\n%s", optional)
	}
	tool := detailOf(t, mcp.CatalogItem{Kind: mcp.KindTool, ID: "t", Name: "t", Schema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)})
	if strings.Contains(tool, "* required") {
		t.Errorf("a tool with only optional arguments shows the legend:\n%s", tool)
	}
	required := detailOf(t, mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "r", Name: "r", Arguments: []mcp.PromptArgument{{Name: "lang", Required: true}}})
	if !strings.Contains(required, "* required") {
		t.Errorf("a prompt with a required argument lacks the legend:\n%s", required)
	}
}
