package dialog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// FieldKind is the kind of value a form field takes.
type FieldKind int

// The field kinds. Text, number, integer and JSON fields are typed into;
// bool and enum fields cycle through their choices.
const (
	FieldText FieldKind = iota
	FieldNumber
	FieldInteger
	FieldBool
	FieldEnum
	FieldJSON
	// FieldMulti picks any number of its Choices (a JSON array of their
	// values); see multiselect.go.
	FieldMulti
)

// unsetChoice is the first choice of an optional bool or enum (send
// nothing), and where a required one without a default starts (nothing is
// chosen for the person; choosing leaves it for good).
const unsetChoice = "(not set)"

// Field is one input of a Form.
type Field struct {
	Name     string
	Kind     FieldKind
	Required bool
	// NonEmpty rejects an empty value of a required text field (template
	// variables and prompt arguments); a tool's required string may be "".
	NonEmpty    bool
	Description string
	// Hint is shown dim after the label (type, constraints, default).
	Hint string
	// Placeholder is shown in an empty text field.
	Placeholder string
	// Initial is a typed field's starting text (a default, filled in).
	Initial string
	// Example is a JSON field's skeleton, offered while the field is
	// empty: → fills it in.
	Example string
	// Choices are a bool or enum field's options, as shown; values the
	// JSON each choice sends (nil for unsetChoice).
	Choices []string
	values  []json.RawMessage
	choice  int
	input   common.TextInput
	// area is a JSON field's multi-line editor (nil for other fields).
	area *jsonArea
	// Schema is a JSON field's own schema: an empty string it requires
	// is flagged before the form is sent.
	Schema json.RawMessage
	// warned is the text whose empty required strings were flagged: a
	// second submit of the same text sends it.
	warned *string
	err    string
	// suggestions are the server's completions of the value; sugSel the
	// chosen one; sugLeftOut counts the values the server gave that were
	// left out for their length.
	suggestions []string
	sugSel      int
	sugLeftOut  int
	// Check, when set, validates the typed value once it parses (bounds,
	// formats) and returns what is wrong, or "".
	Check func(v any) string
	// picked are a multi-select's chosen options, cursor the one under
	// the cursor.
	picked []bool
	cursor int
}

// typed reports whether the field is typed into (not a choice).
func (fl *Field) typed() bool {
	return fl.Kind != FieldBool && fl.Kind != FieldEnum && fl.Kind != FieldMulti
}

// FormResult is what a key did to a form.
type FormResult int

// The results of Form.HandleKey.
const (
	FormContinue FormResult = iota
	FormSubmitted
	FormCancelled
)

// PreviewPending is a Preview's answer while values are missing: what to
// fill in to see it, said to the person (shown once they start typing).
type PreviewPending string

func (p PreviewPending) Error() string { return string(p) }

// Form is a reusable argument form: tool arguments (from an input schema),
// template variables and prompt arguments all use it, and so will the chat
// when it fills a prompt's arguments. It does no I/O: Check and Preview
// are pure functions supplied by the owner.
type Form struct {
	com    *common.Common
	Title  string
	Note   string
	Submit string
	fields []*Field
	focus  int // len(fields) is the submit button
	// Check validates the whole form before it submits; its error is shown.
	Check func(*Form) error
	// Preview, when set, shows a live line under the fields (the expanded
	// URI of a template, say).
	Preview func(*Form) (string, error)
	err     string
	// status is a passing state shown above the button ("checking…").
	status string
	// touched: a key changed a value. Before that the preview shows only
	// what it can show, never what is still missing.
	touched bool
}

// NewForm builds a form over fields.
func NewForm(com *common.Common, title, submit string, fields []*Field) *Form {
	f := &Form{com: com, Title: title, Submit: submit, fields: fields}
	for _, fl := range fields {
		if fl.typed() {
			// Placeholders carry server text (defaults, formats).
			if fl.Kind == FieldJSON {
				fl.area = newJSONArea(com, render.SanitizeLine(fl.Placeholder))
			} else {
				fl.input = common.NewTextInput(com, "› ", render.SanitizeLine(fl.Placeholder))
			}
			if fl.Initial != "" {
				fl.setText(fl.Initial)
			}
		}
	}
	f.setFocus(0)
	return f
}

