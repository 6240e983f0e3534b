package dialog

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/net/idna"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// ElicitFields builds the form of an elicitation's requested schema: text
// (with email, uri, date and date-time formats checked), numbers and
// integers (bounds checked), booleans, single choices (enum with
// enumNames, or oneOf/anyOf of {const, title}: titles shown, values sent)
// and multi-selects (an array of items.enum or items.anyOf). Defaults are
// filled in.
//
// mcp-go decodes the request's schema into a map, so the order the server
// wrote its properties in is gone by the time howl sees it; the required
// ones come first (requiredFirst), then the rest by name.
//
// A schema past MaxFormFields builds nothing (nil): the caller declines
// it first (CheckFormFields).
func ElicitFields(schema json.RawMessage) []*Field {
	if CheckFormFields("", schema) != nil {
		return nil
	}
	props := mcp.RequiredFirst(schema, mcp.SchemaProps(schema))
	out := make([]*Field, 0, len(props))
	for _, p := range props {
		out = append(out, elicitField(p))
	}
	return out
}

// elicitField is the field of one requested property.
func elicitField(p mcp.SchemaProp) *Field {
	desc := p.Description
	if desc == p.Title {
		desc = "" // the title is in the hint
	}
	var fl *Field
	var hint []string
	if p.Title != "" {
		hint = append(hint, p.Title)
	}
	switch {
	case strings.HasPrefix(p.Type, "array") && len(p.ItemOptions) > 0:
		fl = multiField(p)
		hint = append(hint, "pick any")
		if _, note := capChoices(len(p.ItemOptions)); note != "" {
			hint = append(hint, note)
		}
		if c := itemsConstraint(p.MinItems, p.MaxItems); c != "" {
			hint = append(hint, c)
		}
	case len(p.Options) > 0:
		keep, note := capChoices(len(p.Options))
		fl = choiceField(p, p.Options[:keep])
		if note != "" {
			hint = append(hint, note)
		}
	case p.Type == "boolean":
		fl = choiceField(p, []mcp.SchemaOption{{Value: json.RawMessage("true"), Title: "yes"}, {Value: json.RawMessage("false"), Title: "no"}})
	case p.Type == "number" || p.Type == "integer":
		fl = &Field{Kind: FieldNumber, Check: func(v any) string { return mcp.CheckValue(p, v) }}
		if p.Type == "integer" {
			fl.Kind = FieldInteger
		}
		hint = append(hint, p.Type)
		if p.Constraints != "" {
			hint = append(hint, p.Constraints)
		}
		fl.Initial = mcp.JSONText(p.DefaultRaw)
	default:
		fl = &Field{Kind: FieldText, Check: func(v any) string { return mcp.CheckValue(p, v) }}
		if p.Format != "" {
			hint = append(hint, p.Format)
			fl.Placeholder = "e.g. " + mcp.FormatExample(p.Format)
		}
		if p.Constraints != "" {
			hint = append(hint, p.Constraints)
		}
		fl.Initial = mcp.JSONText(p.DefaultRaw)
		if p.MinLength != nil && *p.MinLength > 0 {
			fl.NonEmpty = true
		}
	}
	fl.Name, fl.Required = p.Name, p.Required
	fl.Description = render.Sanitize(desc)
	fl.Hint = render.SanitizeLine(strings.Join(hint, " · "))
	if fl.Placeholder == "" && !p.Required {
		fl.Placeholder = "optional"
	}
	return fl
}

// choiceField is a single choice among opts, the default chosen.
func choiceField(p mcp.SchemaProp, opts []mcp.SchemaOption) *Field {
	fl := &Field{Kind: FieldEnum}
	if p.Type == "boolean" {
		fl.Kind = FieldBool
	}
	// Nothing is chosen for the person: without a default, even a
	// required choice starts unset (and must be made).
	if !p.Required || p.DefaultRaw == nil {
		fl.Choices, fl.values = []string{unsetChoice}, []json.RawMessage{nil}
	}
	for _, o := range opts {
		if sameJSON(o.Value, p.DefaultRaw) {
			fl.choice = len(fl.Choices)
		}
		fl.Choices = append(fl.Choices, render.SanitizeLine(o.Title))
		fl.values = append(fl.values, o.Value)
	}
	return fl
}

