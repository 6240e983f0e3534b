package chat

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// sessionRec is where the chat's conversation is stored: its session id
// ("" until the first turn is stored, which creates it) and the finished turns waiting to be
// written. Turns are written one at a time, in order, each in a command;
// only Update changes a sessionRec.
type SessionRec struct {
	id    string
	title string
	// saving: a write is in flight; queue holds the turns after it.
	saving bool
	queue  [][]llm.Message
}

// turnSavedMsg reports one turn's write.
type turnSavedMsg struct {
	rec *SessionRec
	// id is the session's id (new when the write created it).
	id, title string
	err       error
}

// SaveTurn hands a finished turn to the store: at once when nothing is
// being written for this conversation, else after the write in flight.
func (c *Pane) SaveTurn(msgs []llm.Message) tea.Cmd {
	if c.com.Store == nil || len(msgs) == 0 || c.rec == nil {
		return nil
	}
	c.rec.queue = append(c.rec.queue, msgs)
	return c.nextSave(c.rec)
}

// nextSave starts the next queued write of rec, if none is in flight. The
// command captures every value it needs; it reads nothing of the model.
func (c *Pane) nextSave(rec *SessionRec) tea.Cmd {
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
func (c *Pane) HandleSaved(msg turnSavedMsg) tea.Cmd {
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
func (c *Pane) visibleServers() []string {
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
func (c *Pane) LoadSession(sess store.Session, conv *llm.Conversation) {
	c.conv = conv
	c.tr.items = nil
	c.usage, c.lastReq = llm.Usage{}, llm.Usage{}
	c.sel, c.top, c.follow = -1, 0, true
	c.rec = &SessionRec{id: sess.ID, title: sess.Title}
	c.tr.add(&chatItem{kind: itemNotice, text: fmt.Sprintf("Session %q (%d messages, updated %s): the next turn continues it.",
		render.SanitizeLine(sess.Title), len(conv.Messages), c.com.FormatTime(sess.Updated))})
	tools := map[string]*chatItem{}
	for _, m := range conv.Messages {
		switch m.Role {
		case llm.RoleUser:
			// As it was live: the typed text, then a chip per attachment.
			text, marks, bodies := splitAttachments(m.Text, m.Attachments)
			c.tr.add(&chatItem{kind: itemUser, text: text})
			for i, a := range marks {
				c.tr.add(attachmentChip(a.Name, bodies[i]))
			}
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
					it.settle(r.IsError, r.Denied, r.Summary, len(r.Content), r.Duration, r.Decision)
					it.result = r.Content
				}
			}
		}
	}
	c.stick()
}

// SessionID is the stored session's id ("" until the first turn is saved).
func (r *SessionRec) SessionID() string {
	if r == nil {
		return ""
	}
	return r.id
}
