package tui

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/mcptest"
)

// On the demo's Resources tab with the cursor on note-009, /moon puts the
// cursor on moon.png, the best match, and Enter opens it; the notes,
// whose letters only happen to spell m-o-o-n apart, are not matches.
func TestANewFilterPutsTheCursorOnTheBestMatch(t *testing.T) {
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 140, 45)
	defer hs.dumpOnFailure()
	hs.keys("2")
	hs.selectItem("demo://notes/note-009")
	hs.keys("/")
	hs.typeText("moon")
	if e := hs.m.catalog.Selected(); e == nil || e.Item().Name != "moon.png" {
		t.Fatalf("after /moon the cursor is on %v, want moon.png", e)
	}
	if title := hs.m.catalog.TabTitle(1); title != "Resources 1/125" {
		t.Errorf("/moon matches %q, want only moon.png of 125", title)
	}
	hs.keys("enter", "enter")
	if v := hs.view(); !strings.Contains(v, "moon.png") || strings.Contains(v, "note-009 ·") {
		t.Fatalf("enter did not open moon.png")
	}
}

// brokenPromptsArg makes the test binary a server whose prompts/list
// always fails (mcptest.ServeBrokenPrompts).
const brokenPromptsArg = "broken-prompts"

// brokenPromptsServer is the config entry of that server.
func brokenPromptsServer(name string) mcp.ServerConfig {
	c := demoServer(name)
	c.Args = []string{brokenPromptsArg}
	c.Era = mcp.EraLegacy
	return c
}

// A server whose prompts/list fails has an unknown number of prompts:
// the tab, the server's header and the status bar say "?", never 0, and
// the Prompts tab says why.
func TestAFailedListingShowsAQuestionMarkNotZero(t *testing.T) {
	rt := sharedRuntime(t, "broken-prompts", brokenPromptsServer("broken"))
	hs := newHarness(t, rt, []string{"broken"}, 140, 45)
	defer hs.dumpOnFailure()
	v := hs.view()
	if !strings.Contains(v, "Prompts ?") || strings.Contains(v, "Prompts 0") {
		t.Errorf("the Prompts tab must count ? (unknown), not 0")
	}
	if !strings.Contains(v, "? prompts (listing failed)") || strings.Contains(v, "0 prompts") {
		t.Errorf("the status bar must say the prompts are unknown")
	}
	hs.keys("4")
	v = hs.view()
	if !strings.Contains(v, "broken ?") || !strings.Contains(v, "listing prompts failed") || !strings.Contains(v, "store is down") {
		t.Errorf("the Prompts tab must show the server's count as ? and the reason %q", mcptest.BrokenPromptsReason)
	}
}

// A server that fails to start says why where the person is looking: the
// details pane shows its reason and what it wrote to stderr, instead of
// "Nothing selected.".
func TestAFailedServerShowsItsReasonAndStderrInTheDetailsPane(t *testing.T) {
	crash := mcp.ServerConfig{Name: "crashy", Transport: mcp.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", "echo 'config error: DATABASE_URL is not set' >&2; exit 3"}, Era: mcp.EraLegacy}
	rt := sharedRuntime(t, "crashy", crash)
	hs := newHarness(t, rt, []string{"crashy"}, 140, 45)
	defer hs.dumpOnFailure()
	v := hs.view()
	for _, want := range []string{"crashy did not start", "DATABASE_URL is not set", "What it wrote to stderr", "S opens the servers list"} {
		if !strings.Contains(v, want) {
			t.Errorf("the details pane does not say %q", want)
		}
	}
	if strings.Contains(v, "Nothing selected.") {
		t.Errorf("the details pane says Nothing selected. beside a failed server")
	}
	if !strings.Contains(v, "[Tools ?]") {
		t.Errorf("what a failed server offers is unknown: its tabs count ?, not 0")
	}
}
