package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/tui/common"
)

// TestTeatestDeniedToolCallIsToldToTheModel runs the real program loop: the
// scripted model asks to delete a note, the permission dialog opens, the
// person denies it, and the model's next request carries the denial, which
// its answer acknowledges on screen.
func TestTeatestDeniedToolCallIsToldToTheModel(t *testing.T) {
	srv, model := scriptedModel(t, func(n int, req llmtest.Request) llmtest.Turn {
		if n == 0 {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_invoke_demo", Arguments: `{"tool":"delete_note","arguments":{"id":"note-007"}}`}}}
		}
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "the user denied this call") {
				return llmtest.Turn{Text: "Understood: you denied deleting note-007, so I left it."}
			}
		}
		return llmtest.Turn{Text: "The call ran."}
	})
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	perms := llm.Permissions{}
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath,
		Model: model, StartInChat: true, Permissions: &perms, Now: clock.Now})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	tm.Type("delete note 7")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("DESTRUCTIVE")
	// Past the dialog's grace period, so the answer is not swallowed: the
	// clock is stepped, not slept on.
	clock.advance(common.PermissionGrace + time.Millisecond)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	wait("you denied deleting note-007")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "the user denied this call") {
		t.Errorf("the model's next request carried %+v, want the denial", res)
	}
	m.Close()
}