// multiField is a multi-select over an array's item choices, the
// default's items picked.
func multiField(p mcp.SchemaProp) *Field {
	var defaults []json.RawMessage
	_ = json.Unmarshal(p.DefaultRaw, &defaults)
	keep, _ := capChoices(len(p.ItemOptions))
	choices := make([]string, keep)
	values := make([]json.RawMessage, keep)
	picked := make([]bool, keep)
	for i, o := range p.ItemOptions[:keep] {
		choices[i], values[i] = render.SanitizeLine(o.Title), o.Value
		for _, d := range defaults {
			picked[i] = picked[i] || sameJSON(o.Value, d)
		}
	}
	minItems, maxItems := -1, -1
	if p.MinItems != nil {
		minItems = *p.MinItems
	}
	if p.MaxItems != nil {
		maxItems = *p.MaxItems
	}
	return NewMultiField(p.Name, choices, values, picked, minItems, maxItems)
}

// itemsConstraint summarises minItems and maxItems.
func itemsConstraint(minItems, maxItems *int) string {
	switch {
	case minItems != nil && maxItems != nil:
		return fmt.Sprintf("%d–%d of them", *minItems, *maxItems)
	case minItems != nil:
		return fmt.Sprintf("at least %d", *minItems)
	case maxItems != nil:
		return fmt.Sprintf("at most %d", *maxItems)
	}
	return ""
}

// sameJSON reports whether two JSON values are equal once compacted.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// elicitDialog is a server's request for input: a form built from the
// requested schema, or a URL to visit. It opens on its own, so it ignores
// keys for PermissionGrace after it opens.
type ElicitDialog struct {
	QuestionBase
	form *Form // nil in URL mode
	// err is why the URL could not be opened.
	err string
	// opening: the browser is being started (enter again does nothing).
	opening bool
}

// newElicitDialog builds the dialog of an elicitation question.
func NewElicitDialog(base QuestionBase) *ElicitDialog {
	d := &ElicitDialog{QuestionBase: base}
	if q := base.q; q.Elicit.Mode != "url" {
		d.form = NewForm(base.com, "", "Accept", ElicitFields(q.Elicit.Schema))
		d.form.Note = render.Sanitize(shownText(q.Elicit.Message, ""))
	}
	return d
}

// ID is "elicit" for a form and "elicit-url" for a URL request.
func (d *ElicitDialog) ID() string {
	if d.form == nil {
		return "elicit-url"
	}
	return "elicit"
}

// answer is the action replying action (with content when accepting).
func (d *ElicitDialog) answer(action string, content map[string]any) Action {
	return AnswerQuestion{Q: d.q, Answer: QuestionAnswer{Elicit: mcp.ElicitResponse{Action: action, Content: content}}}
}

// HandleKey fills the form; ctrl+s accepts, ctrl+d declines, esc cancels.
// In URL mode enter (or o) opens the URL, d declines and esc cancels.
// Once offered, ctrl+x declines everything from the server.
func (d *ElicitDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	if a, ok := d.declineAllKey(km); ok {
		return a
	}
	if d.form == nil {
		return d.handleURLKey(km)
	}
	if key.Matches(km, d.com.Keys.Elicit.Decline) {
		return d.answer(mcp.ElicitDecline, nil)
	}
	res, cmd := d.form.HandleKey(km)
	switch res {
	case FormCancelled:
		return d.answer(mcp.ElicitCancel, nil)
	case FormSubmitted:
		content, _ := d.form.Values()
		return d.answer(mcp.ElicitAccept, content)
	}
	if cmd != nil {
		return Cmd{cmd}
	}
	return None{}
}

// ShortHelp is a form's keys for the focused field, and the answers.
func (d *ElicitDialog) ShortHelp() []key.Binding {
	k := d.com.Keys
	if d.form == nil {
		return []key.Binding{k.Elicit.Open, k.Elicit.DeclineURL, k.Cancel}
	}
	return append([]key.Binding{k.NextField, k.Elicit.Accept, k.Elicit.Decline, k.Cancel}, d.form.fieldKeys()...)
}

