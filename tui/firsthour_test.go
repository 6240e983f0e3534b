package tui

// The first hour with howl (issue 18): what a new user meets first in the
// chat and at start-up, each pinned by what the screen shows.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// scriptedChat opens the chat at w x h on the demo with a scripted model
// that answers turns in order.
func scriptedChat(t *testing.T, w, h int, turns ...llmtest.Turn) *harness {
	t.Helper()
	_, model := scriptedModel(t, llmtest.Sequence(turns...))
	return newChatHarness(t, demoRuntime(t), []string{"demo"}, w, h, Options{Model: model})
}

func TestClearShowsTheChattingWithLineAgain(t *testing.T) {
	hs := scriptedChat(t, 80, 24, llmtest.Turn{Text: "an answer"})
	defer hs.dumpOnFailure()
	hs.line("hello")
	hs.line(".clear")
	v := hs.view()
	if strings.Contains(v, "an answer") {
		t.Fatalf(".clear left the old conversation on screen:\n%s", v)
	}
	if !strings.Contains(v, "Chatting with openai-compat/scripted") {
		t.Errorf("after .clear the pane does not say which model answers:\n%s", v)
	}
}

// cancelledNotices starts a turn whose answer stalls, cancels it with key
// and returns the transcript's lines about the cancel.
func cancelledNotices(t *testing.T, key string) []string {
	t.Helper()
	hs := scriptedChat(t, 80, 24, llmtest.Turn{Text: "I am thinking about it at length", Stall: true})
	defer hs.dumpOnFailure()
	hs.m.input.SetValue("tell me everything")
	start := hs.update(keyMsg("enter"))
	next := hs.update(execCmd(t, start).(common.Result)) // the first piece; the stream stalls after it
	hs.run(hs.update(keyMsg(key)))
	hs.run(next) // the read ends once the cancelled run closes its stream
	if hs.m.chat.Running() {
		t.Fatalf("%s did not end the turn", key)
	}
	var out []string
	for _, s := range hs.m.chat.Texts() {
		if strings.Contains(s, "cancel") {
			out = append(out, s)
		}
	}
	return out
}

// Whichever key cancels, and whatever the agent reported before its
// stream closed (a race), the transcript says one thing, once.
func TestCancellingATurnSaysOneMessageWhicheverKey(t *testing.T) {
	var first string
	for i := 0; i < 6; i++ {
		for _, key := range []string{"esc", "ctrl+c"} {
			got := cancelledNotices(t, key)
			if len(got) != 1 {
				t.Fatalf("%s (run %d): %d lines about the cancel, want 1: %q", key, i, len(got), got)
			}
			if first == "" {
				first = got[0]
			}
			if got[0] != first {
				t.Fatalf("%s (run %d) says %q; an earlier cancel said %q", key, i, got[0], first)
			}
		}
	}
	if !strings.Contains(first, "cancelled by you") {
		t.Errorf("the cancel reads %q: it should say the person cancelled it", first)
	}
}

func TestCtrlCWithADraftClearsItAndASecondQuits(t *testing.T) {
	hs := scriptedChat(t, 80, 24, llmtest.Turn{Text: "ok"})
	defer hs.dumpOnFailure()
	hs.typeText("a long question I am still writing")
	hs.keys("ctrl+c")
	if hs.quit {
		t.Fatal("ctrl+c with a typed draft quit at once and lost the draft")
	}
	v := hs.view()
	if hs.m.input.Value() != "" || !strings.Contains(v, "draft cleared") || !strings.Contains(v, "ctrl+c again quits") {
		t.Fatalf("the first ctrl+c should clear the draft and say a second quits; input %q, screen:\n%s", hs.m.input.Value(), v)
	}
	hs.keys("up")
	if got := hs.m.input.Value(); got != "a long question I am still writing" {
		t.Errorf("↑ after the clear brings back %q, want the draft", got)
	}
	hs.m.input.SetValue("")
	hs.keys("ctrl+c")
	if !hs.quit {
		t.Error("a second ctrl+c, the input empty, did not quit")
	}
}

