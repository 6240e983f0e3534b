package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

func fakeHarness(t *testing.T, w, h int) (*harness, *fakeRuntime) {
	t.Helper()
	rt := newFakeRuntime()
	rt.addServer("mem", sampleItems()...)
	rt.texts["mem://log"] = bigLog(3000)
	rt.texts["mem://small"] = "one\ntwo\nthree\n"
	hs := newHarness(t, rt, []string{"mem"}, w, h)
	t.Cleanup(hs.dumpOnFailure)
	return hs, rt
}

func TestUpdateDoesNoIOAndTheCatalogLoadsThroughCommands(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	// The guard fails the test on any runtime use inside Update or View;
	// the catalog still arrived, so it came through commands.
	if hs.rt.uses.Load() == 0 || rt.callCount("catalog mem") != 1 {
		t.Fatalf("runtime uses = %d, catalog calls = %d", hs.rt.uses.Load(), rt.callCount("catalog mem"))
	}
	if got := hs.m.catalog.TabTitle(0); got != "Tools 2" {
		t.Errorf("tab title = %q", got)
	}
	hs.keys("2", "enter", "n", "/", "x", "esc", "esc", "3", "enter", "esc", "4", "tab", "?", "esc", "S", "esc")
	if !strings.Contains(hs.view(), "[Prompts 2]") {
		t.Errorf("the tab bar does not show Prompts as active")
	}
}

