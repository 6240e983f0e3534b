package dialog

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
var ErrSamplingRejected = errors.New("the user rejected the sampling request")

// samplingDialog asks whether a server's sampling request may go to the
// chat model. It is never automatic, and it opens on its own, so it
// ignores keys for PermissionGrace after it opens.
type SamplingDialog struct {
	QuestionBase
	// model is the chat model the request would go to; nil says why not
	// in noModel.
	model   llm.Model
	noModel error
	// scroll moves through the messages (a page keeps one line).
	scroll dialogScroll
}

func (d *SamplingDialog) ID() string { return "sampling" }

// HandleKey approves (y), rejects (n or esc) and scrolls the messages;
// once offered, ctrl+x declines everything from the server.
func (d *SamplingDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	if a, ok := d.declineAllKey(km); ok {
		return a
	}
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel, d.com.Keys.Sampling.Reject):
		err := ErrSamplingRejected
		if d.model == nil {
			err = d.noModel
		}
		return AnswerQuestion{Q: d.q, Answer: QuestionAnswer{Err: err}}
	case key.Matches(km, d.com.Keys.Sampling.Approve) && d.model != nil:
		return ApproveSampling{Q: d.q, Model: d.model}
	default:
		d.scroll.HandleKey(km, k)
	}
	return None{}
}

// Render shows the server, the system prompt, maxTokens and the messages
// (scrolling), then the answers.
func (d *SamplingDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	p := d.q.Sample.CreateMessageParams
	server := render.SanitizeLine(d.q.Server)
	label := func(l, v string) string {
		return " " + st.Detail.Label.Render(common.Fit(l, 12)) + common.Truncate(v, inner-14)
	}
	head := []string{"", " " + st.Strong.Render(common.Truncate("Server "+server+" asks the chat model to answer:", inner-2)), ""}
	head = append(head, label("max tokens", fmt.Sprint(p.MaxTokens)))
	if d.model != nil {
		head = append(head, label("model", render.SanitizeLine(d.model.Name())))
	} else {
		head = append(head, label("model", st.Error.Render("none: howl has no chat model to ask")))
	}
	var body []string
	add := func(prefix, text string) {
		for i, l := range strings.Split(render.Sanitize(text), "\n") {
			for j, wl := range common.WrapWords(common.ExpandTabs(l), max(inner-4-len(prefix), 10)) {
				if i == 0 && j == 0 {
					body = append(body, " "+st.Detail.Label.Render(prefix)+wl)
				} else {
					body = append(body, " "+strings.Repeat(" ", len(prefix))+wl)
				}
			}
		}
	}
	const sent = "sent to the model too"
	if p.SystemPrompt != "" {
		add(common.Fit("system", 12), shownText(p.SystemPrompt, sent))
	}
	for _, m := range p.Messages {
		add(common.Fit(samplingRole(m.Role), 12), shownText(llm.SamplingText(m.Content), sent))
	}
	var answers []string
	answers = append(answers, "")
	hint := "y approve: send it to the chat model, its answer goes to " + server + " · n/esc reject"
	if d.model == nil {
		for _, l := range common.WrapWords("✗ "+d.noModel.Error(), max(inner-2, 10)) {
			answers = append(answers, " "+st.Form.Error.Render(l))
		}
		hint = "n/esc reject (the server is told why)"
	}
	for _, l := range common.WrapWords(hint, max(inner-2, 10)) {
		answers = append(answers, " "+st.Dialog.Hint.Render(l))
	}
	answers = append(answers, d.offerLines(inner)...)
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(answers))
	content := append(append(head, shown...), answers...)
	return frameDialog(d.com, "Sampling request from "+server, content, w, maxH, -1)
}

// ShortHelp offers approval only when there is a model to ask.
func (d *SamplingDialog) ShortHelp() []key.Binding {
	k := d.com.Keys
	if d.model == nil {
		return []key.Binding{k.Sampling.Reject, k.PageDown}
	}
	return []key.Binding{k.Sampling.Approve, k.Sampling.Reject, k.PageDown}
}

// actionApproveSampling sends an approved sampling request to model.
type ApproveSampling struct {
	Q     *Question
	Model llm.Model
}

func (ApproveSampling) isAction() {}

// samplingRole is a message's role as it is sent: the model hears
// anything but "assistant" as the user (llm.Sample), and the role is the
// server's string, so one that is neither is shown sanitized, as "user".
func samplingRole(r mcpgo.Role) string {
	switch r {
	case mcpgo.RoleAssistant, mcpgo.RoleUser:
		return string(r)
	}
	return "user (?)"
}
