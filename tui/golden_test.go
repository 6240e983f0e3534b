package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// goldenSizes are the terminal sizes every golden is drawn at.
var goldenSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// TestGolden draws the screens of the issue on the demo server, colour
// off, at 80x24 and 120x40. Run with -update to rewrite testdata/.
func TestGolden(t *testing.T) {
	rt := demoRuntime(t)
	steps := []struct {
		name string
		do   func(h *harness)
	}{
		{"catalog_tools", func(h *harness) {}},
		{"catalog_resources", func(h *harness) { h.keys("2") }},
		{"catalog_templates", func(h *harness) { h.keys("3") }},
		{"catalog_prompts", func(h *harness) { h.keys("4") }},
		{"detail_tool", func(h *harness) { h.selectItem(demo.StructuredTool); h.keys("tab") }},
		{"detail_app_tool", func(h *harness) { h.selectItem(demo.DiceTool); h.keys("tab") }},
		{"detail_resource", func(h *harness) { h.keys("2"); h.selectItem(demo.WelcomeURI); h.keys("tab") }},
		{"detail_template", func(h *harness) { h.keys("3"); h.selectItem(demo.UserTemplate); h.keys("tab") }},
		{"detail_prompt", func(h *harness) { h.keys("4"); h.selectItem(demo.CodeReviewPrompt); h.keys("tab") }},
		{"detail_skill", func(h *harness) { h.keys("4", "]"); h.selectItem("skill://log-triage/SKILL.md"); h.keys("tab") }},
		{"viewer_log", func(h *harness) { h.keys("2"); h.selectItem(demo.LogURI); h.keys("enter") }},
		{"hex_png", func(h *harness) { h.keys("2"); h.selectItem(demo.PNGURI); h.keys("enter", "x") }},
		{"image_png", func(h *harness) { h.keys("2"); h.selectItem(demo.PNGURI); h.keys("enter") }},
		{"form_tool", func(h *harness) { h.selectItem(demo.StructuredTool); h.keys("enter") }},
		{"form_template", func(h *harness) {
			h.keys("3")
			h.selectItem(demo.UserTemplate)
			h.keys("enter")
			h.typeText("ada")
		}},
		{"form_prompt", func(h *harness) { h.keys("4"); h.selectItem(demo.CodeReviewPrompt); h.keys("enter") }},
		{"help", func(h *harness) { h.keys("?") }},
	}
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					h := newHarness(t, rt, []string{"demo"}, size.w, size.h)
					s.do(h)
					requireGolden(t, h.view())
				})
			}
		})
	}
}

// TestGoldenFailedServer shows a server that cannot start: its one-line
// reason in the status bar and in place in the catalog.
func TestGoldenFailedServer(t *testing.T) {
	broken := mcp.ServerConfig{Name: "broken", Transport: mcp.TransportStdio, Command: "/nonexistent/howl-missing-server"}
	rt := sharedRuntime(t, "demo+broken", demoServer("demo"), broken)
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			h := newHarness(t, rt, []string{"broken", "demo"}, size.w, size.h)
			v := h.view()
			if !strings.Contains(v, "broken ✗ failed") {
				t.Fatalf("no failure in the status bar:\n%s", v)
			}
			requireGolden(t, v)
		})
	}
}

// TestGoldenTooSmall is the "make me bigger" screen.
func TestGoldenTooSmall(t *testing.T) {
	rt := demoRuntime(t)
	for _, size := range []struct{ w, h int }{{59, 16}, {40, 10}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			h := newHarness(t, rt, []string{"demo"}, size.w, size.h)
			requireGolden(t, h.view())
		})
	}
}

// requireGolden compares a view with its golden file, after checking that
// it is deterministic: no temporary path and no escape sequence.
func requireGolden(t *testing.T, view string) {
	t.Helper()
	if strings.Contains(view, testCacheDir) {
		t.Fatalf("the view shows a temporary path:\n%s", view)
	}
	if strings.Contains(view, "\x1b[") {
		t.Fatalf("the view has escape sequences under the Ascii profile: %q", view)
	}
	golden.RequireEqual(t, []byte(view))
}
