package dialog

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// dialogScroll scrolls the long middle part of a dialog (a call's
// arguments, a sampling request's messages) within what the frame leaves.
type dialogScroll struct {
	top int
	// shown is the window's height at the last render; a page is that
	// less overlap lines.
	shown, overlap int
}

// HandleKey moves the window with up/down/pgup/pgdn; it reports whether
// the key was one of them.
func (s *dialogScroll) HandleKey(km tea.KeyMsg, k *common.KeyMap) bool {
	page := max(s.shown-s.overlap, 1)
	switch {
	case key.Matches(km, k.Up):
		s.top = max(s.top-1, 0)
	case key.Matches(km, k.Down):
		s.top++
	case key.Matches(km, k.PageUp):
		s.top = max(s.top-page, 0)
	case key.Matches(km, k.PageDown):
		s.top += page
	default:
		return false
	}
	return true
}

// Window is the part of body that fits in room rows (at least 3). When
// body is longer, the last row says where the window is, and the rows
// above it show body, so every line of body can be scrolled into view.
// Drawing it records the height and clamps the position, so keys page by
// what was seen.
func (s *dialogScroll) Window(com *common.Common, body []string, room int) []string {
	view := min(max(room, 3), len(body))
	if len(body) <= view {
		s.shown, s.top = view, 0
		return append([]string(nil), body...)
	}
	lines := view - 1 // the last row is the position line
	s.shown = lines
	s.top = common.Clamp(s.top, 0, len(body)-lines)
	shown := append([]string(nil), body[s.top:s.top+lines]...)
	return append(shown, " "+com.Styles.Muted.Render(fmt.Sprintf("  ↓ lines %d-%d of %d · up/down/pgdn scroll", s.top+1, s.top+lines, len(body))))
}