func TestTabSwitchingWithKeysAndTheTabBar(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	for i, k := range []string{"2", "3", "4", "5", "1"} {
		hs.keys(k)
		want := []string{"[Resources 2]", "[Templates 1]", "[Prompts 2]", "[Skills", "[Tools 2]"}[i]
		if v := hs.view(); !strings.Contains(v, want) {
			t.Fatalf("after %q the tab bar lacks %q:\n%s", k, want, strings.SplitN(v, "\n", 2)[0])
		}
	}
	hs.keys("]", "]")
	if hs.m.catalog.Tab() != 2 {
		t.Errorf("] ] from Tools: tab %d, want 2", hs.m.catalog.Tab())
	}
	hs.keys("[")
	if hs.m.catalog.Tab() != 1 {
		t.Errorf("[ : tab %d, want 1", hs.m.catalog.Tab())
	}
	// A click on the tab bar switches too.
	spans := hs.m.tabSpans()
	hs.send(tea.MouseMsg{X: spans[3][0] + 1, Y: 0, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if hs.m.catalog.Tab() != 3 {
		t.Errorf("clicking the Prompts tab: tab %d", hs.m.catalog.Tab())
	}
}

func TestFilterNarrowsEveryTabAndEscClearsIt(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	hs.keys("/")
	hs.typeText("ech")
	v := hs.view()
	if !strings.Contains(v, "[Tools 1/2]") || !strings.Contains(v, "Resources 0/2") {
		t.Fatalf("filter counts missing:\n%s", v)
	}
	if e := hs.m.catalog.Selected(); e == nil || e.Item().ID != "echo" {
		t.Fatalf("selected %+v, want echo", e)
	}
	if !hs.m.catalog.TextInputFocused() {
		t.Fatal("the filter input lost focus while typing")
	}
	// Typing q goes into the filter, it does not quit.
	hs.typeText("q")
	if hs.quit || hs.m.catalog.Query() != "echq" {
		t.Fatalf("q while filtering: quit=%v query=%q", hs.quit, hs.m.catalog.Query())
	}
	hs.keys("backspace", "enter")
	if hs.m.catalog.TextInputFocused() || hs.m.catalog.Query() != "ech" {
		t.Fatalf("enter should keep the filter and leave the input: focused=%v query=%q", hs.m.catalog.TextInputFocused(), hs.m.catalog.Query())
	}
	hs.keys("esc")
	if hs.m.catalog.Query() != "" || !strings.Contains(hs.view(), "[Tools 2]") {
		t.Fatalf("esc did not clear the filter:\n%s", hs.view())
	}
}

func TestEnterOnEachKindStartsItsAction(t *testing.T) {
	t.Run("resource reads into the viewer", func(t *testing.T) {
		hs, rt := fakeHarness(t, 120, 40)
		hs.keys("2")
		hs.selectItem("mem://small")
		hs.keys("enter")
		if !hs.m.viewer.Open() || hs.m.viewer.Title() != "mem://small" || hs.m.viewer.Failed() {
			t.Fatalf("viewer: open=%v showing %q", hs.m.viewer.Open(), hs.m.viewer.Title())
		}
		if rt.callCount("mcp_read_mem ") != 1 || !strings.Contains(hs.view(), "three") {
			t.Fatalf("read calls %d; view:\n%s", rt.callCount("mcp_read_mem "), hs.view())
		}
		if hs.m.focus != focusRight {
			t.Error("the viewer did not take focus")
		}
	})
	t.Run("template opens a form with a live preview, then reads", func(t *testing.T) {
		hs, rt := fakeHarness(t, 120, 40)
		rt.texts["mem://users/ada"] = "Ada Lovelace\n"
		hs.keys("3", "enter")
		if hs.m.dialogs.Top() == nil || hs.m.dialogs.Top().ID() != "form:resource_template:mem://users/{id}" {
			t.Fatalf("no template form: %v", hs.m.dialogs.Top())
		}
		hs.typeText("ada")
		if v := hs.view(); !strings.Contains(v, "→ mem://users/ada") {
			t.Fatalf("no preview of the expanded URI:\n%s", v)
		}
		hs.keys("enter")
		if hs.m.dialogs.Len() != 0 || !strings.Contains(hs.view(), "Ada Lovelace") {
			t.Fatalf("template read did not land:\n%s", hs.view())
		}
	})
	t.Run("tool opens a schema form, validates, then calls", func(t *testing.T) {
		hs, rt := fakeHarness(t, 120, 40)
		hs.keys("enter")
		d, ok := hs.m.dialogs.Top().(*dialog.FormDialog)
		if !ok || len(d.Form().Fields()) != 1 || d.Form().Fields()[0].Name != "message" {
			t.Fatalf("tool form: %+v", hs.m.dialogs.Top())
		}
		hs.typeText("hi")
		hs.keys("enter")
		if hs.m.dialogs.Len() != 0 || rt.callCount(`mcp_invoke_mem {"arguments":{"message":"hi"},"tool":"echo"}`) != 1 {
			t.Fatalf("dialogs %d, calls %v", hs.m.dialogs.Len(), rt.calls)
		}
		if !strings.Contains(hs.view(), "result of echo") {
			t.Fatalf("no result:\n%s", hs.view())
		}
	})
	t.Run("tool form fields follow the schema types", func(t *testing.T) {
		hs, rt := fakeHarness(t, 120, 40)
		hs.keys("down", "enter")
		d := hs.m.dialogs.Top().(*dialog.FormDialog)
		kinds := map[string]dialog.FieldKind{}
		for _, f := range d.Form().Fields() {
			kinds[f.Name] = f.Kind
		}
		want := map[string]dialog.FieldKind{"force": dialog.FieldBool, "count": dialog.FieldInteger, "mode": dialog.FieldEnum, "tags": dialog.FieldJSON}
		for n, k := range want {
			if kinds[n] != k {
				t.Errorf("field %s kind %d, want %d", n, kinds[n], k)
			}
		}
		if !strings.Contains(hs.view(), "destructive") {
			t.Error("a destructive tool's form does not warn")
		}
		hs.keys("right") // force: (not set) -> true
		hs.keys("tab")
		hs.typeText("x") // count: not an integer
		hs.keys("ctrl+s")
		if rt.callCount("mcp_invoke_mem") != 0 || !strings.Contains(hs.view(), `"x" is not an integer`) {
			t.Fatalf("an invalid integer was not caught:\n%s", hs.view())
		}
		hs.keys("backspace")
		hs.typeText("3")
		hs.keys("tab", "right", "tab")
		hs.typeText(`["a"]`)
		hs.keys("ctrl+s")
		if rt.callCount(`mcp_invoke_mem {"arguments":{"count":3,"force":true,"mode":"fast","tags":["a"]},"tool":"wipe"}`) != 1 {
			t.Fatalf("calls: %v", rt.calls)
		}
		if !strings.Contains(hs.view(), "result of wipe") {
			t.Fatalf("tool result not shown:\n%s", hs.view())
		}
	})
	t.Run("prompt with arguments opens a form, without gets at once", func(t *testing.T) {
		hs, rt := fakeHarness(t, 120, 40)
		hs.keys("4", "enter")
		if _, ok := hs.m.dialogs.Top().(*dialog.FormDialog); !ok {
			t.Fatal("no prompt form")
		}
		hs.keys("ctrl+s")
		if rt.callCount("prompt") != 0 || !strings.Contains(hs.view(), "required") {
			t.Fatalf("a missing required argument was not caught:\n%s", hs.view())
		}
		hs.typeText("world")
		hs.keys("enter")
		if !strings.Contains(hs.view(), "hello world") {
			t.Fatalf("prompt result not shown:\n%s", hs.view())
		}
		hs.keys("esc", "down", "enter")
		if hs.m.dialogs.Len() != 0 || rt.callCount("prompt plain") != 1 {
			t.Fatalf("argument-less prompt: dialogs %d, calls %v", hs.m.dialogs.Len(), rt.calls)
		}
	})
}

func TestStaleResultsAreDropped(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	hs.keys("2")
	// Start a read and keep its command instead of running it.
	stale := hs.update(keyMsg("enter"))
	// A second read supersedes it.
	hs.keys("tab")
	hs.selectItem("mem://small")
	hs.keys("enter")
	if !strings.Contains(hs.view(), "three") {
		t.Fatalf("second read not shown:\n%s", hs.view())
	}
	// Now the first read finishes: it must not replace the second.
	hs.run(stale)
	if hs.m.viewer.Title() != "mem://small" {
		t.Fatalf("a stale read replaced the viewer: %q", hs.m.viewer.Title())
	}
	_ = rt
}

func TestQuitCancelsWorkInFlight(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	rt.gate = make(chan struct{}) // every call now waits until cancelled
	rt.waiting = make(chan struct{}, 1)
	hs.keys("2")
	read := hs.update(keyMsg("enter"))
	done := make(chan tea.Msg, 1)
	go func() { done <- read() }()
	// The read must be at the server before q: a command running while
	// Update runs would trip the harness's no-I/O-in-Update guard.
	<-rt.waiting
	cmd := hs.update(keyMsg("q"))
	if msg := execCmd(t, cmd); msg != (tea.QuitMsg{}) {
		t.Fatalf("q returned %T", msg)
	}
	// The read in flight ends because quitting cancelled its context.
	if msg := <-done; msg == nil {
		t.Fatal("no message from the cancelled read")
	}
}

// A failed read's message is wrapped in the viewer, so all of it can be
// read without scrolling sideways.
func TestAFailedReadShowsItsWholeMessage(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	delete(rt.texts, "mem://small")
	hs.keys("2", "down", "enter")
	v := hs.view()
	if !strings.Contains(v, "howl refused the request") || !strings.Contains(v, "and this is not one of them") {
		t.Fatalf("the error is not shown whole:\n%s", v)
	}
}

func TestTooSmallTerminalAsksToBeMadeBigger(t *testing.T) {
	hs, _ := fakeHarness(t, 59, 16)
	if v := hs.view(); !strings.Contains(v, "Make me bigger") || !strings.Contains(v, "59×16") {
		t.Fatalf("too-small screen:\n%s", v)
	}
	hs.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	if v := hs.view(); strings.Contains(v, "Make me bigger") || !strings.Contains(v, "[Tools 2]") {
		t.Fatalf("60x16 should lay out:\n%s", v)
	}
	for _, l := range strings.Split(hs.view(), "\n") {
		if w := common.WidthOf(l); w != 60 {
			t.Fatalf("a line is %d cells wide, want 60: %q", w, l)
		}
	}
}

func TestFocusMovesWithTabAndClicks(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	hs.keys("tab")
	if hs.m.focus != focusRight {
		t.Fatal("tab did not move focus to the detail pane")
	}
	hs.keys("shift+tab")
	if hs.m.focus != focusList {
		t.Fatal("shift+tab did not move focus back")
	}
	r := hs.m.layout.Right
	hs.send(tea.MouseMsg{X: r.X + 3, Y: r.Y + 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if hs.m.focus != focusRight {
		t.Fatal("a click on the detail pane did not focus it")
	}
	l := hs.m.layout.List
	hs.send(tea.MouseMsg{X: l.X + 3, Y: l.Y + 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if hs.m.focus != focusList || hs.m.catalog.Selected().Item().ID != "wipe" {
		t.Fatalf("a click on the second item: focus %d, selected %v", hs.m.focus, hs.m.catalog.Selected())
	}
}

func TestHelpIsGeneratedFromTheEnabledBindings(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	hs.keys("?")
	v := hs.view()
	if !strings.Contains(v, "filter") || strings.Contains(v, "next page") {
		t.Fatalf("catalog help should list filter but not viewer paging:\n%s", v)
	}
	hs.keys("esc", "2", "enter", "?")
	if v := hs.view(); !strings.Contains(v, "next page") || strings.Contains(v, "refresh server") {
		t.Fatalf("viewer help should list paging, not catalog keys:\n%s", v)
	}
}

func TestServerEventsUpdateStatusAndCatalog(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "mem", Status: mcp.Status{Name: "mem", State: mcp.StateFailed, Reason: "exec: no such file"}}}})
	if v := hs.view(); !strings.Contains(v, "mem ✗ failed: exec: no such file") {
		t.Fatalf("failed state not in the status bar:\n%s", v)
	}
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "mem", Status: mcp.Status{Name: "mem", State: mcp.StateReady}}}})
	if rt.callCount("catalog mem") != 2 || !strings.Contains(hs.view(), "mem ● ready") {
		t.Fatalf("ready again should list again: %v", rt.calls)
	}
	// The notification only says so: the runtime lists again itself and
	// reports the change, which the catalog then loads.
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventNotification, Server: "mem", Method: "notifications/resources/list_changed"}}})
	if rt.callCount("catalog mem") != 2 || !strings.Contains(hs.view(), "the catalog changed") {
		t.Fatalf("list_changed should be reported and leave the listing to the runtime: %v", rt.calls)
	}
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventCatalogChanged, Server: "mem", Change: &mcp.CatalogChange{}}}})
	if rt.callCount("catalog mem") != 3 {
		t.Fatalf("the runtime's catalog change should load the catalog again: %v", rt.calls)
	}
}

