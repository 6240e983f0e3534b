package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/tui/common"
)

// helpLine is the screen's help line (the row above the status bar).
func helpLine(v string) string {
	lines := strings.Split(v, "\n")
	return lines[len(lines)-2]
}

// Without a config file (the built-in demo) "always" cannot be saved: the
// dialog says so once, offers only what it can do, no two keys read the
// same, the help line agrees, and a does nothing.
func TestPermissionDialogWithoutAConfigOffersOnlyWhatItCanDo(t *testing.T) {
	hs, srv, clock := permissionHarness(t, llm.Permissions{}, "", "echo", `{"message":"hi"}`)
	defer hs.dumpOnFailure()
	requirePermissionDialog(t, hs)
	clock.advance(common.PermissionGrace)
	v := hs.view()
	if n := strings.Count(v, "is not offered"); n != 1 {
		t.Errorf("the reason \"always\" is missing is said %d times, want once:\n%s", n, v)
	}
	if !strings.Contains(v, "without a config file") {
		t.Errorf("the dialog does not say why \"always\" is missing:\n%s", v)
	}
	if strings.Contains(v, "a allow") || strings.Contains(v, "a always") || strings.Contains(v, "for the session (no config") {
		t.Errorf("the dialog offers an \"a\" it cannot keep:\n%s", v)
	}
	if h := helpLine(v); strings.Contains(h, "always") || !strings.Contains(h, "allow once") || !strings.Contains(h, "deny") {
		t.Errorf("the help line disagrees with the dialog: %q", h)
	}
	hs.keys("a")
	requirePermissionDialog(t, hs)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a answered a dialog that does not offer it: %d requests", n)
	}
	hs.keys("s")
	if res := toolResult(t, srv); strings.Contains(res.Content, "not run") {
		t.Errorf("s did not allow the call: %+v", res)
	}
}

// With a config file "always" is offered, by the dialog and the help line.
func TestPermissionDialogWithAConfigOffersAlways(t *testing.T) {
	hs, _, clock := permissionHarness(t, llm.Permissions{}, t.TempDir()+"/mcp.json", "echo", `{"message":"hi"}`)
	defer hs.dumpOnFailure()
	requirePermissionDialog(t, hs)
	clock.advance(common.PermissionGrace)
	v := hs.view()
	if !strings.Contains(v, "a always allow demo:echo") || strings.Contains(v, "is not offered") {
		t.Errorf("the dialog does not offer always:\n%s", v)
	}
	if h := helpLine(v); !strings.Contains(h, "always allow") {
		t.Errorf("the help line does not offer always: %q", h)
	}
}

// With no chat model the sampling dialog says so and offers only reject,
// in the dialog and the help line, and its explanation never splits the
// --model flag, at any width.
func TestSamplingWithoutAModelOffersOnlyRejectAndKeepsTheFlagWhole(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "hi"})
	b.waitDialog("sampling")
	for w := 60; w <= 200; w++ {
		b.h.send(tea.WindowSizeMsg{Width: w, Height: 45})
		if v := b.h.view(); !strings.Contains(v, "--model") {
			t.Fatalf("%d columns: the flag --model is split or missing:\n%s", w, v)
		}
	}
	for _, size := range [][2]int{{80, 24}, {140, 45}, {200, 60}} {
		b.h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		v := b.h.view()
		if !strings.Contains(v, "none: howl has no chat model to ask") {
			t.Errorf("%dx%d: the dialog does not say there is no model:\n%s", size[0], size[1], v)
		}
		if h := helpLine(v); strings.Contains(h, "approve") || !strings.Contains(h, "reject") {
			t.Errorf("%dx%d: the help line offers %q", size[0], size[1], h)
		}
	}
	b.h.keys("esc")
	b.result(out)
}
