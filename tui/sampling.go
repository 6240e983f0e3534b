package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// errSamplingRejected is what a server hears when the person rejects its
// sampling request (after "howl did not sample for S: ").
var errSamplingRejected = errors.New("the user rejected the sampling request")

// samplingDialog asks whether a server's sampling request may go to the
// chat model. It is never automatic, and it opens on its own, so it
// ignores keys for PermissionGrace after it opens.
type samplingDialog struct {
	questionBase
	// model is the chat model the request would go to; nil says why not
	// in noModel.
	model   llm.Model
	noModel error
	// scroll moves through the messages (a page keeps one line).
	scroll dialogScroll
}

func (d *samplingDialog) ID() string { return "sampling" }

// HandleKey approves (y), rejects (n or esc) and scrolls the messages;
// once offered, ctrl+x declines everything from the server.
func (d *samplingDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace() {
		return actionNone{}
	}
	if a, ok := d.declineAllKey(km); ok {
		return a
	}
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel, d.com.Keys.Sampling.Reject):
		err := errSamplingRejected
		if d.model == nil {
			err = d.noModel
		}
		return actionAnswerQuestion{q: d.q, answer: questionAnswer{err: err}}
	case key.Matches(km, d.com.Keys.Sampling.Approve) && d.model != nil:
		return actionApproveSampling{q: d.q, model: d.model}
	default:
		d.scroll.HandleKey(km, k)
	}
	return actionNone{}
}

// Render shows the server, the system prompt, maxTokens and the messages
// (scrolling), then the answers.
func (d *samplingDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	p := d.q.sample.CreateMessageParams
	server := render.SanitizeLine(d.q.server)
	label := func(l, v string) string {
		return " " + st.Detail.Label.Render(common.Fit(l, 12)) + common.Truncate(v, inner-14)
	}
	head := []string{"", " " + st.Strong.Render(common.Truncate("Server "+server+" asks the chat model to answer:", inner-2)), ""}
	head = append(head, label("max tokens", fmt.Sprint(p.MaxTokens)))
	if d.model != nil {
		head = append(head, label("model", render.SanitizeLine(d.model.Name())))
	}
	var body []string
	add := func(prefix, text string) {
		for i, l := range strings.Split(render.Sanitize(text), "\n") {
			for j, wl := range common.WrapText(common.ExpandTabs(l), max(inner-4-len(prefix), 10)) {
				if i == 0 && j == 0 {
					body = append(body, " "+st.Detail.Label.Render(prefix)+wl)
				} else {
					body = append(body, " "+strings.Repeat(" ", len(prefix))+wl)
				}
			}
		}
	}
	if p.SystemPrompt != "" {
		add(common.Fit("system", 12), p.SystemPrompt)
	}
	for _, m := range p.Messages {
		add(common.Fit(string(m.Role), 12), llm.SamplingText(m.Content))
	}
	var answers []string
	answers = append(answers, "")
	hint := "y approve: send it to the chat model, its answer goes to " + server + " · n/esc reject"
	if d.model == nil {
		for _, l := range common.WrapText("✗ "+d.noModel.Error(), max(inner-2, 10)) {
			answers = append(answers, " "+st.Form.Error.Render(l))
		}
		hint = "n/esc reject (the server is told why)"
	}
	for _, l := range common.WrapText(hint, max(inner-2, 10)) {
		answers = append(answers, " "+st.Dialog.Hint.Render(l))
	}
	answers = append(answers, d.offerLines(inner)...)
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(answers))
	content := append(append(head, shown...), answers...)
	return frameDialog(d.com, "Sampling request from "+server, content, w, maxH, -1)
}

// actionApproveSampling sends an approved sampling request to model.
type actionApproveSampling struct {
	q     *question
	model llm.Model
}

func (actionApproveSampling) isAction() {}

// sampledMsg is the chat model's answer to an approved sampling request.
type sampledMsg struct {
	q   *question
	res *mcpgo.CreateMessageResult
	err error
}

// sampleCmd asks model for the request's answer, bounded by the request's
// own context (a cancelled request stops the model).
func sampleCmd(q *question, model llm.Model) tea.Cmd {
	ctx, req := q.ctx, *q.sample
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
func (m *Model) approveSampling(a actionApproveSampling) tea.Cmd {
	m.closeQuestion(a.q)
	m.accepted(a.q.server)
	return tea.Batch(common.Deliver(common.OwnerRoot, m.com.NewID(), sampleCmd(a.q, a.model)), common.ReportInfo("asking "+render.SanitizeLine(a.model.Name())+" for "+render.SanitizeLine(a.q.server)+"'s sampling request"))
}

// handleSampled replies with the model's answer.
func (m *Model) handleSampled(msg sampledMsg) tea.Cmd {
	msg.q.answer(questionAnswer{sample: msg.res, err: msg.err})
	if msg.err != nil {
		if msg.q.ctx.Err() != nil {
			return nil // the server stopped waiting; its dialog said so
		}
		return common.ReportError(fmt.Errorf("sampling for %s: %w", render.SanitizeLine(msg.q.server), msg.err))
	}
	return common.ReportInfo("sent " + render.SanitizeLine(msg.res.Model) + "'s answer to " + render.SanitizeLine(msg.q.server))
}