func TestCopyUsesTheClipboardFromACommand(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	hs.keys("2")
	hs.selectItem("mem://small")
	hs.keys("enter", "y")
	if len(hs.clip.copied) != 1 || hs.clip.copied[0] != "one\ntwo\nthree\n" {
		t.Fatalf("copied %q", hs.clip.copied)
	}
	if !strings.Contains(hs.view(), "copied the text") {
		t.Error("no confirmation in the status bar")
	}
}

func TestServersDialogReconnectsTheChosenServer(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	reconnects := 0
	rec := &reconnectCounter{fakeRuntime: rt, n: &reconnects}
	hs.m.com.RT = &guardRuntime{inner: rec, t: t}
	hs.rt = hs.m.com.RT.(*guardRuntime)
	hs.keys("S")
	if v := hs.view(); !strings.Contains(v, "Servers") || !strings.Contains(v, "2 tools · 2 resources") {
		t.Fatalf("servers dialog:\n%s", v)
	}
	hs.keys("r")
	if reconnects != 1 || hs.m.dialogs.Len() != 0 || !strings.Contains(hs.view(), "reconnecting mem") {
		t.Fatalf("reconnects %d, dialogs %d:\n%s", reconnects, hs.m.dialogs.Len(), hs.view())
	}
}

type reconnectCounter struct {
	*fakeRuntime
	n *int
}

