package tui

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// A server's questions (elicitation and sampling requests) arrive through
// the Relay as askMsg. One is shown at a time, in its own dialog, and only
// when no other dialog is open; the rest wait in Model.asks, in order. A
// question whose asker stopped waiting (askGoneMsg) leaves the queue or
// closes its dialog.

// questionDialog is a dialog that answers a question.
type questionDialog interface {
	Dialog
	question() *question
}

// actionAnswerQuestion replies to a question and closes its dialog.
type actionAnswerQuestion struct {
	q      *question
	answer questionAnswer
}

func (actionAnswerQuestion) isAction() {}

// handleAsk shows a new question, or queues it behind the open dialog.
func (m *Model) handleAsk(msg askMsg) tea.Cmd {
	if msg.q.ctx.Err() != nil {
		return nil // withdrawn on the way: its askGoneMsg follows
	}
	if m.dialogs.Len() > 0 {
		m.asks = append(m.asks, msg.q)
		return ReportInfo(render.SanitizeLine(msg.q.server) + " has a question for you: it opens when this dialog closes")
	}
	m.openQuestion(msg.q)
	return nil
}

// openQuestion pushes the dialog of q.
func (m *Model) openQuestion(q *question) {
	if q.elicit != nil {
		m.dialogs.Push(newElicitDialog(m.com, q))
		return
	}
	d := &samplingDialog{com: m.com, q: q, opened: m.com.now(), model: m.chat.model, scroll: dialogScroll{overlap: 1}}
	if d.model == nil {
		d.noModel = noSamplingModel(m.chat.modelErr)
	}
	m.dialogs.Push(d)
}

// nextQuestion opens the oldest waiting question once no dialog is open.
func (m *Model) nextQuestion() {
	for m.dialogs.Len() == 0 && len(m.asks) > 0 {
		q := m.asks[0]
		m.asks = m.asks[1:]
		if q.ctx.Err() == nil {
			m.openQuestion(q)
		}
	}
}

// closeQuestion takes q's dialog off the stack and out of the queue.
func (m *Model) closeQuestion(q *question) bool {
	found := false
	m.asks = slices.DeleteFunc(m.asks, func(x *question) bool {
		found = found || x == q
		return x == q
	})
	m.dialogs.items = slices.DeleteFunc(m.dialogs.items, func(d Dialog) bool {
		qd, ok := d.(questionDialog)
		if ok && qd.question() == q {
			found = true
			return true
		}
		return false
	})
	return found
}

// answerQuestion replies to the asker and closes the dialog.
func (m *Model) answerQuestion(a actionAnswerQuestion) tea.Cmd {
	m.closeQuestion(a.q)
	a.q.answer(a.answer)
	server := render.SanitizeLine(a.q.server)
	switch {
	case a.q.sample != nil:
		return ReportInfo("rejected " + server + "'s sampling request")
	case a.answer.elicit.Action == mcp.ElicitAccept:
		return ReportInfo("answered " + server + "'s question")
	case a.answer.elicit.Action == mcp.ElicitDecline:
		return ReportInfo("declined " + server + "'s question")
	}
	return ReportInfo("cancelled " + server + "'s question")
}

// handleAskGone closes the dialog of a question nobody waits for anymore.
func (m *Model) handleAskGone(msg askGoneMsg) tea.Cmd {
	if !m.closeQuestion(msg.q) {
		return nil
	}
	return ReportInfo(render.SanitizeLine(msg.q.server) + " withdrew its question (the request was cancelled)")
}
