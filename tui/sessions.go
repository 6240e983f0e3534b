package tui

import (
	"context"
	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Resume is a stored conversation the TUI opens with (howl --continue or
// --session ID), loaded before the program starts.
type Resume struct {
	Session store.Session
	Conv    *llm.Conversation
}

// sessionRec is where the chat's conversation is stored: its session id
// ("" until the first turn is stored, which creates it) and the finished turns waiting to be
// written. Turns are written one at a time, in order, each in a command;
// only Update changes a sessionRec.
type sessionRec struct {
	id    string
	title string
	// saving: a write is in flight; queue holds the turns after it.
	saving bool
	queue  [][]llm.Message
}

// turnSavedMsg reports one turn's write.
type turnSavedMsg struct {
	rec *sessionRec
	// id is the session's id (new when the write created it).
	id, title string
	err       error
}

// saveTurn hands a finished turn to the store: at once when nothing is
// being written for this conversation, else after the write in flight.
func (c *chatPane) saveTurn(msgs []llm.Message) tea.Cmd {
	if c.com.Store == nil || len(msgs) == 0 || c.rec == nil {
		return nil
	}
	c.rec.queue = append(c.rec.queue, msgs)
	return c.nextSave(c.rec)
}

// nextSave starts the next queued write of rec, if none is in flight. The
// command captures every value it needs; it reads nothing of the model.
func (c *chatPane) nextSave(rec *sessionRec) tea.Cmd {
	if rec.saving || len(rec.queue) == 0 {
		return nil
	}
	rec.saving = true
	msgs := rec.queue[0]
	rec.queue = rec.queue[1:]
	st, ctx, id, title, gate := c.com.Store, context.WithoutCancel(c.com.Ctx), rec.id, rec.title, c.com.Writes
	model, servers := c.ModelName(), c.visibleServers()
	question := ""
	if len(msgs) > 0 && msgs[0].Role == llm.RoleUser {
		question = msgs[0].Text
	}
	return common.Deliver(common.OwnerChat, c.com.NewID(), func() tea.Msg {
		return gate.Do(func() tea.Msg {
			if id == "" {
				// The session is stored with its first turn, or not at all.
				sess, err := st.Create(ctx, question, model, servers, msgs)
				if err != nil {
					return turnSavedMsg{rec: rec, err: err}
				}
				return turnSavedMsg{rec: rec, id: sess.ID, title: sess.Title}
			}
			err := st.AppendTurn(ctx, id, msgs)
			return turnSavedMsg{rec: rec, id: id, title: title, err: err}
		})
	})
}

// HandleSaved records the session id and starts the next write.
func (c *chatPane) HandleSaved(msg turnSavedMsg) tea.Cmd {
	rec := msg.rec
	rec.saving = false
	if msg.id != "" {
		rec.id, rec.title = msg.id, msg.title
	}
	if msg.err != nil {
		c.Error("this turn was not saved: " + msg.err.Error() + "; the chat goes on")
	}
	return c.nextSave(rec)
}

// visibleServers are the servers the chat's model may use now.
func (c *chatPane) visibleServers() []string {
	out := []string{}
	for _, s := range c.servers {
		if !c.com.Hidden[s] {
			out = append(out, s)
		}
	}
	return out
}

// LoadSession replaces the conversation with a stored one: the transcript
// shows it and the next turn continues it.
func (c *chatPane) LoadSession(sess store.Session, conv *llm.Conversation) {
	c.conv = conv
	c.tr.items = nil
	c.usage, c.lastReq = llm.Usage{}, llm.Usage{}
	c.sel, c.top, c.follow = -1, 0, true
	c.rec = &sessionRec{id: sess.ID, title: sess.Title}
	c.tr.add(&chatItem{kind: itemNotice, text: fmt.Sprintf("Session %q (%d messages, updated %s): the next turn continues it.",
		render.SanitizeLine(sess.Title), len(conv.Messages), c.com.FormatTime(sess.Updated))})
	tools := map[string]*chatItem{}
	for _, m := range conv.Messages {
		switch m.Role {
		case llm.RoleUser:
			c.tr.add(&chatItem{kind: itemUser, text: m.Text})
		case llm.RoleAssistant:
			if strings.TrimSpace(m.Text) != "" || m.Reasoning != "" {
				c.tr.add(&chatItem{kind: itemAssistant, model: m.Model, text: m.Text, reasoning: m.Reasoning})
			}
			if m.Usage != nil {
				c.usage = c.usage.Add(*m.Usage)
				c.lastReq = *m.Usage
			}
			for _, tc := range m.ToolCalls {
				tools[tc.ID] = c.tr.add(&chatItem{kind: itemTool, callID: tc.ID, name: tc.Name, args: tc.Arguments, summary: "no result"})
			}
		case llm.RoleTool:
			for _, r := range m.ToolResults {
				if it := tools[r.CallID]; it != nil {
					it.isError, it.summary, it.bytes, it.dur, it.result = r.IsError, r.Summary, len(r.Content), r.Duration, r.Content
				}
			}
		}
	}
	c.stick()
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
	d := &sessionsDialog{com: m.com, current: m.chat.rec}
	m.dialogs.Push(d)
	return d.reload()
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
		m.chat.Error("usage: " + usage(".export"))
		return nil
	}
	if m.com.Store == nil {
		m.chat.Error(".export: conversations are not being saved in this run, so there is no session to export")
		return nil
	}
	rec := m.chat.rec
	if rec == nil || rec.id == "" {
		m.chat.Error(".export: this conversation has no saved turn yet: export it after the first answer")
		return nil
	}
	st, ctx, id, path := m.com.Store, m.com.Ctx, rec.id, words[0]
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		f, err := os.Create(path)
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
func (m *Model) applySessionAction(d Dialog, a actionOpenSession) tea.Cmd {
	m.dialogs.Remove(d)
	return m.openSession(a.id)
}

// handleSessionDeleted forgets the open conversation's session when it was
// the one deleted: later turns start a new one.
func (m *Model) handleSessionDeleted(id string) {
	if rec := m.chat.rec; rec != nil && rec.id == id {
		m.chat.rec = &sessionRec{}
		m.chat.Notice("the open conversation's session was deleted: its next turn starts a new session")
	}
}
