package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
	"github.com/howl-mcp/howl/tui/dialog"
)

func TestParseMentionsKeepsKnownServersOnceEach(t *testing.T) {
	got := chat.ParseMentions("see @demo:demo://docs/readme.md, and @other:x://y and @demo:demo://docs/readme.md again; mail a@b.c", []string{"demo", "other"})
	if len(got) != 2 || got[0].String() != "@demo:demo://docs/readme.md" || got[1].String() != "@other:x://y" {
		t.Errorf("parseMentions = %v", got)
	}
}

func TestMentionedResourcesAreAttachedBoundedForTheModel(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "Read it."}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("summarize @demo:" + demo.MarkdownURI + " and @demo:" + demo.PNGURI)
	got := lastUser(t, srv)
	if !strings.HasPrefix(got, "summarize @demo:") {
		t.Errorf("the message does not lead with the typed text: %.80q", got)
	}
	for _, want := range []string{"[attached @demo:" + demo.MarkdownURI + ", as mcp_read_demo returns it]", "[attached @demo:" + demo.PNGURI, `"spill`} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's message lacks %q:\n%.2000s", want, got)
		}
	}
	// Coverage first: the attachment's JSON opens with its coverage fields.
	body := got[strings.Index(got, "returns it]\n")+len("returns it]\n"):]
	if !strings.HasPrefix(body, "{") || strings.Contains(body, `"text"`) && strings.Index(body, `"text"`) < strings.Index(body, `"total_bytes"`) {
		t.Errorf("the attachment is not coverage-first: %.300s", body)
	}
	if len(got) > 2*204800+1000 {
		t.Errorf("the attachments are not bounded: %d bytes", len(got))
	}
	if v := hs.view(); !strings.Contains(v, "📎 @demo:"+demo.MarkdownURI) {
		t.Errorf("the transcript does not show the attachment:\n%s", v)
	}
	// The chip opens in the viewer.
	hs.keys("shift+tab")
	for i := 0; i < 5 && !selectedIs(hs, "@demo:"+demo.MarkdownURI); i++ {
		hs.keys("up")
	}
	hs.keys("enter")
	if !hs.m.viewer.Open() || hs.m.chatMode {
		t.Error("enter on an attachment chip did not open it in the viewer")
	}
}

func TestAFailedMentionBlocksTheSendUntilThePersonDecides(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "OK."}))
	clock := &testClock{t: time.Now()}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model, Now: clock.Now})
	defer hs.dumpOnFailure()
	hs.line("look at @demo:demo://nope/missing.txt please")
	hs.keys("esc") // in the grace period: ignored
	if !hs.m.dialogs.Has("mention-failed") {
		t.Fatal("a key in the grace period closed the dialog")
	}
	clock.advance(common.PermissionGrace)
	if !hs.m.dialogs.Has("mention-failed") {
		t.Fatal("a failed mention did not open its dialog")
	}
	if v := hs.view(); !strings.Contains(v, "@demo:demo://nope/missing.txt") || !strings.Contains(v, "Nothing was sent") {
		t.Errorf("the dialog does not name the mention:\n%s", v)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model received %d requests before the person decided", n)
	}
	hs.keys("esc")
	if hs.m.input.Value() != "look at @demo:demo://nope/missing.txt please" {
		t.Errorf("cancel left %q in the input", hs.m.input.Value())
	}
	hs.keys("enter")
	clock.advance(common.PermissionGrace)
	hs.keys("enter")
	if got := lastUser(t, srv); got != "look at @demo:demo://nope/missing.txt please" {
		t.Errorf("sending without the mention sent %q", got)
	}
}

func TestAtCompletesResourcesAcrossTwoServers(t *testing.T) {
	rt := sharedRuntime(t, "demo+notes", demoServer("demo"), demoServer("notes"))
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "OK."}))
	hs := newChatHarness(t, rt, []string{"demo", "notes"}, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.typeText("read @")
	if !hs.m.comp.IsOpen() {
		t.Fatal("@ did not open the mention popup")
	}
	servers := map[string]bool{}
	for _, it := range hs.m.comp.Items() {
		servers[strings.SplitN(it.Label(), ":", 2)[0]] = true
	}
	if !servers["@demo"] || !servers["@notes"] {
		t.Errorf("the popup lists the servers %v, want both", servers)
	}
	hs.typeText("notesreadme")
	it, ok := hs.m.comp.Selected()
	if !ok || it.Label() != "@notes:"+demo.MarkdownURI {
		t.Fatalf("the fuzzy match chose %+v", it)
	}
	if v := hs.view(); !strings.Contains(v, "text/markdown") {
		t.Errorf("the popup does not show the mime type:\n%s", v)
	}
	hs.keys("enter")
	if got := hs.m.input.Value(); got != "read @notes:"+demo.MarkdownURI+" " {
		t.Errorf("accepting inserted %q", got)
	}
}

