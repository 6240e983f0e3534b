package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

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

// handleAsk shows a new question, or queues it behind the open dialog.
// A question from a server the person declines everything from is
// declined unasked; one past MaxQueuedQuestions is answered unasked.
func (m *Model) handleAsk(msg askMsg) tea.Cmd {
	q := msg.q
	if q.Ctx.Err() != nil {
		return nil // withdrawn on the way: its askGoneMsg follows
	}
	m.asked[q.Server]++
	if _, ok := m.declining[q.Server]; ok {
		m.declining[q.Server]++
		q.Answer(declined(q))
		return nil
	}
	if q.Elicit != nil && q.Elicit.Mode != "url" {
		if err := dialog.CheckFormFields("its requested schema", q.Elicit.Schema); err != nil {
			return m.declineUnasked(q, err)
		}
	}
	if m.dialogs.Len() == 0 {
		m.openQuestion(q)
		return nil
	}
	for _, d := range m.dialogs.Items() {
		if qd, ok := d.(dialog.QuestionDialog); ok && qd.Question().Server == q.Server {
			qd.SetAsked(m.asked[q.Server])
		}
	}
	server := render.SanitizeLine(q.Server)
	if len(m.asks) >= MaxQueuedQuestions {
		q.Answer(unasked(q))
		return common.ReportWarn(fmt.Sprintf("%s asked another question and howl answered it unasked: %d questions already wait (MaxQueuedQuestions)", server, MaxQueuedQuestions))
	}
	m.asks = append(m.asks, q)
	return common.ReportInfo(server + " has a question for you: it opens when this dialog closes")
}

// declineUnasked declines an elicitation howl will not show (why says
// why), in the server's log and the status bar.
func (m *Model) declineUnasked(q *dialog.Question, why error) tea.Cmd {
	q.Answer(dialog.QuestionAnswer{Elicit: mcp.ElicitResponse{Action: mcp.ElicitDecline}})
	msg := fmt.Sprintf("%s asked a question and howl declined it unasked: %v", render.SanitizeLine(q.Server), why)
	m.logs.Note(q.Server, msg, m.com.Now())
	return common.ReportWarn(msg)
}

// declined is the answer to a question while the person declines
// everything from its server.
func declined(q *dialog.Question) dialog.QuestionAnswer {
	if q.Sample != nil {
		return dialog.QuestionAnswer{Err: errDecliningAll}
	}
	return dialog.QuestionAnswer{Elicit: mcp.ElicitResponse{Action: mcp.ElicitDecline}}
}

// unasked is the answer to a question past MaxQueuedQuestions: nobody
// saw it, so an elicitation is cancelled, not declined.
func unasked(q *dialog.Question) dialog.QuestionAnswer {
	if q.Sample != nil {
		return dialog.QuestionAnswer{Err: errQuestionsQueued}
	}
	return dialog.QuestionAnswer{Elicit: mcp.ElicitResponse{Action: mcp.ElicitCancel}}
}

// openQuestion pushes the dialog of q.
func (m *Model) openQuestion(q *dialog.Question) {
	var noModel error
	if m.chat.Model() == nil {
		noModel = noSamplingModel(m.chat.ModelErr())
	}
	m.dialogs.Push(dialog.NewQuestion(m.com, q, m.asked[q.Server], m.chat.Model(), noModel))
}

// declineAll declines server's open and waiting questions, and every
// later one until `.mcp ask <server>`.
func (m *Model) declineAll(server string) tea.Cmd {
	n := m.declining[server]
	var qs []*dialog.Question
	for _, d := range m.dialogs.Items() {
		if qd, ok := d.(dialog.QuestionDialog); ok && qd.Question().Server == server {
			qs = append(qs, qd.Question())
		}
	}
	for _, q := range m.asks {
		if q.Server == server {
			qs = append(qs, q)
		}
	}
	for _, q := range qs {
		m.closeQuestion(q)
		q.Answer(declined(q))
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
		if q.Ctx.Err() == nil {
			m.openQuestion(q)
		}
	}
}

// closeQuestion takes q's dialog off the stack and out of the queue.
func (m *Model) closeQuestion(q *dialog.Question) bool {
	found := false
	m.asks = slices.DeleteFunc(m.asks, func(x *dialog.Question) bool {
		found = found || x == q
		return x == q
	})
	if m.dialogs.RemoveIf(func(d dialog.Dialog) bool {
		qd, ok := d.(dialog.QuestionDialog)
		return ok && qd.Question() == q
	}) {
		found = true
	}
	return found
}