// Fields returns the form's fields.
func (f *Form) Fields() []*Field { return f.fields }

// SetValue fills a text field (tests and callers that pre-fill).
func (f *Form) SetValue(name, value string) {
	for _, fl := range f.fields {
		if fl.Name == name {
			fl.setText(value)
		}
	}
}

// text is a typed field's text.
func (fl *Field) text() string {
	if fl.area != nil {
		return fl.area.ta.Value()
	}
	return fl.input.Value()
}

// setText replaces a typed field's text, the cursor at its end.
func (fl *Field) setText(s string) {
	if fl.area != nil {
		fl.area.ta.SetValue(s)
		return
	}
	fl.input.SetValue(s)
	fl.input.CursorEnd()
}

// inputFocused reports whether the field's input has the cursor.
func (fl *Field) inputFocused() bool {
	if fl.area != nil {
		return fl.area.ta.Focused()
	}
	return fl.input.Focused()
}

// focusInput gives the field's input the cursor (on) or takes it away.
func (fl *Field) focusInput(on bool) {
	switch {
	case fl.area != nil && on:
		fl.area.ta.Focus()
	case fl.area != nil:
		fl.area.ta.Blur()
	case on:
		fl.input.Focus()
	default:
		fl.input.Blur()
	}
}

// updateInput feeds a key to the field's input.
func (fl *Field) updateInput(msg tea.Msg) tea.Cmd {
	if fl.area != nil {
		var cmd tea.Cmd
		fl.area.ta, cmd = fl.area.ta.Update(msg)
		return cmd
	}
	return fl.input.Update(msg)
}

// TextInputFocused reports whether keys go into a text field.
func (f *Form) TextInputFocused() bool {
	return f.focus < len(f.fields) && f.fields[f.focus].typed() && f.fields[f.focus].inputFocused()
}

func (f *Form) setFocus(i int) {
	if n := len(f.fields) + 1; i < 0 {
		i = n - 1
	} else if i >= n {
		i = 0
	}
	for j, fl := range f.fields {
		if fl.typed() {
			fl.focusInput(j == i)
		}
	}
	f.focus = i
}

// HandleKey handles one key. Tab and arrows move between fields, space
// and left/right change a choice, enter moves on (and submits from the
// last field or the button), ctrl+s submits, esc cancels.
func (f *Form) HandleKey(msg tea.KeyMsg) (FormResult, tea.Cmd) {
	k := f.com.Keys
	var cur *Field
	if f.focus < len(f.fields) {
		cur = f.fields[f.focus]
	}
	choice := cur != nil && (cur.Kind == FieldBool || cur.Kind == FieldEnum)
	multi := cur != nil && cur.Kind == FieldMulti
	switch {
	case multi && cur.multiKey(msg, k):
		f.err = ""
	case key.Matches(msg, k.Cancel):
		return FormCancelled, nil
	case key.Matches(msg, k.Submit):
		return f.submit(), nil
	case key.Matches(msg, k.Accept):
		if cur == nil || f.focus == len(f.fields)-1 {
			return f.submit(), nil
		}
		f.setFocus(f.focus + 1)
	case cur != nil && cur.area != nil && !cur.area.leaves(msg):
		cur.updateInput(msg) // up/down within the JSON's lines
	case key.Matches(msg, k.NextField):
		f.setFocus(f.focus + 1)
	case key.Matches(msg, k.PrevField):
		f.setFocus(f.focus - 1)
	case choice && key.Matches(msg, k.Toggle):
		step := 1
		if msg.Type == tea.KeyLeft {
			step = -1
		}
		cur.step(step)
		cur.err, f.touched = "", true
	case choice && msg.Type == tea.KeyBackspace || choice && msg.Type == tea.KeyDelete:
		cur.clear()
		f.touched = true
	case cur != nil && !choice && !multi:
		cur.err = ""
		f.err = ""
		before := cur.text()
		cmd := cur.updateInput(msg)
		f.touched = f.touched || cur.text() != before
		return FormContinue, cmd
	}
	return FormContinue, nil
}

