package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
	"github.com/howl-mcp/howl/tui/viewer"
)

// Key and mouse routing: a fixed order (quit, the top dialog, a focused
// text input, the focused pane, the global keys), and the bindings
// enabled for the state.

// handleKey routes a key in a fixed order: quit, the top dialog, a focused
// text input (exclusively), the focused pane, then the global keys.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	if key.Matches(msg, k.ForceQuit) {
		if cmd, ok := m.cancelRunning(); ok {
			return cmd
		}
		if m.chatMode && strings.TrimSpace(m.input.Value()) != "" {
			// A draft is cleared before anything quits, as in most chat
			// programs; it goes to the history, so ↑ brings it back.
			m.input.Take()
			m.closeCompletion()
			return common.ReportInfo("draft cleared (↑ brings it back) · ctrl+c again quits")
		}
		return m.quit()
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than one read arrive together ("jj"). Each is a
		// key of its own, in a text input too: a word typed fast arrives as
		// one message whose text can be a key's name ("delete", "up", "end"),
		// which bindings would take for that key.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if d := m.dialogs.Top(); d != nil {
		return m.applyAction(d, d.HandleKey(msg))
	}
	if m.layout.TooSmall {
		if key.Matches(msg, k.Quit) {
			return m.quit()
		}
		return nil
	}
	if cmd, ok := m.handleLogsKey(msg); ok {
		return cmd
	}
	if m.chatMode {
		return m.handleChatKey(msg)
	}
	if key.Matches(msg, k.ToggleChat, k.Chat) && !m.catalog.TextInputFocused() && !m.viewer.TextInputFocused() {
		m.setChatMode(true)
		return nil
	}
	if m.focus == focusList && m.catalog.TextInputFocused() {
		cmd, _ := m.catalog.HandleKey(msg)
		return cmd
	}
	if m.focus == focusRight && m.viewer.Open() && m.viewer.TextInputFocused() {
		cmd, _ := m.viewer.HandleKey(msg)
		return cmd
	}
	if cmd, ok := m.handlePaneKey(msg); ok {
		return cmd
	}
	return m.handleGlobalKey(msg)
}

// cancelRunning is ctrl+c while a call runs: it cancels the chat's turn
// (and with it the model's MCP calls) or the viewer's request, and the
// servers are told to stop. A second ctrl+c quits.
func (m *Model) cancelRunning() (tea.Cmd, bool) {
	switch {
	case m.chat.Running() && !m.chat.Cancelling():
		m.chat.Cancel()
		return common.ReportInfo(chat.CancellingText + " · ctrl+c again quits"), true
	case m.viewer.Loading():
		return m.viewer.CancelLoad(), true
	case m.chatReqs.Len() > 0:
		return m.chatReqs.CancelAll(), true
	}
	return nil, false
}

// handlePaneKey offers the key to the focused pane.
func (m *Model) handlePaneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.com.Keys
	switch {
	case m.focus == focusRight && m.viewer.Open():
		if atts := m.viewer.Attachments(); len(atts) > 1 && key.Matches(msg, k.OpenAttachment) {
			choices := make([]dialog.Choice, len(atts))
			for i, a := range atts {
				choices[i] = dialog.Choice{Label: a.Label(), Kind: a.Kind()}
			}
			m.dialogs.Push(dialog.NewPicker(m.com, choices))
			return nil, true
		}
		return m.viewer.HandleKey(msg)
	case m.focus == focusRight:
		if cmd, ok := m.detail.HandleKey(msg); ok {
			return cmd, true
		}
	default:
		if cmd, ok := m.catalog.HandleKey(msg); ok {
			return cmd, true
		}
	}
	switch {
	case key.Matches(msg, k.Open):
		return m.openSelected(), true
	case key.Matches(msg, k.Refresh):
		return m.refreshSelected(), true
	case key.Matches(msg, k.Mention) && m.focus == focusList:
		return m.mentionSelected(), true
	case key.Matches(msg, k.SwitchOff) && m.focus == focusList:
		return m.switchSelectedTool(), true
	case key.Matches(msg, k.Subscribe) && m.focus == focusList:
		return m.subscribeSelected(), true
	case key.Matches(msg, k.OpenApp):
		return m.openSelectedApp(), true
	case key.Matches(msg, k.Filter):
		// From the detail pane: the filter belongs to the list.
		m.setFocus(focusList)
		cmd, _ := m.catalog.HandleKey(msg)
		return cmd, true
	}
	return nil, false
}

// handleGlobalKey handles the keys that work from any pane.
func (m *Model) handleGlobalKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.dialogs.Push(dialog.NewHelp(m.com, k.FullHelp(m.helpState())))
	case key.Matches(msg, k.Servers):
		d := dialog.NewServers(m.com, m.catalog.Servers())
		m.dialogs.Push(d)
		return d.Open()
	case key.Matches(msg, k.Sessions):
		return m.openSessionsDialog()
	case key.Matches(msg, k.Subscriptions):
		m.dialogs.Push(dialog.NewSubscriptions(m.com))
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		m.cycleFocus()
	case key.Matches(msg, k.Tab1):
		m.catalog.SetTab(0)
	case key.Matches(msg, k.Tab2):
		m.catalog.SetTab(1)
	case key.Matches(msg, k.Tab3):
		m.catalog.SetTab(2)
	case key.Matches(msg, k.Tab4):
		m.catalog.SetTab(3)
	case key.Matches(msg, k.Tab5):
		m.catalog.SetTab(4)
	case key.Matches(msg, k.NextTab):
		m.catalog.SetTab(m.catalog.Tab() + 1)
	case key.Matches(msg, k.PrevTab):
		m.catalog.SetTab(m.catalog.Tab() - 1)
	case key.Matches(msg, k.Back) && m.viewer.Open():
		return m.viewer.Close()
	case msg.Type == tea.KeyRunes && !msg.Alt:
		return m.unboundKey(msg)
	}
	return nil
}

