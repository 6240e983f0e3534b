package dialog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// completeDebounce is how long typing pauses before a field's value is
// sent for completion.
const completeDebounce = 150 * time.Millisecond

// maxSuggestions bounds the suggestions shown under a field.
const maxSuggestions = 6

// formCompleteTickMsg: typing paused in a prompt form's field.
type formCompleteTickMsg struct{}

// formCompletionMsg is a server's completion of one field.
type formCompletionMsg struct {
	field  string
	values []string
	// tooLong counts the values the server gave that were left out for
	// their length (mcp.Completion.TooLong).
	tooLong int
}

// newChatPromptForm is a prompt's argument form opened from `.prompt`: on
// submit the prompt is fetched and previewed, then sent to the chat.
func NewChatPromptForm(com *common.Common, it mcp.CatalogItem) *FormDialog {
	d := NewPromptForm(com, it)
	d.toChat = true
	d.form.Submit = "Preview"
	return d
}

// completable reports whether the server can complete the item's fields:
// a prompt's arguments and a resource template's variables.
func completable(it mcp.CatalogItem) bool {
	return it.Kind == mcp.KindPrompt || it.Kind == mcp.KindTemplate
}

// CompleteFocused asks the server to complete the focused field now.
func (d *FormDialog) CompleteFocused() tea.Cmd {
	if !completable(d.item) || d.raw {
		return nil
	}
	f := d.form
	if f.focus >= len(f.fields) || !f.fields[f.focus].typed() {
		return nil
	}
	d.complete = d.com.NewID()
	return d.completeCmd(d.complete)
}

// completeCmd captures the focused field, its value and the filled ones,
// and asks the server, bounded by the completion timeout. Any error or
// timeout is an empty list.
func (d *FormDialog) completeCmd(id common.RequestID) tea.Cmd {
	f := d.form
	if f.focus >= len(f.fields) {
		return nil
	}
	fl := f.fields[f.focus]
	filled := f.Strings()
	delete(filled, fl.Name)
	ctx, it, value, timeout := d.com.Ctx, d.item, fl.text(), d.com.CompleteTimeout()
	var rt Runtime = d.com.RT
	return common.Deliver(d.Owner(), id, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		kind, ref := chat.CompletionRef(it)
		c, err := rt.Complete(ctx, it.Server, kind, ref, fl.Name, value, filled)
		if err != nil || ctx.Err() != nil {
			return formCompletionMsg{field: fl.Name}
		}
		return formCompletionMsg{field: fl.Name, values: c.Values, tooLong: c.TooLong}
	})
}

// handleCompletionMsg applies completion ticks and answers; one that is
// not the latest is dropped.
func (d *FormDialog) handleCompletionMsg(r common.Result) tea.Cmd {
	if r.ID != d.complete {
		return nil
	}
	switch msg := r.Msg.(type) {
	case formCompleteTickMsg:
		return d.completeCmd(r.ID)
	case formCompletionMsg:
		for _, fl := range d.form.fields {
			if fl.Name == msg.field {
				fl.suggestions = nil
				for _, v := range msg.values {
					if v != fl.text() && len(fl.suggestions) < maxSuggestions {
						fl.suggestions = append(fl.suggestions, render.SanitizeLine(v))
					}
				}
				fl.sugSel, fl.sugLeftOut = 0, msg.tooLong
			}
		}
	}
	return nil
}

// handleSuggestionKey chooses (ctrl+n/ctrl+p) and accepts (tab or → at
// the end of the value) the focused field's suggestions, as the chat's
// completion does: tab takes the highlighted one once something is typed
// (on an empty field the offers are only offers: tab moves on).
func (d *FormDialog) handleSuggestionKey(km tea.KeyMsg) bool {
	f := d.form
	if f.focus >= len(f.fields) {
		return false
	}
	fl := f.fields[f.focus]
	k := d.com.Keys
	if fl.Example != "" && fl.text() == "" && key.Matches(km, k.AcceptSuggestion) {
		fl.setText(fl.Example)
		return true
	}
	if !fl.typed() || len(fl.suggestions) == 0 {
		return false
	}
	atEnd := fl.input.Position() == len([]rune(fl.text()))
	switch {
	case key.Matches(km, k.NextSuggestion):
		fl.sugSel = (fl.sugSel + 1) % len(fl.suggestions)
	case key.Matches(km, k.PrevSuggestion):
		fl.sugSel = (fl.sugSel - 1 + len(fl.suggestions)) % len(fl.suggestions)
	case atEnd && (key.Matches(km, k.AcceptSuggestion) || key.Matches(km, k.Complete) && fl.text() != ""):
		fl.setText(fl.suggestions[fl.sugSel])
		fl.suggestions, fl.sugLeftOut = nil, 0
	default:
		return false
	}
	return true
}