// unsettable reports whether the field's first choice is "not set": an
// optional field (sends nothing) or a required one still unmade.
func (fl *Field) unsettable() bool { return len(fl.values) > 0 && fl.values[0] == nil }

// step moves a choice by one. A yes/no toggles between its two answers;
// "not set" is passed through only on an optional field (a required one
// leaves it once chosen).
func (fl *Field) step(by int) {
	first := 0
	if fl.unsettable() && (fl.Required || fl.Kind == FieldBool) {
		first = 1
	}
	n := len(fl.Choices) - first
	if n <= 0 {
		return
	}
	if fl.choice < first {
		fl.choice = first // unset: the first answer
		return
	}
	fl.choice = first + (fl.choice-first+by+n)%n
}

// clear returns an optional choice to "not set".
func (fl *Field) clear() {
	if fl.unsettable() && !fl.Required {
		fl.choice = 0
		fl.err = ""
	}
}

// submit validates every field and the whole form.
func (f *Form) submit() FormResult {
	f.err = ""
	if _, ok := f.values(); !ok {
		return FormContinue
	}
	if f.Check != nil {
		if err := f.Check(f); err != nil {
			f.err = render.Sanitize(err.Error())
			return FormContinue
		}
	}
	if !f.emptiesConfirmed() {
		return FormContinue
	}
	return FormSubmitted
}

// emptiesConfirmed flags, once per text, the empty strings a JSON field
// holds where its schema requires a value (a skeleton's leftovers), and
// reports whether every field passed: none flagged, or the person
// submitted the same text again.
func (f *Form) emptiesConfirmed() bool {
	for i, fl := range f.fields {
		if fl.Kind != FieldJSON || len(fl.Schema) == 0 {
			continue
		}
		v, present, _ := fl.value()
		if !present {
			continue
		}
		text := fl.text()
		paths := emptyRequired(fl.Schema, v, fl.Required, fl.Name)
		if len(paths) == 0 || fl.warned != nil && *fl.warned == text {
			continue
		}
		fl.err, fl.warned = emptyWarning(paths), &text
		f.setFocus(i)
		return false
	}
	return true
}

// Values returns the typed values (numbers as json.Number, booleans,
// parsed JSON), leaving out optional fields that are empty or unset. An
// invalid field is an error naming it.
func (f *Form) Values() (map[string]any, error) {
	out, ok := f.values()
	if !ok {
		for _, fl := range f.fields {
			if fl.err != "" {
				return nil, fmt.Errorf("%s: %s", fl.Name, fl.err)
			}
		}
	}
	return out, nil
}

func (f *Form) values() (map[string]any, bool) {
	out := map[string]any{}
	ok := true
	for i, fl := range f.fields {
		v, present, err := fl.value()
		if err != "" {
			fl.err = err
			if ok {
				f.setFocus(i)
			}
			ok = false
			continue
		}
		if present {
			out[fl.Name] = v
		}
	}
	return out, ok
}

// Strings returns the text of every filled field (for template variables
// and prompt arguments, which are strings).
func (f *Form) Strings() map[string]string {
	out := map[string]string{}
	for _, fl := range f.fields {
		if fl.Kind == FieldMulti {
			if s := strings.Join(fl.pickedChoices(), ","); s != "" {
				out[fl.Name] = s
			}
			continue
		}
		if fl.Kind == FieldBool || fl.Kind == FieldEnum {
			if v := fl.values[fl.choice]; v != nil {
				var s string
				if json.Unmarshal(v, &s) != nil {
					s = string(v)
				}
				out[fl.Name] = s
			}
			continue
		}
		if s := fl.text(); s != "" {
			out[fl.Name] = s
		}
	}
	return out
}

// value is the field's typed value, whether it is sent, and what is wrong.
func (fl *Field) value() (any, bool, string) {
	v, present, err := fl.parse()
	if err == "" && present && fl.Check != nil {
		err = fl.Check(v)
	}
	if err != "" {
		return nil, false, err
	}
	return v, present, ""
}