// popupRows are the rows the completion popup occupies on the screen: from
// its title rule down to its footer.
func popupRows(t *testing.T, screen string) []string {
	t.Helper()
	rows := strings.Split(ansi.Strip(screen), "\n")
	for f := len(rows) - 1; f >= 0; f-- {
		if !strings.Contains(rows[f], "esc closes") {
			continue
		}
		for h := f - 1; h >= 0; h-- {
			if strings.HasPrefix(rows[h], "─ ") {
				return rows[h : f+1]
			}
		}
	}
	t.Fatalf("no completion popup on the screen:\n%s", screen)
	return nil
}

func TestCompletionPopupCoversTheTranscriptLinesItOccupiesAtEveryWidth(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 45}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := scriptedChat(t, size.w, size.h, llmtest.Turn{Text: "ok"})
			defer hs.dumpOnFailure()
			// A transcript whose every row runs to the right edge.
			for i := 0; i < size.h; i++ {
				hs.m.chat.Notice(strings.Repeat("transcript ", size.w/11-1))
			}
			hs.typeText(".prompt ")
			hs.keys("tab")
			for _, row := range popupRows(t, hs.view()) {
				if strings.Contains(row, "transcript") {
					t.Fatalf("the transcript shows through the popup's row %q", row)
				}
			}
		})
	}
}

func TestHelpInTheChatWrapsDescriptionsInsteadOfCuttingThem(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 45}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, size.w, size.h, Options{})
			defer hs.dumpOnFailure()
			hs.line(".help")
			// Every word of every description is on screen somewhere, whole.
			var all strings.Builder
			hs.m.chat.Scroll(-1 << 30)
			for {
				for _, row := range strings.Split(ansi.Strip(hs.view()), "\n")[1 : 1+hs.m.chat.Height()] {
					if strings.Contains(row, "…") {
						t.Fatalf(".help cut a line: %q", row)
					}
					all.WriteString(row + "\n")
				}
				if hs.m.chat.Following() {
					break
				}
				hs.m.chat.Scroll(hs.m.chat.Height())
			}
			words := strings.Join(strings.Fields(all.String()), " ")
			for _, c := range chat.Commands() {
				if !strings.Contains(words, strings.Join(strings.Fields(c.Desc), " ")) {
					t.Errorf("the description of %s is not shown whole: %q", c.Name, c.Desc)
				}
			}
		})
	}
}

// A question typed the moment howl opens is a question: with a model
// (configured, flagged or detected: it reaches the TUI as Options.Model)
// howl opens on the chat, so a leading q does not quit and r, h, l do not
// act on the catalog.
func TestHowlOpensOnTheChatWhenAModelIsAvailable(t *testing.T) {
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	hs := newHarnessWith(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	defer hs.dumpOnFailure()
	if v := hs.view(); !strings.Contains(strings.SplitN(v, "\n", 2)[0], "[Chat]") {
		t.Fatalf("with a model howl opened on:\n%s", v)
	}
	hs.typeText("quickly: where are the logs?")
	if hs.quit || hs.m.input.Value() != "quickly: where are the logs?" {
		t.Errorf("the question typed at once was read as keys (quit %v); the input holds %q", hs.quit, hs.m.input.Value())
	}
}

func TestHowlOpensOnTheCatalogWithoutAModel(t *testing.T) {
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 80, 24)
	defer hs.dumpOnFailure()
	if first := strings.SplitN(hs.view(), "\n", 2)[0]; !strings.Contains(first, "[Tools") {
		t.Errorf("without a model howl opened on: %s", first)
	}
}

// On the catalog, a printable key bound to nothing says where typing goes
// instead of vanishing.
func TestAnUnboundKeyOnTheCatalogSaysHowToReachTheChatOrTheFilter(t *testing.T) {
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 80, 24)
	defer hs.dumpOnFailure()
	hs.typeText("z")
	v := hs.view()
	for _, want := range []string{`"z" does nothing here: c chat · / filter · ? keys`} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen does not say %q:\n%s", want, v)
		}
	}
}

