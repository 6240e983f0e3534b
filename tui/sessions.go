package tui

import (
	"context"
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

// Resume is a stored conversation the TUI opens with (howl --continue or
// --session ID), loaded before the program starts.
type Resume struct {
	Session store.Session
	Conv    *llm.Conversation
}

// sessionLoadedMsg is a stored conversation to open.
type sessionLoadedMsg struct {
	sess store.Session
	conv *llm.Conversation
	err  error
}

// loadSessionCmd loads one session.
func loadSessionCmd(ctx context.Context, st common.SessionStore, seq common.RequestID, id string) tea.Cmd {
	return common.Deliver(common.OwnerRoot, seq, func() tea.Msg {
		sess, err := st.Get(ctx, id)
		if err != nil {
			return sessionLoadedMsg{err: err}
		}
		conv, err := st.Load(ctx, id)
		return sessionLoadedMsg{sess: sess, conv: conv, err: err}
	})
}

// openSession starts loading a session into the chat.
func (m *Model) openSession(id string) tea.Cmd {
	if m.chat.Running() {
		return common.ReportWarn("a turn is running: wait for it, or press esc to cancel it, then open the session")
	}
	m.loadSeq = m.com.NewID()
	return loadSessionCmd(m.com.Ctx, m.com.Store, m.loadSeq, id)
}

// handleSessionLoaded shows the loaded session in the chat.
func (m *Model) handleSessionLoaded(id common.RequestID, msg sessionLoadedMsg) tea.Cmd {
	if id != m.loadSeq {
		return nil
	}
	m.loadSeq = 0
	if msg.err != nil {
		return common.ReportError(fmt.Errorf("opening the session: %w", msg.err))
	}
	if m.chat.Running() {
		return common.ReportWarn("a turn started before the session loaded: open it again when the turn is done")
	}
	m.chat.LoadSession(msg.sess, msg.conv)
	m.setChatMode(true)
	return nil
}

// openSessionsDialog opens the sessions dialog and lists the sessions.
func (m *Model) openSessionsDialog() tea.Cmd {
	if m.dialogs.Has("sessions") {
		return nil
	}
	d := dialog.NewSessions(m.com, m.chat.Session())
	m.dialogs.Push(d)
	return d.Open()
}

// cmdSessions opens the sessions dialog.
func (m *Model) cmdSessions([]string) tea.Cmd { return m.openSessionsDialog() }

// exportedMsg reports `.export`.
type exportedMsg struct {
	path string
	err  error
}

// cmdExport writes the current session as Markdown.
func (m *Model) cmdExport(words []string) tea.Cmd {
	if len(words) != 1 {
		m.chat.Error("usage: " + chat.Usage(".export"))
		return nil
	}
	if m.com.Store == nil {
		m.chat.Error(".export: conversations are not being saved in this run, so there is no session to export")
		return nil
	}
	rec := m.chat.Session()
	if rec.SessionID() == "" {
		m.chat.Error(".export: this conversation has no saved turn yet: export it after the first answer")
		return nil
	}
	st, ctx, id, path := m.com.Store, m.com.Ctx, rec.SessionID(), words[0]
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		// It holds tool output: the person's alone, and never written
		// through a link planted where it goes.
		f, err := render.OpenPrivate(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return exportedMsg{path: path, err: err}
		}
		err = st.Export(ctx, id, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return exportedMsg{path: path, err: err}
	})
}

// handleExported says where the export went.
func (m *Model) handleExported(msg exportedMsg) {
	if msg.err != nil {
		m.chat.Error(fmt.Sprintf(".export %s: %v", msg.path, msg.err))
		return
	}
	m.chat.Notice("exported the session as Markdown to " + m.com.DisplayPath(msg.path))
}

// applySessionAction carries out what the sessions dialog asked for.
func (m *Model) applySessionAction(d dialog.Dialog, a dialog.OpenSession) tea.Cmd {
	m.dialogs.Remove(d)
	return m.openSession(a.ID)
}

// handleSessionDeleted forgets the open conversation's session when it was
// the one deleted: later turns start a new one.
func (m *Model) handleSessionDeleted(id string) {
	if m.chat.Session().SessionID() == id {
		m.chat.ForgetSession()
		m.chat.Notice("the open conversation's session was deleted: its next turn starts a new session")
	}
}
