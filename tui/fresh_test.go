package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// TestListChangedMarksTheNewItemsUntilSeen has the demo add a note (it
// then sends notifications/resources/list_changed): the runtime lists
// again, the Resources tab counts the new item, its row is marked, and
// the mark goes once the cursor has been on it.
func TestListChangedMarksTheNewItemsUntilSeen(t *testing.T) {
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("Resources 126")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args, _ := json.Marshal(map[string]any{"tool": demo.AddNoteTool, "arguments": map[string]string{"title": "fresh one"}})
	if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
		t.Fatal(err)
	}
	wait("Resources 127 +1 new")
	tm.Send(keyMsg("2"))
	wait("+ extra-note-001")
	for range 6 { // the list is sorted: app.log, ..., dice.html, empty.txt, extra-note-001
		tm.Send(keyMsg("down"))
	}
	wait("A note added with the add_note tool") // the detail pane shows it
	tm.Send(keyMsg("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if title := final.catalog.TabTitle(1); title != "Resources 127" {
		t.Errorf("the tab is %q: items still marked new after the cursor was on them", title)
	}
	if v := final.View(); !strings.Contains(v, "Resources 127") || strings.Contains(v, "new") {
		t.Errorf("the tab should count 127 with no new mark:\n%s", v)
	}
	m.Close()
}

func TestCatalogChangedMarksAddedAndForgetsRemoved(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("mem", sampleItems()...)
	h := newHarness(t, rt, []string{"mem"}, 100, 30)
	h.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventCatalogChanged, Server: "mem", Change: &mcp.CatalogChange{Added: []string{"prompt:plain", "tool:wipe"}}}}})
	if got := h.m.catalog.TabTitle(0); got != "Tools 2 +1 new" {
		t.Errorf("tools tab %q", got)
	}
	if got := h.m.catalog.TabTitle(3); got != "Prompts 2 +1 new" {
		t.Errorf("prompts tab %q", got)
	}
	h.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventCatalogChanged, Server: "mem", Change: &mcp.CatalogChange{Removed: []string{"prompt:plain"}}}}})
	if got := h.m.catalog.TabTitle(3); got != "Prompts 2" {
		t.Errorf("a removed item is still counted new: %q", got)
	}
	if !strings.Contains(h.view(), "+ wipe") {
		t.Errorf("the new tool's row is not marked:\n%s", h.view())
	}
	h.keys("down") // the cursor reaches wipe
	if got := h.m.catalog.TabTitle(0); got != "Tools 2" {
		t.Errorf("seen, but the tab still says %q", got)
	}
}