// parse is the field's typed value before Check.
func (fl *Field) parse() (any, bool, string) {
	if fl.Kind == FieldMulti {
		return fl.multiValue()
	}
	if fl.Kind == FieldBool || fl.Kind == FieldEnum {
		raw := fl.values[fl.choice]
		if raw == nil {
			if fl.Required {
				return nil, false, "choose a value"
			}
			return nil, false, ""
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&v)
		return v, true, ""
	}
	s := fl.text()
	if strings.TrimSpace(s) == "" {
		if fl.Required && (fl.Kind != FieldText || fl.NonEmpty) {
			return nil, false, "required: fill it in"
		}
		if fl.Required {
			return s, true, ""
		}
		return nil, false, ""
	}
	switch fl.Kind {
	case FieldNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return nil, false, fmt.Sprintf("%q is not a number: write it like 2 or 2.5", s)
		}
		return json.Number(strings.TrimSpace(s)), true, ""
	case FieldInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not an integer: write it like 3", s)
		}
		return n, true, ""
	case FieldJSON:
		var v any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, false, fmt.Sprintf("not valid JSON (%v): write e.g. [\"a\", \"b\"] or {\"k\": 1}", err)
		}
		return v, true, ""
	}
	return s, true, ""
}

// Render draws the form's content at width w.
func (f *Form) Render(w int) []string {
	st := f.com.Styles
	var out []string
	add := func(s string) { out = append(out, common.Fit(s, w)) }
	if f.Note != "" {
		for _, l := range common.WrapWords(f.Note, w-1) {
			add(" " + st.Muted.Render(l))
		}
		add("")
	}
	if len(f.fields) == 0 {
		add(" " + st.Muted.Render("No arguments."))
	}
	for i, fl := range f.fields {
		focused := i == f.focus
		label := st.Form.Label
		if focused {
			label = st.Form.LabelFocused
		}
		head := " " + label.Render(render.SanitizeLine(fl.Name))
		if fl.Required {
			head += st.Form.Required.Render(" *")
		}
		if fl.Hint != "" {
			head += "  " + st.Form.Hint.Render(fl.Hint)
		}
		add(common.Truncate(head, w))
		switch fl.Kind {
		case FieldBool, FieldEnum:
			add(fl.renderChoice(st, focused))
		case FieldMulti:
			for _, l := range fl.renderMulti(st, focused, w-3) {
				add("   " + l)
			}
		case FieldJSON:
			for _, l := range fl.area.view(w-4, focused) {
				add("  " + l)
			}
		default:
			fl.input.Width = max(w-6, 4)
			add("  " + fl.input.View())
		}
		if focused && fl.area != nil && fl.text() != "" {
			add(common.Truncate("   "+st.Form.Hint.Render("↳ "+f.com.Keys.Newline.Help().Key+" new line · "+f.com.Keys.Editor.Help().Key+" opens $EDITOR"), w))
		}
		if focused && fl.Example != "" && fl.text() == "" {
			// The key first: a long example is cut at the edge, not the hint.
			add(common.Truncate("   "+st.Form.Hint.Render("↳ → fills in ")+render.SanitizeLine(fl.Example), w))
		}
		if focused && len(fl.suggestions) > 0 {
			var parts []string
			for j, sg := range fl.suggestions {
				if j == fl.sugSel {
					parts = append(parts, st.Form.LabelFocused.Render("["+sg+"]"))
				} else {
					parts = append(parts, sg)
				}
			}
			accept := "tab/→ accepts"
			if fl.text() == "" {
				accept = "→ accepts" // tab moves on from an empty field
			}
			offers := "   " + st.Form.Hint.Render("↳ ") + strings.Join(parts, " ")
			keys := st.Form.Hint.Render(accept + " · ctrl+n/p choose")
			if common.WidthOf(offers)+2+common.WidthOf(keys) <= w {
				add(offers + "  " + keys)
			} else { // the keys on their own line, never cut
				add(common.Truncate(offers, w))
				add("     " + keys)
			}
		}
		if focused && fl.sugLeftOut > 0 {
			add(common.Truncate("   "+st.Form.Hint.Render("↳ "+common.LeftOutText(fl.sugLeftOut)), w))
		}
		if fl.err != "" {
			for _, l := range common.WrapWords("✗ "+render.Sanitize(fl.err), w-3) {
				add("   " + st.Form.Error.Render(l))
			}
		} else if fl.Description != "" && focused {
			for _, l := range common.WrapWords(fl.Description, w-3) {
				add("   " + st.Form.Hint.Render(l))
			}
		}
	}
	if f.Preview != nil {
		p, err := f.Preview(f)
		var pending PreviewPending
		switch {
		case err == nil:
			add("")
			add(" " + st.Form.Preview.Render(common.Truncate("→ "+render.SanitizeLine(p), w-1)))
		case errors.As(err, &pending) && !f.touched:
			// Nothing typed yet: nothing is wrong yet either.
		case errors.As(err, &pending):
			add("")
			for _, l := range common.WrapWords(render.SanitizeLine(err.Error()), w-1) {
				add(" " + st.Form.Hint.Render(l))
			}
		default:
			add("")
			for _, l := range common.WrapWords("→ "+render.SanitizeLine(err.Error()), w-1) {
				add(" " + st.Form.Error.Render(l))
			}
		}
	}
	if f.status != "" {
		add("")
		add(" " + st.Muted.Render(common.Truncate(f.status, w-1)))
	}
	if f.err != "" {
		add("")
		for _, l := range common.WrapWords("✗ "+f.err, w-1) {
			add(" " + st.Form.Error.Render(l))
		}
	}
	add("")
	btn := st.Form.Button.Render("[ " + f.Submit + " ]")
	if f.focus == len(f.fields) {
		btn = st.Form.ButtonFocused.Render("[ " + f.Submit + " ]")
	}
	add(" " + btn + "  " + st.Dialog.Hint.Render("enter next · ctrl+s "+strings.ToLower(f.Submit)+" · esc cancel"))
	return out
}

