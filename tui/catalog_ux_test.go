package tui

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/tui/common"
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
	if title := hs.m.catalog.TabTitle(1); title != "Resources 1/126" {
		t.Errorf("/moon matches %q, want only moon.png of 126", title)
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

// crashyServer fails to start, saying why on stderr.
var crashyServer = mcp.ServerConfig{Name: "crashy", Transport: mcp.TransportStdio, Command: "/bin/sh",
	Args: []string{"-c", "echo 'config error: DATABASE_URL is not set' >&2; exit 3"}, Era: mcp.EraLegacy}

// A server that fails to start says why where the person is looking: the
// details pane shows its reason and what it wrote to stderr, instead of
// "Nothing selected.".
func TestAFailedServerShowsItsReasonAndStderrInTheDetailsPane(t *testing.T) {
	rt := sharedRuntime(t, "crashy", crashyServer)
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

// helpBody is the help dialog's text alone: the columns of its frame,
// from its top border to its hint.
func helpBody(v string) string {
	var b strings.Builder
	from, to := -1, -1
	for _, l := range strings.Split(v, "\n") {
		r := []rune(l)
		if from < 0 {
			i := strings.Index(l, "┏━ Keys")
			if i < 0 {
				continue
			}
			from = len([]rune(l[:i]))
			to = from
			for to < len(r) && r[to] != '┓' {
				to++
			}
		}
		b.WriteString(string(r[from:min(to+1, len(r))]) + "\n")
		if strings.Contains(l, "esc closes") {
			break
		}
	}
	return b.String()
}

// The help screen lists every key that applies where it was opened, and
// only those, at any width: at 80 columns nothing is cut to "…", keys of
// other places (the log's t, the chat's keys) are not offered, a help
// taller than the screen scrolls, and its footer offers only what works.
func TestHelpShowsEveryKeyThatAppliesAtAnyWidth(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 45}, {200, 60}} {
		hs := newHarness(t, demoRuntime(t), []string{"demo"}, size[0], size[1])
		hs.keys("?")
		v := hs.view()
		body := helpBody(v)
		for _, want := range []string{"List", "Tabs", "Anywhere", "filter", "refresh server", "next tab", "servers", "quit"} {
			if !strings.Contains(body, want) {
				t.Errorf("%dx%d: the catalog's help does not list %q:\n%s", size[0], size[1], want, body)
			}
		}
		for _, not := range []string{"trace requests", "send", "next page", "…"} {
			if strings.Contains(body, not) {
				t.Errorf("%dx%d: the catalog's help shows %q:\n%s", size[0], size[1], not, body)
			}
		}
		if help := strings.Split(v, "\n")[size[1]-2]; !strings.Contains(help, "close") || strings.Contains(help, "enter") || strings.Contains(help, "↓/j") {
			t.Errorf("%dx%d: the help line under the help offers %q", size[0], size[1], help)
		}
		// The viewer's help: its keys, reached by scrolling where the
		// screen is short.
		hs.keys("esc", "2", "enter", "?")
		seen := helpBody(hs.view())
		for i := 0; i < 10; i++ {
			hs.keys("pgdown")
			seen += helpBody(hs.view())
		}
		for _, want := range []string{"Viewer", "next page", "search", "scroll right", "back", "next pane", "Anywhere", "ctrl+c"} {
			if !strings.Contains(seen, want) {
				t.Errorf("%dx%d: the viewer's help never shows %q:\n%s", size[0], size[1], want, seen)
			}
		}
		if strings.Contains(seen, "refresh server") || strings.Contains(seen, "…") {
			t.Errorf("%dx%d: the viewer's help shows catalog keys or cuts a column:\n%s", size[0], size[1], seen)
		}
		hs.keys("q")
		if hs.quit || hs.m.dialogs.Len() != 0 {
			t.Errorf("%dx%d: q closes the help (quit %v, dialogs %d)", size[0], size[1], hs.quit, hs.m.dialogs.Len())
		}
	}
}

// A tool result's header in the viewer reads as plain sentences and
// wraps whole: no "content item", "within bounds" or howl_note (what the
// model reads), nothing cut with "…", at 80 and at 140 columns.
func TestViewerHeaderIsAPlainSentenceThatWraps(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 45}} {
		hs := newHarness(t, demoRuntime(t), []string{"demo"}, size[0], size[1])
		hs.selectItem("image")
		hs.keys("enter", "ctrl+s")
		var header []string
		for _, l := range hs.m.viewer.Render(0)[1:] {
			if strings.Contains(l, "────") {
				break // the rule under the header
			}
			header = append(header, l)
		}
		h := strings.Join(header, "\n")
		if !strings.Contains(h, "The tool returned") || !strings.Contains(h, "it says below what howl did") {
			t.Errorf("%dx%d: the header does not say what came back:\n%s", size[0], size[1], h)
		}
		for _, jargon := range []string{"content item", "within bounds", "howl_note", "…"} {
			if strings.Contains(h, jargon) {
				t.Errorf("%dx%d: the header says %q:\n%s", size[0], size[1], jargon, h)
			}
		}
	}
}

// While a message shows, the status bar keeps every server's state
// readable: counts shorten and the message is cut, never a state
// ("memory ● ready 10…", "files ● read…"); where the states leave the
// message too little room, it takes the help line instead.
func TestStatusBarKeepsEveryServersStateBesideAMessage(t *testing.T) {
	rt := sharedRuntime(t, "demo3", demoServer("everything"), demoServer("files"), demoServer("memory"))
	for _, w := range []int{60, 80, 140, 200} {
		hs := newHarness(t, rt, []string{"everything", "files", "memory"}, w, 30)
		hs.run(common.ReportInfo("everything: the catalog changed, listing again, and this message goes on for a while to fill the bar"))
		lines := strings.Split(hs.view(), "\n")
		bar := lines[len(lines)-1]
		for _, name := range []string{"everything ● ready", "files ● ready", "memory ● ready"} {
			if !strings.Contains(bar, name) {
				t.Errorf("%d columns: the status bar lost %q: %q", w, name, bar)
			}
		}
		if !strings.Contains(bar, "everything: the cat") && !strings.Contains(lines[len(lines)-2], "everything: the catalog changed") {
			t.Errorf("%d columns: the message is neither in the bar nor on the help line: %q", w, bar)
		}
		if w == 60 && !strings.Contains(lines[len(lines)-2], "everything: the catalog changed") {
			t.Errorf("60 columns: the message must move to the help line: %q", lines[len(lines)-2])
		}
	}
}

// Beside servers that work, the cursor can rest on a failed server's
// line, and the details pane then says why it failed.
func TestAFailedServerBesideOthersCanBeSelectedToSeeWhy(t *testing.T) {
	rt := sharedRuntime(t, "crashy+demo", crashyServer, demoServer("demo"))
	hs := newHarness(t, rt, []string{"crashy", "demo"}, 140, 45)
	defer hs.dumpOnFailure()
	if e := hs.m.catalog.Selected(); e == nil {
		t.Fatalf("howl opens on the first item, not on the failure")
	}
	hs.keys("g")
	v := hs.view()
	if !strings.Contains(v, "crashy did not start") || !strings.Contains(v, "DATABASE_URL is not set") {
		t.Errorf("on the failed server's line, the details pane does not say why")
	}
	hs.keys("j")
	if e := hs.m.catalog.Selected(); e == nil || e.Item().Server != "demo" {
		t.Errorf("j from the failure goes to the demo's first item, got %v", e)
	}
}
