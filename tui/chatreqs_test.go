package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// stuckPrompts is a runtime whose prompt gets never answer until cancelled.
type stuckPrompts struct {
	common.Runtime
	cancelled atomic.Int32
}

func (s *stuckPrompts) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.PromptResult, error) {
	<-ctx.Done()
	s.cancelled.Add(1)
	return nil, ctx.Err()
}

func TestCtrlCCancelsAPromptGetAndTheChatSaysSo(t *testing.T) {
	relay := NewRelay()
	rt := &stuckPrompts{Runtime: demoRuntime(t)}
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, StartInChat: true})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	tm.Type(".prompt demo greeting")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("getting the prompt greeting · ctrl+c cancels")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	wait("cancelled getting the prompt greeting")
	if rt.cancelled.Load() != 1 {
		t.Errorf("the prompt get saw %d cancellations, want 1", rt.cancelled.Load())
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC}) // nothing runs now: quits
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if final.chatReqs.Len() != 0 || strings.Contains(final.View(), "Hello") {
		t.Errorf("a cancelled prompt should leave nothing pending and send nothing")
	}
	m.Close()
}

// A mention read overtaken by a newer message's still ends its request:
// nothing is left for ctrl+c to "cancel".
func TestAnOvertakenMentionReadEndsItsRequest(t *testing.T) {
	hs := newChatHarness(t, newFakeRuntime(), nil, 80, 24, Options{})
	_, first := hs.m.chatReqs.Start("reading 1 mentioned resource(s)")
	_, second := hs.m.chatReqs.Start("reading 1 mentioned resource(s)")
	hs.m.mentionReq = second
	hs.send(common.Result{Owner: common.OwnerChat, ID: first, Msg: chat.MentionsRead{Text: "old"}})
	if n := hs.m.chatReqs.Len(); n != 1 {
		t.Fatalf("%d chat requests pending after the overtaken read returned, want 1 (the newer one)", n)
	}
}