// handleURLKey answers a URL request.
func (d *ElicitDialog) handleURLKey(km tea.KeyMsg) Action {
	switch {
	case key.Matches(km, d.com.Keys.Cancel):
		return d.answer(mcp.ElicitCancel, nil)
	case key.Matches(km, d.com.Keys.Elicit.DeclineURL):
		return d.answer(mcp.ElicitDecline, nil)
	case key.Matches(km, d.com.Keys.Elicit.Open) && urlProblem(d.q.Elicit.URL) == "" && !d.opening:
		d.opening, d.err = true, ""
		return OpenURL{Q: d.q, URL: d.q.Elicit.URL}
	}
	return None{}
}

// urlProblem says why howl will not open u ("" when it will): the reason
// mcp.CheckBrowserURL gives, the one test every opened URL passes.
func urlProblem(u string) string {
	var be *mcp.BrowserURLError
	if err := mcp.CheckBrowserURL(u); errors.As(err, &be) {
		return be.Reason
	} else if err != nil {
		return err.Error()
	}
	return ""
}

// Render draws the request: the server, its message, then the form or the URL.
func (d *ElicitDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 76)
	inner := w - 2
	server := render.SanitizeLine(d.q.Server)
	content := []string{"", " " + st.Strong.Render(common.Truncate("Server "+server+" asks:", inner-2))}
	if d.form == nil {
		content = append(append(content, d.urlLines(inner)...), d.offerLines(inner)...)
		return frameDialog(d.com, "Question from "+server, content, w, maxH, -1)
	}
	lines := d.form.Render(inner)
	// The form's own button line gives way to the three answers.
	btn := st.Form.Button.Render("[ Accept ]")
	if d.form.focus == len(d.form.fields) {
		btn = st.Form.ButtonFocused.Render("[ Accept ]")
	}
	lines[len(lines)-1] = common.Fit(" "+btn+"  "+st.Dialog.Hint.Render("ctrl+s accept · ctrl+d decline · esc cancel"), inner)
	focus := d.form.FocusLine(inner)
	if focus >= 0 {
		focus += len(content)
	}
	return frameDialog(d.com, "Question from "+server, append(append(content, lines...), d.offerLines(inner)...), w, maxH, focus)
}

// urlLines are a URL request's body.
func (d *ElicitDialog) urlLines(inner int) []string {
	st := d.com.Styles
	var out []string
	for _, l := range common.WrapWords(render.Sanitize(shownText(d.q.Elicit.Message, "")), inner-2) {
		out = append(out, " "+st.Muted.Render(l))
	}
	out = append(out, "", " "+st.Detail.Label.Render("it wants you to visit"))
	u := render.SanitizeLine(d.q.Elicit.URL)
	for _, l := range common.WrapWords(u, inner-4) {
		out = append(out, "   "+st.Strong.Render(l))
	}
	if p, err := url.Parse(d.q.Elicit.URL); err == nil && p.Host != "" {
		out = append(out, " "+st.Detail.Label.Render(common.Fit("host", 8))+render.SanitizeLine(asciiHost(p.Host)))
	}
	out = append(out, "")
	problem := urlProblem(d.q.Elicit.URL)
	if problem != "" {
		for _, l := range common.WrapWords("✗ howl will not open it: "+problem+". Decline, or copy it by hand.", inner-2) {
			out = append(out, " "+st.Form.Error.Render(l))
		}
	}
	if d.err != "" {
		for _, l := range common.WrapWords("✗ "+d.err, inner-2) {
			out = append(out, " "+st.Form.Error.Render(l))
		}
	}
	hint := "enter/o open it in the browser (then answers accept) · d decline · esc cancel"
	if problem != "" {
		hint = "d decline · esc cancel"
	}
	for _, l := range common.WrapWords(hint, inner-2) {
		out = append(out, " "+st.Dialog.Hint.Render(l))
	}
	return out
}

// actionOpenURL opens a URL request's URL in the browser.
type OpenURL struct {
	Q   *Question
	URL string
}

func (OpenURL) isAction() {}

// asciiHost is host as the browser resolves it: a name with letters
// outside ASCII (Cyrillic аррӏе.com looks like apple.com) in its
// punycode form, saying how it is written, so a look-alike shows as the
// different name it is.
func asciiHost(host string) string {
	a, err := idna.Lookup.ToASCII(host)
	if err != nil || a == host {
		return host
	}
	return a + " (written " + host + ")"
}
