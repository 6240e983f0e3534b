package dialog

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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

// questionDialog is a dialog that answers a question.
type QuestionDialog interface {
	Dialog
	Question() *Question
	// SetAsked tells the dialog how many questions its server has asked
	// (it offers ctrl+x from DeclineAllAfter on).
	SetAsked(n int)
}

// questionBase is what the question dialogs share: the question, when the
// dialog opened (keys are ignored for PermissionGrace after that) and how
// many questions its server has asked.
type QuestionBase struct {
	dialogBase
	com *common.Common
	q   *Question
	grace
	asked int
}

// question is the question the dialog answers.
func (b *QuestionBase) Question() *Question { return b.q }

func (b *QuestionBase) SetAsked(n int) { b.asked = n }

// declineAllKey turns ctrl+x, once offered, into declining everything
// from the server.
func (b *QuestionBase) declineAllKey(km tea.KeyMsg) (Action, bool) {
	if b.asked < DeclineAllAfter || !key.Matches(km, b.com.Keys.Question.DeclineAll) {
		return nil, false
	}
	return DeclineAll{Server: b.q.Server}, true
}

// offerLines offer ctrl+x once the server has asked DeclineAllAfter
// questions, saying how to undo it.
func (b *QuestionBase) offerLines(inner int) []string {
	if b.asked < DeclineAllAfter {
		return nil
	}
	server := render.SanitizeLine(b.q.Server)
	text := fmt.Sprintf("%s has asked %d questions: ctrl+x declines this one and everything else from %s, until you type .mcp ask %s",
		server, b.asked, server, server)
	out := []string{""}
	for _, l := range common.WrapWords(text, max(inner-2, 10)) {
		out = append(out, " "+b.com.Styles.Warning.Render(l))
	}
	return out
}

// actionAnswerQuestion replies to a question and closes its dialog.
type AnswerQuestion struct {
	Q      *Question
	Answer QuestionAnswer
}

func (AnswerQuestion) isAction() {}

// actionDeclineAll declines everything from a server until `.mcp ask`.
type DeclineAll struct{ Server string }

func (DeclineAll) isAction() {}

// maxShownText bounds the text of one message a question's dialog draws:
// a dialog wraps what it shows on every frame, and a server's 16 MiB
// message took about 0.6 s a frame to wrap.
const maxShownText = 256 << 10

// shownText is s cut to maxShownText at a character boundary, saying how
// many bytes are not shown (and, when also is set, what becomes of them).
func shownText(s, also string) string {
	if len(s) <= maxShownText {
		return s
	}
	note := fmt.Sprintf("… (%s more not shown", render.HumanBytes(int64(len(s)-maxShownText)))
	if also != "" {
		note += ", " + also
	}
	return s[:render.RuneBoundary(s, maxShownText)] + "\n" + note + ")"
}