// fieldKeys are the keys that apply to the focused field, for the help
// line: a choice's toggle, a checklist's, a JSON field's editor.
func (f *Form) fieldKeys() []key.Binding {
	if f.focus >= len(f.fields) {
		return nil
	}
	k, fl := f.com.Keys, f.fields[f.focus]
	switch {
	case fl.Kind == FieldMulti:
		return []key.Binding{key.NewBinding(key.WithKeys(" "), key.WithHelp("space/↑/↓", "pick · move"))}
	case !fl.typed():
		return []key.Binding{k.Toggle}
	case fl.area != nil:
		return []key.Binding{k.Editor} // the new line key shows under the field
	}
	return nil // a completion's keys show under the field
}

// renderChoice draws a bool or enum field's value, "not set" told apart
// from an answer, and, when focused, the keys that change it.
func (fl *Field) renderChoice(st *theme.Styles, focused bool) string {
	c := "‹ " + fl.Choices[fl.choice] + " ›"
	unset := fl.values[fl.choice] == nil
	if unset {
		c = "‹ not set ›"
		if fl.Required {
			c = "‹ choose ›"
		}
	}
	if !focused {
		if unset {
			return "   " + st.Muted.Render(c)
		}
		return "   " + c
	}
	var keys string
	switch {
	case fl.Kind == FieldBool && unset:
		keys = "space sets it"
	case fl.Kind == FieldBool:
		keys = "space toggles"
	default:
		keys = "space/←/→ change"
	}
	if unset && !fl.Required {
		keys += " · optional: sends nothing"
	} else if !unset && fl.unsettable() && !fl.Required {
		keys += " · backspace: not set"
	}
	return "   " + st.Form.LabelFocused.Render(c) + st.Form.Hint.Render("  "+keys)
}

// FocusLine is the index of the focused field's first line in Render's
// output, for dialogs that scroll a tall form.
func (f *Form) FocusLine(w int) int {
	lines := 0
	if f.Note != "" {
		lines += len(common.WrapWords(f.Note, w-1)) + 1
	}
	for i, fl := range f.fields {
		if i == f.focus {
			return lines
		}
		switch {
		case fl.Kind == FieldMulti:
			lines += 1 + len(fl.Choices)
		case fl.area != nil:
			lines += 1 + common.Clamp(fl.area.rows(), 1, jsonAreaRowsBlurred)
		default:
			lines += 2
		}
		if fl.err != "" {
			lines += len(common.WrapWords("✗ "+render.Sanitize(fl.err), w-3))
		}
	}
	return lines
}

