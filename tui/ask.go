package tui

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// A server's questions (elicitation and sampling requests) arrive through
// the Relay as askMsg. One is shown at a time, in its own dialog, and only
// when no other dialog is open; the rest wait in Model.asks, in order. A
// question whose asker stopped waiting (askGoneMsg) leaves the queue or
// closes its dialog.
//
// A server that keeps asking is not a queue the person must work through:
// after DeclineAllAfter questions its dialog offers ctrl+x, which declines
// that question, every waiting one from the server and every later one,
// until `.mcp ask <server>`. At most MaxQueuedQuestions wait; more are
// answered at once, unasked.

// DeclineAllAfter is how many questions a server may ask (since the person
// last accepted one of them) before its dialog offers to decline
// everything from it.
const DeclineAllAfter = 3

// MaxQueuedQuestions bounds the questions waiting behind the open dialog.
// One past it is answered at once without asking (cancel for an
// elicitation, an error for sampling), and the status bar says so.
const MaxQueuedQuestions = 32

// errDecliningAll is what a server hears for a sampling request while the
// person declines everything from it (after "howl did not sample for S: ").
var errDecliningAll = errors.New("the user declines every request from this server for now")

// errQuestionsQueued is what a server hears for a sampling request past
// MaxQueuedQuestions.
var errQuestionsQueued = fmt.Errorf("%d questions already wait for the user (MaxQueuedQuestions): ask again later", MaxQueuedQuestions)

// questionDialog is a dialog that answers a question.
type questionDialog interface {
	Dialog
	question() *question
	// setAsked tells the dialog how many questions its server has asked
	// (it offers ctrl+x from DeclineAllAfter on).
	setAsked(n int)
}

// questionBase is what the question dialogs share: the question, when the
// dialog opened (keys are ignored for PermissionGrace after that) and how
// many questions its server has asked.
type questionBase struct {
	dialogBase
	com    *common.Common
	q      *question
	opened time.Time
	asked  int
}

// question is the question the dialog answers.
func (b *questionBase) question() *question { return b.q }

func (b *questionBase) setAsked(n int) { b.asked = n }

// inGrace reports whether the dialog opened too recently to take keys.
func (b *questionBase) inGrace() bool { return b.com.Now().Sub(b.opened) < common.PermissionGrace }

// declineAllKey turns ctrl+x, once offered, into declining everything
// from the server.
func (b *questionBase) declineAllKey(km tea.KeyMsg) (Action, bool) {
	if b.asked < DeclineAllAfter || !key.Matches(km, b.com.Keys.Question.DeclineAll) {
		return nil, false
	}
	return actionDeclineAll{server: b.q.server}, true
}

// offerLines offer ctrl+x once the server has asked DeclineAllAfter
// questions, saying how to undo it.
func (b *questionBase) offerLines(inner int) []string {
	if b.asked < DeclineAllAfter {
		return nil
	}
	server := render.SanitizeLine(b.q.server)
	text := fmt.Sprintf("%s has asked %d questions: ctrl+x declines this one and everything else from %s, until you type .mcp ask %s",
		server, b.asked, server, server)
	out := []string{""}
	for _, l := range common.WrapText(text, max(inner-2, 10)) {
		out = append(out, " "+b.com.Styles.Warning.Render(l))
	}
	return out
}

// actionAnswerQuestion replies to a question and closes its dialog.
type actionAnswerQuestion struct {
	q      *question
	answer questionAnswer
}

func (actionAnswerQuestion) isAction() {}

// actionDeclineAll declines everything from a server until `.mcp ask`.
type actionDeclineAll struct{ server string }

func (actionDeclineAll) isAction() {}

// handleAsk shows a new question, or queues it behind the open dialog.
// A question from a server the person declines everything from is
// declined unasked; one past MaxQueuedQuestions is answered unasked.
func (m *Model) handleAsk(msg askMsg) tea.Cmd {
	q := msg.q
	if q.ctx.Err() != nil {
		return nil // withdrawn on the way: its askGoneMsg follows
	}
	m.asked[q.server]++
	if _, ok := m.declining[q.server]; ok {
		m.declining[q.server]++
		q.answer(declined(q))
		return nil
	}
	if m.dialogs.Len() == 0 {
		m.openQuestion(q)
		return nil
	}
	for _, d := range m.dialogs.items {
		if qd, ok := d.(questionDialog); ok && qd.question().server == q.server {
			qd.setAsked(m.asked[q.server])
		}
	}
	server := render.SanitizeLine(q.server)
	if len(m.asks) >= MaxQueuedQuestions {
		q.answer(unasked(q))
		return common.ReportWarn(fmt.Sprintf("%s asked another question and howl answered it unasked: %d questions already wait (MaxQueuedQuestions)", server, MaxQueuedQuestions))
	}
	m.asks = append(m.asks, q)
	return common.ReportInfo(server + " has a question for you: it opens when this dialog closes")
}