func (r *reconnectCounter) Reconnect(string) error { *r.n++; return nil }

func TestKeysThatArriveTogetherAreHandledOneByOne(t *testing.T) {
	hs, _ := fakeHarness(t, 120, 40)
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j2")})
	if hs.m.catalog.Tab() != 1 {
		t.Fatalf("\"j2\" in one read: tab %d, want 1", hs.m.catalog.Tab())
	}
	hs.keys("/")
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("sm")})
	if hs.m.catalog.Query() != "sm" {
		t.Fatalf("typed into the filter: %q", hs.m.catalog.Query())
	}
}

func TestServerStringsAreSanitizedBeforeDrawing(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\u202Etxt.exe"
	rt := newFakeRuntime()
	rt.addServer("evil",
		mcp.CatalogItem{Kind: mcp.KindTool, ID: "t" + evil, Name: "t" + evil, Title: evil, Description: evil + "\nsecond line",
			Schema: []byte(`{"type":"object","properties":{"p\u001b[1m":{"type":"string","description":"` + "d\\u001b[2J" + `","enum":["\u001b[31mx"]}}}`)},
		mcp.CatalogItem{Kind: mcp.KindResource, ID: "mem://r", Name: evil, URI: "mem://r", MIMEType: evil},
		mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "p", Name: "p", Description: evil, Arguments: []mcp.PromptArgument{{Name: "a" + evil, Description: evil, Required: true}}},
	)
	rt.texts["mem://r"] = "body " + evil + "\n"
	hs := newHarness(t, rt, []string{"evil"}, 120, 40)
	check := func(where string) {
		t.Helper()
		if v := hs.view(); strings.ContainsAny(v, "\x1b\u202E\a") {
			t.Fatalf("%s: a server string reached the screen unsanitized: %q", where, v)
		}
	}
	check("tools tab")
	hs.keys("tab")
	check("tool detail")
	hs.keys("enter")
	check("tool form")
	hs.keys("esc", "shift+tab", "2", "enter")
	check("resource read")
	hs.keys("esc", "4", "tab")
	check("prompt detail")
	hs.keys("enter")
	check("prompt form")
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "evil", Status: mcp.Status{Name: "evil", State: mcp.StateFailed, Reason: evil}}}})
	check("failure reason")
	hs.keys("esc", "S")
	check("servers dialog")
}