// ToolFields builds the fields of a tool's input schema: strings, numbers,
// integers, booleans and enums get their own inputs, anything else (arrays,
// objects, unions) is typed as JSON. Required fields come first
// (requiredFirst): what must be filled is filled first (servers written in
// Go list their properties by name, so "text" would otherwise follow an
// optional "max_tokens").
//
// A schema past MaxFormFields builds nothing (nil): NewToolForm checks it
// first (CheckFormFields) and offers one JSON object instead.
func ToolFields(schema json.RawMessage) []*Field {
	if CheckFormFields("", schema) != nil {
		return nil
	}
	var out []*Field
	for _, p := range mcp.RequiredFirst(schema, mcp.SchemaProps(schema)) {
		fl := &Field{Name: p.Name, Required: p.Required, Description: render.Sanitize(p.Description)}
		var hint []string
		switch {
		case len(p.Enum) > 0:
			fl.Kind = FieldEnum
			if !p.Required {
				fl.Choices, fl.values = []string{unsetChoice}, []json.RawMessage{nil}
			}
			keep, note := capChoices(len(p.Enum))
			for i, e := range p.Enum[:keep] {
				fl.Choices = append(fl.Choices, render.SanitizeLine(e))
				fl.values = append(fl.values, p.EnumRaw[i])
			}
			if note != "" {
				hint = append(hint, note)
			}
		case p.Type == "boolean":
			fl.Kind = FieldBool
			if !p.Required {
				fl.Choices, fl.values = []string{unsetChoice}, []json.RawMessage{nil}
			}
			fl.Choices = append(fl.Choices, "true", "false")
			fl.values = append(fl.values, json.RawMessage("true"), json.RawMessage("false"))
		case p.Type == "number":
			fl.Kind = FieldNumber
			hint = append(hint, "number")
		case p.Type == "integer":
			fl.Kind = FieldInteger
			hint = append(hint, "integer")
		case p.Type == "string":
			fl.Kind = FieldText
		default:
			fl.Kind = FieldJSON
			t := p.Type
			if t == "" {
				t = "any"
			}
			hint = append(hint, t+" as JSON")
			fl.Example = mcp.JSONExample(p.Raw)
			fl.Schema = p.Raw
		}
		if p.Constraints != "" {
			hint = append(hint, p.Constraints)
		}
		if p.Default != "" {
			hint = append(hint, "default "+p.Default)
			fl.Placeholder = "empty: the server's default " + p.Default
		} else if !p.Required {
			fl.Placeholder = "optional"
		}
		fl.Hint = render.SanitizeLine(strings.Join(hint, " · "))
		out = append(out, fl)
	}
	return out
}

// TemplateFields builds one required text field per template variable.
func TemplateFields(vars []string) []*Field {
	out := make([]*Field, len(vars))
	for i, v := range vars {
		out[i] = &Field{Name: v, Kind: FieldText, Required: true, NonEmpty: true, Placeholder: "value of {" + v + "}"}
	}
	return out
}

// PromptFields builds one text field per prompt argument, marking the
// required ones.
//
// More than MaxFormFields arguments build nothing (nil): NewPromptForm
// checks first and offers one JSON object instead.
func PromptFields(args []mcp.PromptArgument) []*Field {
	if len(args) > MaxFormFields {
		return nil
	}
	out := make([]*Field, len(args))
	for i, a := range args {
		ph := "optional: leave empty to skip"
		if a.Required {
			ph = "required"
		}
		out[i] = &Field{Name: a.Name, Kind: FieldText, Required: a.Required, NonEmpty: a.Required, Description: render.Sanitize(a.Description), Placeholder: ph}
	}
	return out
}

// Suggestions are the server's completions shown under the field.
func (fl *Field) Suggestions() []string { return fl.suggestions }