// answerQuestion replies to the asker and closes the dialog.
func (m *Model) answerQuestion(a dialog.AnswerQuestion) tea.Cmd {
	m.closeQuestion(a.Q)
	a.Q.Answer(a.Answer)
	server := render.SanitizeLine(a.Q.Server)
	switch {
	case a.Q.Sample != nil:
		return common.ReportInfo("rejected " + server + "'s sampling request")
	case a.Answer.Elicit.Action == mcp.ElicitAccept:
		m.accepted(a.Q.Server)
		return common.ReportInfo("answered " + server + "'s question")
	case a.Answer.Elicit.Action == mcp.ElicitDecline:
		return common.ReportInfo("declined " + server + "'s question")
	}
	return common.ReportInfo("cancelled " + server + "'s question")
}

// accepted starts server's count of questions again: the person wants
// its questions. The ones still waiting count.
func (m *Model) accepted(server string) {
	m.asked[server] = 0
	for _, q := range m.asks {
		if q.Server == server {
			m.asked[server]++
		}
	}
}

// handleAskGone closes the dialog of a question nobody waits for anymore.
func (m *Model) handleAskGone(msg askGoneMsg) tea.Cmd {
	if !m.closeQuestion(msg.q) {
		return nil
	}
	return common.ReportInfo(render.SanitizeLine(msg.q.Server) + " withdrew its question (the request was cancelled)")
}

// urlOpenedMsg reports the browser's start on a URL request's URL.
type urlOpenedMsg struct {
	q   *dialog.Question
	url string
	err error
}

// openURLCmd opens u the way an OAuth login does (mcp.OpenBrowser:
// $BROWSER, else the platform's opener), bounded by ctx: the question's,
// so a question the server withdrew opens nothing more.
func openURLCmd(ctx context.Context, q *dialog.Question, u string) tea.Cmd {
	return func() tea.Msg {
		return urlOpenedMsg{q: q, url: u, err: mcp.OpenBrowser(ctx, u)}
	}
}

// handleURLOpened answers accept once the browser started, or shows why
// it did not (the person can then decline).
func (m *Model) handleURLOpened(msg urlOpenedMsg) tea.Cmd {
	if msg.err != nil {
		if d, ok := m.dialogs.Top().(*dialog.ElicitDialog); ok && d.Question() == msg.q {
			d.URLFailed(msg.err)
		}
		return common.ReportError(msg.err)
	}
	m.answerQuestion(dialog.AnswerQuestion{Q: msg.q, Answer: dialog.QuestionAnswer{Elicit: mcp.ElicitResponse{Action: mcp.ElicitAccept}}})
	return common.ReportInfo("opened " + render.SanitizeLine(msg.url) + " in the browser and told " + render.SanitizeLine(msg.q.Server))
}

// sampledMsg is the chat model's answer to an approved sampling request.
type sampledMsg struct {
	q   *dialog.Question
	res *mcpgo.CreateMessageResult
	err error
}

// sampleCmd asks model for the request's answer, bounded by the request's
// own context (a cancelled request stops the model).
func sampleCmd(q *dialog.Question, model llm.Model) tea.Cmd {
	ctx, req := q.Ctx, *q.Sample
	return func() tea.Msg {
		res, err := llm.Sample(ctx, model, req)
		return sampledMsg{q: q, res: res, err: err}
	}
}

// noSamplingModel is the error a server hears when no chat model is
// configured, naming the fix.
func noSamplingModel(cause error) error {
	fix := "start howl with --model provider/name (e.g. openai/gpt-4.1 with $OPENAI_API_KEY set), or --base-url for any OpenAI-compatible endpoint"
	var le *llm.Error
	if errors.As(cause, &le) && le.Fix != "" {
		fix = le.Fix
	}
	return fmt.Errorf("no chat model is configured in howl, so nothing can answer: %s", fix)
}

// approveSampling closes the dialog and sends the request to the model.
func (m *Model) approveSampling(a dialog.ApproveSampling) tea.Cmd {
	m.closeQuestion(a.Q)
	m.accepted(a.Q.Server)
	return tea.Batch(common.Deliver(common.OwnerRoot, m.com.NewID(), sampleCmd(a.Q, a.Model)), common.ReportInfo("asking "+render.SanitizeLine(a.Model.Name())+" for "+render.SanitizeLine(a.Q.Server)+"'s sampling request"))
}

// handleSampled replies with the model's answer.
func (m *Model) handleSampled(msg sampledMsg) tea.Cmd {
	msg.q.Answer(dialog.QuestionAnswer{Sample: msg.res, Err: msg.err})
	if msg.err != nil {
		if msg.q.Ctx.Err() != nil {
			return nil // the server stopped waiting; its dialog said so
		}
		// The server heard SampleError's short form; the person sees why.
		why := msg.err
		var se *llm.SampleError
		if errors.As(why, &se) {
			why = se.Err
		}
		return common.ReportError(fmt.Errorf("sampling for %s: %w", render.SanitizeLine(msg.q.Server), why))
	}
	return common.ReportInfo("sent " + render.SanitizeLine(msg.res.Model) + "'s answer to " + render.SanitizeLine(msg.q.Server))
}