func TestATemplateMentionGoesThroughItsForm(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "OK."}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.typeText("who is @users")
	it, ok := hs.m.comp.Selected()
	if !ok || it.Template() == nil || it.Template().URI != demo.UserTemplate {
		t.Fatalf("the popup chose %+v, want the users template", it)
	}
	hs.keys("enter")
	if _, ok := hs.m.dialogs.Top().(*dialog.FormDialog); !ok {
		t.Fatal("choosing a template did not open its form")
	}
	hs.typeText("ada")
	hs.keys("ctrl+s")
	if got := hs.m.input.Value(); got != "who is @demo:demo://users/ada " {
		t.Fatalf("the form inserted %q", got)
	}
	hs.keys("enter")
	if got := lastUser(t, srv); !strings.Contains(got, "[attached @demo:demo://users/ada, as mcp_read_demo returns it]") {
		t.Errorf("the template's resource was not attached: %.300s", got)
	}
}

func TestAtOnACatalogResourceAddsItsMentionToTheChat(t *testing.T) {
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 120, 40)
	defer hs.dumpOnFailure()
	hs.keys("2")
	hs.selectItem(demo.MarkdownURI)
	hs.keys("@")
	if !hs.m.chatMode {
		t.Fatal("@ did not open the chat")
	}
	if got := hs.m.input.Value(); got != "@demo:"+demo.MarkdownURI+" " {
		t.Errorf("the input holds %q", got)
	}
}

// selectedIs reports whether the selected transcript block is named name
// (true when none is selected: there is nothing more to move to).
func selectedIs(hs *harness, name string) bool {
	got, _, ok := hs.m.chat.SelectedResult()
	return !ok || got == name
}

// bigMentionHarness is the chat over one server of chat.AsyncMentions+10
// resources, big:demo://r/00000 on: enough for the @ popup to build and
// rank off the update path.
func bigMentionHarness(t *testing.T) *harness {
	rt := newFakeRuntime()
	var items []mcp.CatalogItem
	for i := range chat.AsyncMentions + 10 {
		uri := fmt.Sprintf("demo://r/%05d", i)
		items = append(items, mcp.CatalogItem{Kind: mcp.KindResource, ID: uri, URI: uri, Name: fmt.Sprintf("r-%05d", i)})
	}
	rt.addServer("big", items...)
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "OK."}))
	return newChatHarness(t, rt, []string{"big"}, 120, 40, Options{Model: model})
}

// Over chat.AsyncMentions resources the @ key echoes at once and the
// popup's items are built off the update path (at 100,000 resources that
// took 7-24 ms before the echo): the popup opens when they arrive, on the
// word as typed since; a list for an @ since deleted opens nothing.
func TestAMentionPopupOfManyItemsIsBuiltOffTheUpdatePath(t *testing.T) {
	hs := bigMentionHarness(t)
	defer hs.dumpOnFailure()
	hs.typeText("see ")
	list := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("@")})
	if list == nil || hs.m.comp.IsOpen() || hs.m.input.Value() != "see @" {
		t.Fatalf("the @ key built the popup on the update path (open %v, input %q)", hs.m.comp.IsOpen(), hs.m.input.Value())
	}
	hs.typeText("0042") // typed while the list is built
	hs.run(list)
	if it, ok := hs.m.comp.Selected(); !ok || !strings.Contains(it.Label(), "0042") {
		t.Fatalf("the popup opened on %+v (open %v), want a match of 0042", it, hs.m.comp.IsOpen())
	}
	hs.keys("esc", "backspace", "backspace", "backspace", "backspace", "backspace")
	stale := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("@")})
	hs.keys("backspace")
	hs.run(stale)
	if hs.m.comp.IsOpen() || hs.m.input.Value() != "see " {
		t.Errorf("a list for a deleted @ opened the popup (input %q)", hs.m.input.Value())
	}
	// Esc before the list arrives: the @ stays typed, the popup stays shut.
	dismissed := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("@")})
	hs.keys("esc")
	hs.run(dismissed)
	if hs.m.comp.IsOpen() || hs.m.input.Value() != "see @" {
		t.Errorf("the popup opened after esc dismissed it (input %q)", hs.m.input.Value())
	}
}

