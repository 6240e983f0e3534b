package tui

import (
	"strings"
	"testing"
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
