package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/llm/llmtest"
)

// TestTeatestChatsWithAScriptedModelAndSendsAPromptThroughTheForm runs the
// real program loop with the scripted model server: a question streams its
// answer and a tool call block; `.prompt demo code_review` opens the form,
// which is filled, previewed and sent as the next chat turn.
func TestTeatestChatsWithAScriptedModelAndSendsAPromptThroughTheForm(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(
		conversationScript()(0, llmtest.Request{}),
		conversationScript()(1, llmtest.Request{}),
		llmtest.Turn{Text: "Reviewed: the Go code is **fine**."},
	))
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, Model: model, StartInChat: true})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	tm.Type("what is 2 + 3?")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("mcp_invoke_demo")
	wait("exact")
	tm.Type(".prompt demo code_review")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("prompt code_review")
	tm.Type("go")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	wait("enter sends it as your message")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("Reviewed")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})

	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	v := final.View()
	if !strings.Contains(v, "Reviewed: the Go code is fine.") {
		t.Fatalf("final screen:\n%s", v)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	msgs := reqs[2].Messages
	if got := msgs[len(msgs)-1].Text; !strings.HasPrefix(got, "[user]") || !strings.Contains(got, "experienced go developer") {
		t.Errorf("the prompt was sent as %q", got)
	}
	m.Close()
}