// With no config file the TUI says it shows the built-in demo, where howl
// looked and the file to create, on one line, at every width, on the
// catalog and in the chat alike; with a config there is no such line.
func TestWithoutAConfigTheTUISaysItIsTheDemoAndWhereToPutServers(t *testing.T) {
	looked := []string{"~/.config/howl/mcp.json", ".mcp.json"} // as howl shows the home directory
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 45}, {200, 60}} {
		for _, chatMode := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/chat=%v", size.w, size.h, chatMode), func(t *testing.T) {
				hs := newHarnessWith(t, demoRuntime(t), []string{"demo"}, size.w, size.h, Options{NoConfig: looked, StartInChat: chatMode})
				defer hs.dumpOnFailure()
				rows := strings.Split(ansi.Strip(hs.view()), "\n")
				if len(rows) != size.h {
					t.Fatalf("the screen has %d rows, want %d", len(rows), size.h)
				}
				banner := rows[1]
				for _, want := range []string{"demo", "~/.config/howl/mcp.json"} {
					if !strings.Contains(banner, want) {
						t.Errorf("the line under the tabs does not say %q: %q", want, banner)
					}
				}
				if size.w >= 80 && !strings.Contains(banner, "./.mcp.json") {
					t.Errorf("the line does not say howl looked in ./.mcp.json too: %q", banner)
				}
			})
		}
	}
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 80, 24)
	if v := hs.view(); strings.Contains(v, "Built-in demo") || strings.Contains(v, "built-in demo") {
		t.Errorf("with a config in use the demo line shows:\n%s", v)
	}
}

// toolLines are the screen's tool blocks and attachment chips.
func toolLines(screen string) []string {
	var out []string
	for _, row := range strings.Split(ansi.Strip(screen), "\n") {
		if strings.Contains(row, "⚙ ") || strings.Contains(row, "📎 ") {
			out = append(out, strings.TrimRight(row, " "))
		}
	}
	return out
}

// A reopened conversation shows how each tool call was decided and its
// @-attachments as chips, exactly as the live one did.
func TestAResumedSessionShowsDecisionsAndAttachmentChipsAsLive(t *testing.T) {
	st := testStore(t)
	_, model := scriptedModel(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "call_1", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"one"}}`},
			{ID: "call_2", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"two"}}`},
		}},
		llmtest.Turn{Text: "Done."},
	))
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	live, _ := newStoreHarness(t, st, 120, 40, Options{Model: model, Permissions: &llm.Permissions{}, Now: clock.Now})
	defer live.dumpOnFailure()
	live.line("echo twice, about @demo:" + demo.MarkdownURI)
	for _, answer := range []string{"y", "n"} {
		requirePermissionDialog(t, live)
		clock.advance(common.PermissionGrace)
		live.keys(answer)
	}
	if live.m.chat.Running() {
		t.Fatal("the turn did not finish")
	}
	live.m.chat.FixDurations(0)
	want := toolLines(live.view())
	for _, s := range []string{"📎 @demo:" + demo.MarkdownURI, "[allowed once by you]", "[denied by you]"} {
		if !strings.Contains(strings.Join(want, "\n"), s) {
			t.Fatalf("the live transcript does not show %q: %q", s, want)
		}
	}

	sess, err := st.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conv, err := st.Load(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	resumed, _ := newStoreHarness(t, st, 120, 40, Options{Model: model, Resume: &Resume{Session: sess, Conv: conv}})
	defer resumed.dumpOnFailure()
	resumed.m.chat.FixDurations(0)
	if got := toolLines(resumed.view()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("reopened, the blocks read\n%s\nlive they read\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := resumed.view(); strings.Contains(v, "[attached @demo:") {
		t.Errorf("the reopened message shows the attachment's text inline instead of a chip:\n%s", v)
	}
}

func TestTheDemoBannerTakesOneRowUnderTheTabs(t *testing.T) {
	for _, s := range []LayoutState{{}, {Chat: true, InputH: 1}, {Logs: true}} {
		plain := ComputeLayout(80, 24, s)
		s.Banner = true
		l := ComputeLayout(80, 24, s)
		if l.Banner != (Rect{0, 1, 80, 1}) {
			t.Errorf("%+v: banner at %+v, want row 1", s, l.Banner)
		}
		if s.Chat {
			if l.Chat.Y != 2 || l.Chat.H != plain.Chat.H-1 || l.Input != plain.Input {
				t.Errorf("chat %+v (input %+v), without the banner %+v (%+v)", l.Chat, l.Input, plain.Chat, plain.Input)
			}
			continue
		}
		if l.List.Y != 2 || l.List.H+l.Logs.H != plain.List.H+plain.Logs.H-1 || l.Right.Y != 2 {
			t.Errorf("%+v: list %+v, logs %+v; without the banner %+v, %+v", s, l.List, l.Logs, plain.List, plain.Logs)
		}
	}
}
