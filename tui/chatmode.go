package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/viewer"
)

// chatTabTitle is the chat's tab in the tab bar.
const chatTabTitle = "Chat"

// setChatMode shows the chat (true) or the catalog (false).
func (m *Model) setChatMode(on bool) {
	m.chatMode = on
	m.closeCompletion()
	if on {
		m.returnToChat = false
	}
}

// handleChatKey routes a key while the chat is shown: ctrl+t back to the
// catalog, then the transcript when it has the keys, then the completion
// popup, then the chat's own keys, and everything else to the input.
func (m *Model) handleChatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	if key.Matches(msg, k.ToggleChat) {
		m.setChatMode(false)
		return nil
	}
	if key.Matches(msg, k.Sessions) {
		return m.openSessionsDialog()
	}
	if m.chat.Focused() {
		return m.handleBlocksKey(msg)
	}
	if key.Matches(msg, k.Accept) {
		if it, ok := m.comp.Selected(); ok && it.Template() != nil {
			return m.openMentionTemplate(*it.Template())
		}
	}
	if m.comp.IsOpen() {
		if line, ok := m.comp.HandleKey(msg); ok {
			if line != "" {
				m.input.SetValue(line)
			}
			if strings.HasSuffix(line, "=") {
				// An argument's name was accepted: its values are what
				// comes next, so ask for them without another tab.
				return m.startCompletion()
			}
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.CancelTurn):
		m.dropMentionList() // a popup still being built is not wanted either
		if m.chat.Cancel() {
			return common.ReportInfo(chat.CancellingText)
		}
		if m.chatReqs.Len() > 0 {
			return m.chatReqs.CancelAll()
		}
		return nil
	case key.Matches(msg, k.Complete) && chat.MentionWord(m.input.Value()) >= 0:
		return m.openMentions()
	case key.Matches(msg, k.Complete):
		return m.startCompletion()
	case key.Matches(msg, k.SelectBlocks):
		m.chat.Focus()
		if m.chat.Selected() == nil {
			m.chat.MoveSelection(-1)
		}
		return nil
	case key.Matches(msg, k.Send):
		m.closeCompletion()
		if m.chat.Running() && !strings.HasPrefix(m.input.Value(), ".") {
			// Keep the draft: it can be sent when the answer is done.
			return common.ReportWarn("a turn is running: wait for it, or press esc to cancel it")
		}
		return m.runLine(m.input.Take())
	case key.Matches(msg, k.Editor):
		if m.com.Editor == "" {
			return common.ReportWarn("ctrl+o opens $EDITOR, and $EDITOR is not set: set it (e.g. EDITOR=vim) and start howl again")
		}
		return common.Deliver(common.OwnerChat, m.com.NewID(), chat.WriteDraftCmd(m.input.Value()))
	case msg.Type == tea.KeyPgUp:
		m.chat.Scroll(-max(m.chat.Height()-2, 1))
		return nil
	case msg.Type == tea.KeyPgDown:
		m.chat.Scroll(max(m.chat.Height()-2, 1))
		return nil
	}
	cmd := m.input.HandleKey(msg)
	switch {
	case m.comp.IsOpen():
		cmd = tea.Batch(cmd, m.comp.Refilter(m.input.Value()))
	case msg.Type == tea.KeyRunes && string(msg.Runes) == "@" && chat.MentionWord(m.input.Value()) >= 0:
		cmd = tea.Batch(cmd, m.openMentions())
	}
	return cmd
}

// handleBlocksKey opens the selected tool block's result, or quits,
// while the transcript has the keys; the chat pane takes the rest.
func (m *Model) handleBlocksKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.OpenResult):
		return m.openToolResult()
	case key.Matches(msg, k.Quit):
		return m.quit()
	}
	cmd, _ := m.chat.HandleKey(msg)
	return cmd
}

// openToolResult opens the selected tool block's full result in the viewer.
func (m *Model) openToolResult() tea.Cmd {
	name, result, ok := m.chat.SelectedResult()
	if !ok {
		return nil
	}
	if result == "" {
		return common.ReportInfo("the result shows when the turn ends")
	}
	return m.openFromChat(viewer.Text("result of "+render.SanitizeLine(name), result), "opening")
}

// openFromChat opens a document in the viewer; closing it returns to the chat.
func (m *Model) openFromChat(req viewer.Request, what string) tea.Cmd {
	m.setChatMode(false)
	m.returnToChat = true
	return m.openViewer(req, what)
}

// startCompletion completes the word before the cursor of a command line.
func (m *Model) startCompletion() tea.Cmd {
	return m.comp.Start(m.input.Value(), m.serverInfos())
}