// unboundKey answers a printable key that does nothing here: it is not
// dropped in silence (a question typed into the catalog would be), the
// status line says where typing goes.
func (m *Model) unboundKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	// Short enough for the status line of an 80-column terminal.
	where := []string{k.Chat.Help().Key + " chat"}
	if k.Filter.Enabled() {
		where = append(where, k.Filter.Help().Key+" filter")
	}
	where = append(where, k.Help.Help().Key+" keys")
	return common.ReportInfo(fmt.Sprintf("%q does nothing here: %s", msg.String(), strings.Join(where, " · ")))
}

// cycleFocus moves between the list and the right-hand pane.
func (m *Model) cycleFocus() {
	if m.focus == focusList && (m.viewer.Open() || m.catalog.Selected() != nil) {
		m.setFocus(focusRight)
		return
	}
	m.setFocus(focusList)
}

// handleMouse focuses and selects with clicks and scrolls with the wheel.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.dialogs.Len() > 0 || m.layout.TooSmall {
		return nil
	}
	l := m.layout
	x, y := msg.X, msg.Y
	wheel := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		wheel = -3
	case tea.MouseButtonWheelDown:
		wheel = 3
	}
	if m.logs.IsOpen() && l.Logs.Contains(x, y) {
		m.handleLogsMouse(msg, wheel)
		return nil
	}
	if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft {
		m.logs.Blur() // a click elsewhere takes the keys from the log
	}
	if m.chatMode {
		return m.handleChatMouse(msg, wheel)
	}
	switch {
	case wheel != 0 && l.List.Contains(x, y):
		m.catalog.Scroll(wheel)
	case wheel != 0 && l.Right.Contains(x, y) && m.viewer.Open():
		return m.viewer.Scroll(wheel)
	case wheel != 0 && l.Right.Contains(x, y):
		m.detail.Scroll(wheel)
	case msg.Action != tea.MouseActionPress || msg.Button != tea.MouseButtonLeft:
		// Only a left press selects or focuses.
	case l.Tabs.Contains(x, y):
		if t := tabAt(m.tabSpans(), x); t == len(catalog.TabTitles) {
			m.setChatMode(true)
		} else if t >= 0 {
			m.catalog.SetTab(t)
		}
	case l.List.Contains(x, y):
		was := m.catalog.Selected()
		m.setFocus(focusList)
		if m.catalog.Click(y-l.List.Y) && was != nil && m.catalog.Selected() == was {
			return m.openSelected()
		}
	case l.Right.Contains(x, y):
		m.setFocus(focusRight)
	}
	return nil
}

// updateKeys enables the bindings that apply in the current state, so the
// help line, the help screen and key matching agree.
func (m *Model) updateKeys() {
	k := m.com.Keys
	inViewer := m.focus == focusRight && m.viewer.Open()
	var vk viewer.KeyState
	if inViewer {
		vk = m.viewer.Keys()
	}
	common.SetEnabled(!inViewer, &k.Open, &k.Refresh, &k.Filter)
	common.SetEnabled(m.catalog.Selected() != nil || inViewer, &k.FocusNext, &k.FocusPrev)
	common.SetEnabled(vk.NextPage, &k.NextPage)
	common.SetEnabled(vk.PrevPage, &k.PrevPage)
	common.SetEnabled(vk.Lines, &k.Search)
	common.SetEnabled(vk.Hits, &k.NextMatch, &k.PrevMatch)
	common.SetEnabled(vk.Paged, &k.Pattern)
	common.SetEnabled(vk.Filtered, &k.ClearPattern)
	common.SetEnabled(vk.Lines, &k.Wrap, &k.Left, &k.Right)
	common.SetEnabled(vk.Hex, &k.HexToggle)
	common.SetEnabled(vk.Attachments, &k.OpenAttachment)
	common.SetEnabled(vk.Doc, &k.Copy)
	sel := m.selectedResource()
	common.SetEnabled(!inViewer && sel != nil && mcp.IsAppResource(sel.URI, sel.MIMEType), &k.OpenApp)
	common.SetEnabled(vk.Subscribable || (m.focus == focusList && sel != nil), &k.Subscribe)
	if (inViewer && vk.Subscribed) || (!inViewer && sel != nil && m.com.Subs.Get(sel.Server, sel.URI) != nil) {
		k.Subscribe.SetHelp(k.Subscribe.Help().Key, "unsubscribe")
	} else {
		k.Subscribe.SetHelp(k.Subscribe.Help().Key, "subscribe")
	}
	common.SetEnabled(m.viewer.Open() || m.catalog.Query() != "", &k.Back)
	common.SetEnabled(m.logs.IsOpen() && m.logs.Focused(), &k.LogNext, &k.LogPrev, &k.LogOpen, &k.LogBlur)
}