// afterFormKey schedules completion when the value changed, or completes a
// newly focused field at once.
func (d *FormDialog) afterFormKey(prevFocus int, prevValue string) tea.Cmd {
	if !completable(d.item) || d.raw {
		return nil
	}
	f := d.form
	if f.focus != prevFocus {
		return d.CompleteFocused()
	}
	if f.focus < len(f.fields) && f.fields[f.focus].typed() && f.fields[f.focus].text() != prevValue {
		d.complete = d.com.NewID()
		return d.com.Tick(completeDebounce, common.Result{Owner: d.Owner(), ID: d.complete, Msg: formCompleteTickMsg{}})
	}
	return nil
}

// focusedValue is the focused field's text ("" on a choice or the button).
func (f *Form) focusedValue() string {
	if f.focus < len(f.fields) && f.fields[f.focus].typed() {
		return f.fields[f.focus].text()
	}
	return ""
}

// promptPreviewDialog shows what a prompt returned, every message with its
// [user] or [assistant] label and embedded resources as flattened, before
// it is sent as the person's chat message. Esc drops it: nothing was sent.
type PromptPreviewDialog struct {
	dialogBase
	com  *common.Common
	item mcp.CatalogItem
	res  *mcp.PromptResult
	top  int
}

func (d *PromptPreviewDialog) ID() string { return "preview:" + d.item.Key() }

// actionSendChat sends text as the person's chat message, unparsed.
type SendChat struct{ Text string }

func (SendChat) isAction() {}

// HandleKey scrolls, sends (enter) or cancels (esc).
func (d *PromptPreviewDialog) HandleKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel):
		return Close{}
	case key.Matches(km, k.Accept), key.Matches(km, k.Submit):
		return SendChat{Text: d.res.Text}
	case key.Matches(km, k.Up):
		d.top = max(d.top-1, 0)
	case key.Matches(km, k.Down):
		d.top++
	case key.Matches(km, k.PageUp):
		d.top = max(d.top-10, 0)
	case key.Matches(km, k.PageDown):
		d.top += 10
	}
	return None{}
}

// Render draws the flattened messages, labels highlighted.
func (d *PromptPreviewDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	var body []string
	for _, l := range strings.Split(common.ExpandTabs(render.Sanitize(d.res.Text)), "\n") {
		if l == "[user]" || l == "[assistant]" {
			body = append(body, " "+st.Viewer.Label.Render(l))
			continue
		}
		for _, wl := range common.WrapWords(l, inner-2) {
			body = append(body, " "+wl)
		}
	}
	head := []string{" " + st.Muted.Render(common.Truncate(render.SanitizeLine(d.res.Note), inner-1)), ""}
	room := max(maxH-2-len(head)-2, 3)
	d.top = common.Clamp(d.top, 0, max(len(body)-room, 0))
	where := ""
	if len(body) > room {
		where = fmt.Sprintf(" · lines %d–%d of %d", d.top+1, min(d.top+room, len(body)), len(body))
	}
	foot := []string{"", " " + st.Dialog.Hint.Render(common.Truncate("enter sends it as your message · ↑/↓ scroll · esc cancels"+where, inner-1))}
	shown := body[d.top:min(len(body), d.top+room)]
	content := append(append(append([]string{}, head...), shown...), foot...)
	return frameDialog(d.com, "prompt "+render.SanitizeLine(d.item.Name)+" · preview", content, w, maxH, -1)
}

// Runtime is what the dialogs ask of the MCP side, from commands only: a
// form's completions.
type Runtime interface {
	Complete(ctx context.Context, server string, kind mcp.Kind, ref, arg, value string, filled map[string]string) (mcp.Completion, error)
}
