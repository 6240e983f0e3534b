package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// collect runs cmd and everything it batches, and returns the messages it
// produced without delivering them: answers in flight, to deliver later.
func (h *harness) collect(cmd tea.Cmd) []tea.Msg { return commontest.Messages(cmd) }

// A permission dialog pushed over the sessions dialog while its list is
// in flight: the list reaches the sessions dialog, its owner, not the
// dialog on top (which used to take it, drop it, and leave the sessions
// dialog "listing…" for good).
func TestADialogsAnswerReachesItUnderAnotherDialog(t *testing.T) {
	st := testStore(t)
	seedSession(t, st, "what does a wolf howl at", "the moon, mostly")
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	hs, _ := newStoreHarness(t, st, 120, 40, Options{Now: clock.Now})
	defer hs.dumpOnFailure()
	inFlight := hs.collect(hs.update(keyMsg("ctrl+r")))
	hs.m.openPermission(chat.NewPermissionRequest(llm.ToolCall{ID: "c1", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo"}`}, "demo", "echo"))
	for _, msg := range inFlight {
		hs.send(msg)
	}
	clock.advance(time.Second)
	hs.keys("n") // deny: the permission dialog closes, the sessions dialog is on top again
	if view := hs.view(); !strings.Contains(view, "what does a wolf howl at") || !strings.Contains(view, "Sessions 1") {
		t.Fatalf("the sessions dialog lost its list to the dialog on top of it:\n%s", view)
	}
}

// A closed dialog's late answer is not taken by the dialog opened after
// it: every request has its own id from one source, and each dialog its
// own owner.
func TestAClosedDialogsLateAnswerIsNotTakenByItsSuccessor(t *testing.T) {
	st := testStore(t)
	seedSession(t, st, "first question", "first answer")
	hs, _ := newStoreHarness(t, st, 120, 40, Options{})
	defer hs.dumpOnFailure()
	stale := hs.collect(hs.update(keyMsg("ctrl+r"))) // one session
	hs.keys("esc")
	seedSession(t, st, "second question", "second answer")
	fresh := hs.collect(hs.update(keyMsg("ctrl+r"))) // two sessions
	for _, msg := range append(fresh, stale...) {
		hs.send(msg)
	}
	if view := hs.view(); !strings.Contains(view, "Sessions 2") || !strings.Contains(view, "second question") {
		t.Fatalf("the reopened dialog took the closed one's late list:\n%s", view)
	}
}

// `.model` applies the latest switch only, and none that resolves after a
// turn started: the turn runs on the model it started with.
func TestOnlyTheLatestModelSwitchAppliesAndNoneAfterATurnStarted(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	sw := func(ctx context.Context, spec string) (llm.Model, error) {
		c, err := llm.Resolve(ctx, llm.ResolveOptions{Flags: llm.Settings{Model: spec, BaseURL: srv.URL},
			Getenv: func(string) (string, bool) { return "", false }, OllamaURL: "off"})
		if err != nil {
			return nil, err
		}
		return llm.NewModel(c)
	}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 100, 30, Options{Model: model, SwitchModel: sw})
	defer hs.dumpOnFailure()
	ask := func(line string) []tea.Msg {
		hs.m.input.SetValue(line)
		return hs.collect(hs.update(keyMsg("enter")))
	}
	first := ask(".model openai-compat/first")
	second := ask(".model openai-compat/second")
	for _, msg := range append(second, first...) { // the earlier one resolves last
		hs.send(msg)
	}
	if got := hs.m.chat.ModelName(); got != "openai-compat/second" {
		t.Fatalf("chatting with %s after .model first then .model second", got)
	}
	third := ask(".model openai-compat/third")
	hs.line("hello") // a turn starts (and ends) before the switch resolves
	for _, msg := range third {
		hs.send(msg)
	}
	if got := hs.m.chat.ModelName(); got != "openai-compat/second" {
		t.Fatalf("a switch that resolved after a turn started was applied: chatting with %s", got)
	}
	if !strings.Contains(hs.view(), "type .model openai-compat/third again") {
		t.Errorf("the dropped switch was not explained:\n%s", hs.view())
	}
}
