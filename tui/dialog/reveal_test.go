package dialog

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// A permission request uncovered when the dialog above it closes (an
// app's message answered with y over the app's own tool call) has been
// out of sight: its grace starts again, so a second y, or a held key,
// does not approve the call.
func TestADialogUncoveredByTheOneAboveItClosingTakesNoKeysAtOnce(t *testing.T) {
	now := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	com := &common.Common{Keys: common.DefaultKeyMap(), Clock: func() time.Time { return now },
		Styles: theme.New(theme.Options{Dark: true, Profile: termenv.Ascii}).Styles}
	y := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")}
	for _, close := range []func(s *Stack, top Dialog){
		func(s *Stack, _ Dialog) { s.Pop() },
		func(s *Stack, top Dialog) { s.Remove(top) },
		func(s *Stack, top Dialog) { s.RemoveIf(func(d Dialog) bool { return d == top }) },
	} {
		s := NewStack(com)
		perm := NewPermission(com, &chat.PermissionRequest{Server: "app", Tool: "wipe"}, false)
		s.Push(perm)
		now = now.Add(time.Minute)
		msg := NewAppMessageDialog(com, &AppMessage{Server: "app", Text: "hi"})
		s.Push(msg)
		now = now.Add(time.Minute)
		if _, ok := s.Top().HandleKey(y).(AnswerAppMessage); !ok {
			t.Fatal("the app's message did not take y after its grace")
		}
		close(&s, msg)
		if a := s.Top().HandleKey(y); a != (None{}) {
			t.Errorf("the uncovered permission dialog took y at once: %#v", a)
		}
		now = now.Add(common.PermissionGrace)
		if _, ok := s.Top().HandleKey(y).(AnswerPermission); !ok {
			t.Error("the uncovered permission dialog does not take y after its grace")
		}
	}
}
