package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/viewer"
)

// typing reports whether a text input has the keys (a rune key then is text).
func (m *Model) typing() bool {
	return (m.chatMode && !m.chat.Focused()) || m.catalog.TextInputFocused() || m.viewer.TextInputFocused()
}

// handleLogsKey takes the log pane's keys: the toggle from anywhere (unless
// it is a printable key and a text input has the keys), and, while the
// pane has the keys, scrolling, switching servers, enter to open the log
// in the viewer and esc to give the keys back.
func (m *Model) handleLogsKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.com.Keys
	if key.Matches(msg, k.Logs) && (msg.Type != tea.KeyRunes || !m.typing() || m.logs.Focused()) {
		return m.logs.Toggle(), true
	}
	p := m.logs
	if !p.IsOpen() || !p.Focused() {
		return nil, false
	}
	if cmd, ok := p.HandleKey(msg); ok {
		return cmd, true
	}
	switch {
	case key.Matches(msg, k.LogOpen):
		// The protocol view: a traced message at the bottom opens alone,
		// its record pretty-printed; any other line opens the whole log.
		title, text, warn, ok := p.SelectedTrace()
		if warn != nil {
			return warn, true
		}
		if !ok {
			title, text = p.Shown()
		}
		p.Blur()
		req := viewer.Text(title, text)
		if m.chatMode {
			return m.openFromChat(req, "opening"), true
		}
		return m.openViewer(req, "opening"), true
	case key.Matches(msg, k.ToggleChat, k.Sessions), !m.chatMode && key.Matches(msg, k.Quit, k.Help, k.Servers):
		return nil, false // the global keys still work
	}
	return nil, true
}

// handleLogsMouse scrolls the log with the wheel and gives it the keys on a click.
func (m *Model) handleLogsMouse(msg tea.MouseMsg, wheel int) {
	switch {
	case wheel != 0:
		m.logs.Scroll(wheel)
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft:
		m.logs.Focus()
	}
}