// declined is the answer to a question while the person declines
// everything from its server.
func declined(q *question) questionAnswer {
	if q.sample != nil {
		return questionAnswer{err: errDecliningAll}
	}
	return questionAnswer{elicit: mcp.ElicitResponse{Action: mcp.ElicitDecline}}
}

// unasked is the answer to a question past MaxQueuedQuestions: nobody
// saw it, so an elicitation is cancelled, not declined.
func unasked(q *question) questionAnswer {
	if q.sample != nil {
		return questionAnswer{err: errQuestionsQueued}
	}
	return questionAnswer{elicit: mcp.ElicitResponse{Action: mcp.ElicitCancel}}
}

// openQuestion pushes the dialog of q.
func (m *Model) openQuestion(q *question) {
	base := questionBase{com: m.com, q: q, opened: m.com.Now(), asked: m.asked[q.server]}
	if q.elicit != nil {
		m.dialogs.Push(newElicitDialog(base))
		return
	}
	d := &samplingDialog{questionBase: base, model: m.chat.Model(), scroll: dialogScroll{overlap: 1}}
	if d.model == nil {
		d.noModel = noSamplingModel(m.chat.ModelErr())
	}
	m.dialogs.Push(d)
}

// declineAll declines server's open and waiting questions, and every
// later one until `.mcp ask <server>`.
func (m *Model) declineAll(server string) tea.Cmd {
	n := m.declining[server]
	var qs []*question
	for _, d := range m.dialogs.items {
		if qd, ok := d.(questionDialog); ok && qd.question().server == server {
			qs = append(qs, qd.question())
		}
	}
	for _, q := range m.asks {
		if q.server == server {
			qs = append(qs, q)
		}
	}
	for _, q := range qs {
		m.closeQuestion(q)
		q.answer(declined(q))
	}
	m.declining[server] = n + len(qs)
	m.nextQuestion()
	s := render.SanitizeLine(server)
	msg := fmt.Sprintf("declined %s from %s; howl declines everything it asks until you type .mcp ask %s", render.Count(len(qs), "question"), s, s)
	m.logs.Note(server, msg, m.com.Now())
	return common.ReportInfo(msg)
}

// askAgain lifts declineAll: server's questions open dialogs again.
func (m *Model) askAgain(server string) {
	s := render.SanitizeLine(server)
	n, ok := m.declining[server]
	if !ok {
		m.chat.Notice(s + "'s questions already open a dialog (ctrl+x in one of them declines everything from it)")
		return
	}
	delete(m.declining, server)
	m.asked[server] = 0
	m.chat.Notice(fmt.Sprintf("%s's questions open a dialog again (%s declined meanwhile)", s, render.Count(n, "question")))
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
		return common.ReportInfo("rejected " + server + "'s sampling request")
	case a.answer.elicit.Action == mcp.ElicitAccept:
		m.accepted(a.q.server)
		return common.ReportInfo("answered " + server + "'s question")
	case a.answer.elicit.Action == mcp.ElicitDecline:
		return common.ReportInfo("declined " + server + "'s question")
	}
	return common.ReportInfo("cancelled " + server + "'s question")
}

// accepted starts server's count of questions again: the person wants
// its questions. The ones still waiting count.
func (m *Model) accepted(server string) {
	m.asked[server] = 0
	for _, q := range m.asks {
		if q.server == server {
			m.asked[server]++
		}
	}
}

// handleAskGone closes the dialog of a question nobody waits for anymore.
func (m *Model) handleAskGone(msg askGoneMsg) tea.Cmd {
	if !m.closeQuestion(msg.q) {
		return nil
	}
	return common.ReportInfo(render.SanitizeLine(msg.q.server) + " withdrew its question (the request was cancelled)")
}