// chatResults are the chat's results cmd delivers, run to their end.
func chatResults(cmd tea.Cmd) []common.Result {
	var out []common.Result
	for _, msg := range commontest.Messages(cmd) {
		if r, ok := msg.(common.Result); ok && r.Owner == common.OwnerChat {
			out = append(out, r)
		}
	}
	return out
}

// Leaving the chat (ctrl+t) stops the @ popup's ranking in flight: it
// answers nothing, instead of running to its end beside the update path.
func TestLeavingTheChatStopsTheMentionRankingInFlight(t *testing.T) {
	hs := bigMentionHarness(t)
	defer hs.dumpOnFailure()
	hs.typeText("see @")
	if !hs.m.comp.IsOpen() {
		t.Fatal("@ did not open the mention popup")
	}
	ranking := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("0")})
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	if hs.m.chatMode {
		t.Fatal("ctrl+t did not leave the chat")
	}
	rs := chatResults(ranking)
	if len(rs) != 1 {
		t.Fatalf("the key after @ answered %d results, want its ranking's", len(rs))
	}
	if rs[0].Msg != nil {
		t.Errorf("the ranking of a chat left behind delivered %T", rs[0].Msg)
	}
}

// Tab on an @word typed with the popup shut opens the popup on that
// word, its list built and its ranking run off the update path; tab then
// moves, and enter accepts. With a ranking in flight, a tab moves among
// the older word's matches still shown, and enter chooses among the
// typed word's (the first).
func TestTabOnATypedMentionWordRanksItOffTheUpdatePath(t *testing.T) {
	hs := bigMentionHarness(t)
	defer hs.dumpOnFailure()
	all := fmt.Sprintf("1/%d", chat.AsyncMentions+10)
	hs.typeText("see @0042")
	hs.keys("esc")
	list := hs.update(keyMsg("tab"))
	if hs.m.comp.IsOpen() || list == nil {
		t.Fatalf("tab built the popup on the update path (open %v)", hs.m.comp.IsOpen())
	}
	rs := chatResults(list)
	if len(rs) != 1 {
		t.Fatalf("tab answered %d results, want the popup's list", len(rs))
	}
	ranking := hs.update(rs[0])
	if v := hs.view(); ranking == nil || !strings.Contains(v, all) {
		t.Fatalf("the list's arrival ranked the word on the update path (ranking %v):\n%s", ranking != nil, v)
	}
	hs.run(ranking)
	items := hs.m.comp.Items()
	if len(items) < 2 || len(items) >= chat.AsyncMentions || !strings.Contains(items[0].Label(), "0042") {
		t.Fatalf("the popup shows %d items after the ranking, want the matches of 0042", len(items))
	}
	hs.keys("tab", "enter")
	if got := hs.m.input.Value(); got != "see "+items[1].Label()+" " {
		t.Errorf("tab, enter inserted %q, want the second match %q", got, items[1].Label())
	}

	// A ranking in flight: tab, then enter.
	hs.m.input.SetValue("")
	hs.typeText("see @004")
	pending := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	hs.keys("tab", "enter")
	if got := hs.m.input.Value(); got != "see "+items[0].Label()+" " {
		t.Errorf("tab, enter with the ranking in flight inserted %q, want the typed word's first match %q", got, items[0].Label())
	}
	for _, r := range chatResults(pending) {
		if r.Msg != nil {
			t.Errorf("the ranking enter settled still delivered %T", r.Msg)
		}
	}
}

// An @ popup closed while its items are built (esc, leaving the chat)
// stops building them: the build answers nothing, instead of running to
// its end (7-24 ms at 100,000 resources) beside the update path.
func TestAnAtPopupClosedWhileItsListIsBuiltStopsBuildingIt(t *testing.T) {
	hs := bigMentionHarness(t)
	defer hs.dumpOnFailure()
	for _, closing := range []string{"esc", "ctrl+t"} {
		if !hs.m.chatMode {
			hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
		}
		hs.m.input.SetValue("see ")
		list := hs.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("@")})
		if closing == "ctrl+t" {
			hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
		} else {
			hs.keys(closing)
		}
		rs := chatResults(list)
		if len(rs) != 1 {
			t.Fatalf("%s: the @ key answered %d results, want the popup's list", closing, len(rs))
		}
		if rs[0].Msg != nil {
			t.Errorf("%s closed the popup, and its list still delivered %T", closing, rs[0].Msg)
		}
	}
}