// A dialog taller than the screen stops above the help line, so the keys
// that answer it stay in sight; it scrolls inside instead.
func TestATallDialogLeavesTheHelpLineVisible(t *testing.T) {
	hs, _ := fakeHarness(t, 60, 16)
	hs.keys("?")
	lines := strings.Split(hs.view(), "\n")
	help := lines[len(lines)-2]
	if !strings.Contains(strings.Join(lines, "\n"), "Keys") {
		t.Fatalf("no help dialog:\n%s", strings.Join(lines, "\n"))
	}
	if strings.ContainsAny(help, "┗┛╰╯━") {
		t.Errorf("the dialog covers the help line: %q", help)
	}
}

// TestTheTabBarKeepsChatAndItsClickTargetsAtEveryWidth: from the narrowest
// terminal howl draws to a wide one, every tab (Chat included) is on the
// bar where tabSpans says a click finds it; at 80 columns the bar used to
// run Chat off its end.
func TestTheTabBarKeepsChatAndItsClickTargetsAtEveryWidth(t *testing.T) {
	// Counts as wide as a big server's, narrowed by a filter, the widest
	// titles the bar draws ("Resources 1111/12000").
	var items []mcp.CatalogItem
	for i := range 12000 {
		id := fmt.Sprintf("res-%05d", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, ID: "mem://" + id, Name: id, URI: "mem://" + id})
		if i < 1200 {
			items = append(items, mcp.CatalogItem{Kind: mcp.KindTool, ID: "tool-" + id, Name: "tool-" + id},
				mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "prompt-" + id, Name: "prompt-" + id})
		}
	}
	rt := newFakeRuntime()
	rt.addServer("mem", items...)
	hs := newHarness(t, rt, []string{"mem"}, 120, 40)
	t.Cleanup(hs.dumpOnFailure)
	hs.keys("2", "/")
	hs.typeText("1")
	if !strings.Contains(hs.view(), "/12000") {
		t.Fatalf("the filter's counts are not on the bar:\n%s", hs.view())
	}
	for w := MinWidth; w <= 120; w++ {
		hs.send(tea.WindowSizeMsg{Width: w, Height: 40})
		bar := []rune(ansi.Strip(strings.SplitN(hs.view(), "\n", 2)[0]))
		cells, _ := hs.m.tabBar()
		for i, s := range hs.m.tabSpans() {
			if s[1] > len(bar) {
				t.Fatalf("width %d: tab %q ends at column %d, past the bar (%d columns): %q", w, cells[i].title, s[1], len(bar), string(bar))
			}
			got := strings.Trim(strings.TrimSpace(string(bar[s[0]:s[1]])), "[]")
			if got != cells[i].title {
				t.Fatalf("width %d: columns %d-%d read %q, want the tab %q: %q", w, s[0], s[1], got, cells[i].title, string(bar))
			}
		}
		if !strings.HasSuffix(strings.TrimRight(string(bar), " "), chatTabTitle) {
			t.Fatalf("width %d: the bar does not end with the Chat tab: %q", w, string(bar))
		}
	}
}