// handleModelSwitched applies `.model`: the latest one only (an earlier
// one resolving later is stale), and not once a turn started meanwhile
// (the turn runs on the model it started with; switching under it would
// say one model and use another).
func (m *Model) handleModelSwitched(id common.RequestID, msg modelSwitchedMsg) tea.Cmd {
	if id != m.modelReq {
		return nil // a later .model replaced it
	}
	m.modelReq = 0
	if m.chat.Turn() != m.modelTurn {
		m.chat.Notice(fmt.Sprintf(".model %s: a turn started before it was ready, so the chat stays on %s; type .model %s again to switch",
			render.SanitizeLine(msg.spec), common.OrDefault(render.SanitizeLine(m.chat.ModelName()), "no model"), render.SanitizeLine(msg.spec)))
		return nil
	}
	if msg.err != nil {
		m.chat.Error(".model: " + msg.err.Error())
		return nil
	}
	m.chat.SetModel(msg.model)
	m.chat.Notice("now chatting with " + msg.model.Name())
	return nil
}

// handleEditorReady runs the editor on the written draft.
func (m *Model) handleEditorReady(msg chat.EditorReady) tea.Cmd {
	if msg.Err != nil {
		return common.ReportError(fmt.Errorf("ctrl+o: writing the draft for $EDITOR: %w", msg.Err))
	}
	return chat.EditorCmd(m.com, msg.Path, m.com.NewID())
}

// handleEditorDone puts what the editor saved into the input.
func (m *Model) handleEditorDone(msg chat.EditorDone) {
	if msg.Err != nil {
		m.chat.Error(fmt.Sprintf("$EDITOR (%s) failed: %v; the draft is unchanged", m.com.Editor, msg.Err))
		return
	}
	m.input.SetValue(msg.Text)
}

// handleChatMouse scrolls the transcript with the wheel and selects tool
// blocks and tabs with clicks.
func (m *Model) handleChatMouse(msg tea.MouseMsg, wheel int) tea.Cmd {
	l := m.layout
	switch {
	case wheel != 0 && l.Chat.Contains(msg.X, msg.Y):
		m.chat.Scroll(wheel)
	case msg.Action != tea.MouseActionPress || msg.Button != tea.MouseButtonLeft:
	case l.Tabs.Contains(msg.X, msg.Y):
		if t := tabAt(m.tabSpans(), msg.X); t >= 0 && t < len(catalog.TabTitles) {
			m.setChatMode(false)
			m.catalog.SetTab(t)
		}
	case l.Chat.Contains(msg.X, msg.Y):
		m.chat.Focus()
		m.chat.Click(msg.Y - l.Chat.Y)
	case l.Input.Contains(msg.X, msg.Y):
		m.chat.Blur()
	}
	return nil
}

// maxPopupWidth is how wide the completion popup's text runs; the rows
// it occupies are blank beyond it.
const maxPopupWidth = 100

// chatBody draws the transcript, the rule and the input, with the
// completion popup over the bottom of the transcript. The popup covers
// whole rows: a transcript line must not continue to its right.
func (m *Model) chatBody() []string {
	l := m.layout
	st := m.com.Styles
	body := m.chat.Render(m.frame)
	if m.comp.IsOpen() {
		pop := m.comp.Render(min(l.Chat.W, maxPopupWidth))
		if len(pop) > len(body) {
			pop = pop[len(pop)-len(body):]
		}
		for i, line := range pop {
			pop[i] = common.Fit(line, l.Chat.W)
		}
		body = common.Overlay(body, pop, 0, len(body)-len(pop))
	}
	rule := "─ " + m.ruleText() + " "
	body = append(body, st.Subtle.Render(common.Fit(rule+strings.Repeat("─", max(l.Rule.W-common.WidthOf(rule), 0)), l.Rule.W)))
	return append(body, m.input.View()...)
}

// ruleText says what the input does now.
func (m *Model) ruleText() string {
	switch {
	case m.chat.Running():
		return common.SpinnerFrames[m.frame%len(common.SpinnerFrames)] + " answering · esc cancels"
	case m.chat.Focused():
		return "tool blocks: ↑/↓ choose · space expands · enter opens · esc back"
	case m.chat.Model() == nil:
		return "no model · . commands work"
	case !m.chat.Following():
		return "scrolled up · pgdn to follow"
	}
	return "enter sends · alt+enter new line · tab completes . commands"
}

// chatStatus is the status bar's chat segment: the model and the tokens.
func (m *Model) chatStatus() string {
	name := m.chat.ModelName()
	if name == "" {
		if m.chatMode {
			return "no model"
		}
		return ""
	}
	u := m.chat.Usage()
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return render.SanitizeLine(name)
	}
	return fmt.Sprintf("%s · %s in %s out%s", render.SanitizeLine(name), tokens(u.InputTokens), tokens(u.OutputTokens), m.contextStatus())
}

// tokens writes a token count shortly: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// servers is what completion may know about the servers: enabled (not
// hidden), with their state and capabilities from the live handshake.
func (m *Model) serverInfos() []chat.ServerInfo {
	var out []chat.ServerInfo
	for _, sv := range m.catalog.Servers() {
		if m.com.Hidden[sv.Name()] {
			continue
		}
		si := chat.ServerInfo{Name: sv.Name(), Ready: sv.Status().State == mcp.StateReady}
		if f := sv.Status().Features; f != nil {
			si.Tools, si.Resources, si.Prompts, si.Logging = f.Tools, f.Resources, f.Prompts, f.Logging
		}
		out = append(out, si)
	}
	return out
}
