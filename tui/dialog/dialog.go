package dialog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// Dialog is an overlay on the dialog stack. The top dialog gets every key
// first; the answers to its requests reach it wherever it is in the stack
// (its Owner, given when it is pushed). It answers with an Action for the
// root to apply, and never changes anything outside itself.
type Dialog interface {
	// ID names the dialog, so the root can tell what is open.
	ID() string
	// Owner is the owner its requests' results are addressed to.
	Owner() common.Owner
	// HandleKey handles a key while the dialog is on top.
	HandleKey(km tea.KeyMsg) Action
	// HandleResult handles the answer to one of its requests.
	HandleResult(r common.Result) Action
	// Render draws the framed dialog within maxW x maxH cells.
	Render(maxW, maxH int) []string
	setOwner(o common.Owner)
}

// KeyHelper is a dialog whose keys depend on what it can do: the help
// line shows its ShortHelp instead of every answer of its kind.
type KeyHelper interface {
	ShortHelp() []key.Binding
}

// dialogBase gives a dialog its owner; a dialog that makes no requests
// drops results.
type dialogBase struct{ owner common.Owner }

func (b *dialogBase) Owner() common.Owner             { return b.owner }
func (b *dialogBase) setOwner(o common.Owner)         { b.owner = o }
func (*dialogBase) HandleResult(common.Result) Action { return None{} }

// Action is what a dialog asks the root to do.
type Action interface{ isAction() }

type (
	// None: nothing to do.
	None struct{}
	// Close closes the dialog that asked.
	Close struct{}
	// Cmd runs a command.
	Cmd struct{ Cmd tea.Cmd }
	// CallTool calls a tool with checked arguments; Unchecked says why
	// howl could not check them, when it could not.
	CallTool struct {
		Item      mcp.CatalogItem
		Args      map[string]any
		Unchecked string
	}
	// ReadTemplate reads a template with its variables.
	ReadTemplate struct {
		Item   mcp.CatalogItem
		Values map[string]string
	}
	// GetPrompt gets a prompt with its arguments.
	GetPrompt struct {
		Item   mcp.CatalogItem
		Values map[string]string
	}
	// PreviewPrompt gets a prompt for the chat, to preview it.
	PreviewPrompt struct {
		Item   mcp.CatalogItem
		Values map[string]string
	}
	// Reconnect restarts a server.
	Reconnect struct{ Server string }
	// SwitchServer switches a server off or on for the model.
	SwitchServer struct{ Server string }
	// OpenAttachment opens the chosen one (Index) of the picker's choices.
	OpenAttachment struct{ Index int }
)

func (None) isAction()           {}
func (Close) isAction()          {}
func (Cmd) isAction()            {}
func (CallTool) isAction()       {}
func (ReadTemplate) isAction()   {}
func (GetPrompt) isAction()      {}
func (Reconnect) isAction()      {}
func (SwitchServer) isAction()   {}
func (PreviewPrompt) isAction()  {}
func (OpenAttachment) isAction() {}

// dialogStack holds the open dialogs, the top last.
type Stack struct {
	com   *common.Common
	items []Dialog
}

// Push opens d on top, with an owner of its own from the one id source:
// a late answer to a closed dialog never reaches the next one.
func (s *Stack) Push(d Dialog) {
	d.setOwner(common.DialogOwner(s.com.NewID()))
	s.items = append(s.items, d)
	s.revealed(nil)
}

// revealer is a dialog that ignores keys for PermissionGrace once it is
// seen: Reveal starts that time again.
type revealer interface{ Reveal(now time.Time) }

// grace is when a dialog that opens on its own (a permission, a question,
// trust) was last seen: keys in the PermissionGrace after that are
// ignored, since the person may be typing. Embedded, it makes the dialog
// a revealer.
type grace struct{ seen time.Time }

// inGrace reports whether the dialog was seen too recently to take keys.
func (g *grace) inGrace(now time.Time) bool { return now.Sub(g.seen) < common.PermissionGrace }

// Reveal starts the grace again: the dialog is seen from now (Stack).
func (g *grace) Reveal(now time.Time) { g.seen = now }

// revealed starts the grace of the dialog on top when it is not was: a
// dialog uncovered when the one above it closes (an app's message
// answered with y over its permission request) has been out of sight, so
// a second y or a held key must not answer it.
func (s *Stack) revealed(was Dialog) {
	if top := s.Top(); top != nil && top != was {
		if r, ok := top.(revealer); ok {
			r.Reveal(s.com.Now())
		}
	}
}

// Remove closes d wherever it is in the stack.
func (s *Stack) Remove(d Dialog) {
	was := s.Top()
	s.items = slices.DeleteFunc(s.items, func(x Dialog) bool { return x == d })
	s.revealed(was)
}

// ByOwner is the open dialog owner names, or nil when it closed.
func (s *Stack) ByOwner(o common.Owner) Dialog {
	for _, d := range s.items {
		if d.Owner() == o {
			return d
		}
	}
	return nil
}

func (s *Stack) Pop() {
	if len(s.items) > 0 {
		s.items = s.items[:len(s.items)-1]
		s.revealed(nil)
	}
}

// Top is the dialog on top, or nil.
func (s *Stack) Top() Dialog {
	if len(s.items) == 0 {
		return nil
	}
	return s.items[len(s.items)-1]
}

func (s *Stack) Len() int { return len(s.items) }

// Has reports whether a dialog with id is open.
func (s *Stack) Has(id string) bool {
	for _, d := range s.items {
		if d.ID() == id {
			return true
		}
	}
	return false
}

// frameDialog draws a dialog box of width w around content, at most maxH
// tall, keeping line focus (when >= 0) in view.
func frameDialog(com *common.Common, title string, content []string, w, maxH, focus int) []string {
	st := com.Styles
	h := min(len(content)+2, maxH)
	inner := h - 2
	if focus >= 0 && len(content) > inner {
		start := common.Clamp(focus-inner/3, 0, len(content)-inner)
		content = content[start : start+inner]
	}
	bs := common.BoxStyle{Focused: true, Border: st.Dialog.Frame, BorderFocused: st.Dialog.Frame, Title: st.Dialog.Title, TitleFocused: st.Dialog.Title}
	return common.Box(bs, title, content, w, h)
}

// dialogWidth is a dialog's width on a screen maxW wide.
func dialogWidth(maxW, want int) int { return common.Clamp(min(want, maxW-4), 20, max(maxW, 20)) }

// formDialog shows a Form for one catalog item and turns its submission
// into the action that runs it.
type FormDialog struct {
	dialogBase
	com  *common.Common
	item mcp.CatalogItem
	form *Form
	// toChat: a `.prompt` form; its result is previewed, then chatted.
	toChat bool
	// complete is the completion request (or typing pause) awaited;
	// older answers are dropped.
	complete common.RequestID
	// mention: a template chosen after @ in the chat input; submitting
	// inserts its expanded URI after mentionPrefix instead of reading it.
	mention       bool
	mentionPrefix string
	// check is a tool form's argument check awaited (0: none; any key
	// makes it stale).
	check common.RequestID
	// editing is the JSON field open in $EDITOR (nil: none).
	editing *Field
	// raw: the item has more than MaxFormFields arguments, so the form
	// is one JSON object of them (rawArgumentsFields).
	raw bool
}

func (d *FormDialog) ID() string { return "form:" + d.item.Key() }

// HandleResult takes the answers to the form's requests: its argument
// check, and the server's completions of a field (and the pause in typing
// that asks for them).
func (d *FormDialog) HandleResult(r common.Result) Action {
	if msg, ok := r.Msg.(formCheckedMsg); ok {
		return d.handleChecked(r.ID, msg)
	}
	if a, ok := d.handleEditorResult(r.Msg); ok {
		return a
	}
	if cmd := d.handleCompletionMsg(r); cmd != nil {
		return Cmd{cmd}
	}
	return None{}
}

// HandleKey feeds keys to the form; a prompt's fields are completed by
// the server as they are typed.
func (d *FormDialog) HandleKey(km tea.KeyMsg) Action {
	d.dropCheck()
	if a, ok := d.jsonEditorKey(km); ok {
		return a
	}
	if d.handleSuggestionKey(km) {
		return None{}
	}
	prevFocus, prevValue := d.form.focus, d.form.focusedValue()
	res, cmd := d.form.HandleKey(km)
	if res == FormContinue {
		cmd = tea.Batch(cmd, d.afterFormKey(prevFocus, prevValue))
	}
	switch res {
	case FormCancelled:
		return Close{}
	case FormSubmitted:
		switch d.item.Kind {
		case mcp.KindTool:
			if d.raw {
				return Cmd{d.checkCmd(rawArguments(d.form))}
			}
			args, _ := d.form.Values()
			return Cmd{d.checkCmd(args)}
		case mcp.KindTemplate:
			if d.mention {
				uri, _ := mcp.ExpandTemplate(d.item.URI, d.stringValues()) // Check passed
				return InsertMention{Text: d.mentionPrefix + chat.NewMention(d.item.Server, uri).String() + " "}
			}
			return ReadTemplate{Item: d.item, Values: d.stringValues()}
		case mcp.KindPrompt:
			if d.toChat {
				return PreviewPrompt{Item: d.item, Values: d.stringValues()}
			}
			return GetPrompt{Item: d.item, Values: d.stringValues()}
		}
		return Close{}
	}
	if cmd != nil {
		return Cmd{cmd}
	}
	return None{}
}

// ShortHelp is the keys that apply to the focused field.
func (d *FormDialog) ShortHelp() []key.Binding {
	k := d.com.Keys
	return append([]key.Binding{k.NextField, k.Submit, k.Cancel}, d.form.fieldKeys()...)
}

// Render draws the form in a frame.
func (d *FormDialog) Render(maxW, maxH int) []string {
	want := 72
	if slices.ContainsFunc(d.form.fields, func(fl *Field) bool { return fl.area != nil }) {
		want = 100 // JSON reads better wide
	}
	w := dialogWidth(maxW, want)
	content := d.form.Render(w - 2)
	return frameDialog(d.com, d.form.Title, content, w, maxH, d.form.FocusLine(w-2))
}

// newToolForm is the argument form of a tool, checked against its input
// schema (off the update path: checkCmd) before the call is made.
func NewToolForm(com *common.Common, it mcp.CatalogItem) *FormDialog {
	title := "call " + render.SanitizeLine(it.Name) + " on " + render.SanitizeLine(it.Server)
	if err := CheckFormFields("this tool's input schema", it.Schema); err != nil {
		f := NewForm(com, title, "Call", rawArgumentsFields(""))
		f.Note = tooManyNote(err, it)
		return &FormDialog{com: com, item: it, form: f, raw: true}
	}
	f := NewForm(com, title, "Call", ToolFields(it.Schema))
	notes := []string{}
	if desc := common.FirstLine(it.Description); desc != "" {
		notes = append(notes, desc)
	}
	if it.Annotations != nil && it.Annotations.DestructiveHint != nil && *it.Annotations.DestructiveHint {
		notes = append(notes, "⚠ the server marks this tool destructive: it may change or delete things.")
	}
	f.Note = strings.Join(notes, "\n")
	return &FormDialog{com: com, item: it, form: f}
}

// setFields gives d the form of n fields, or, past MaxFormFields, the one
// field of a JSON object of strings, with a note saying why (what names
// the item: "this prompt").
func (d *FormDialog) setFields(title, action, what string, n int, fields func() []*Field, note string) {
	if n > MaxFormFields {
		stringsOf := "a prompt's arguments"
		if d.item.Kind == mcp.KindTemplate {
			stringsOf = "a template's variables"
		}
		d.raw = true
		d.form = NewForm(d.com, title, action, rawArgumentsFields(stringsOf))
		d.form.Note = tooManyNote(&TooManyFieldsError{What: what, Count: n}, d.item)
		return
	}
	d.form = NewForm(d.com, title, action, fields())
	d.form.Note = note
}

// newTemplateForm asks for a template's variables, with a live preview of
// the URI they expand to.
func NewTemplateForm(com *common.Common, it mcp.CatalogItem) *FormDialog {
	d := &FormDialog{com: com, item: it}
	d.setFields("read "+render.SanitizeLine(it.Name), "Read", "this template", len(it.Variables),
		func() []*Field { return TemplateFields(it.Variables) }, render.SanitizeLine(it.URI))
	f := d.form
	f.Preview = func(f *Form) (string, error) {
		vals := d.stringValues()
		var missing []string
		for _, v := range it.Variables {
			if _, ok := vals[v]; !ok {
				missing = append(missing, render.SanitizeLine(v))
			}
		}
		if len(missing) > 0 {
			return "", PreviewPending("fill in " + common.JoinAnd(missing) + " to see the address it reads")
		}
		return mcp.ExpandTemplate(it.URI, vals)
	}
	f.Check = func(f *Form) error {
		_, err := mcp.ExpandTemplate(it.URI, d.stringValues())
		return err
	}
	return d
}

// newPromptForm asks for a prompt's arguments.
func NewPromptForm(com *common.Common, it mcp.CatalogItem) *FormDialog {
	d := &FormDialog{com: com, item: it}
	d.setFields("prompt "+render.SanitizeLine(it.Name), "Get", "this prompt", len(it.Arguments),
		func() []*Field { return PromptFields(it.Arguments) }, common.FirstLine(it.Description))
	d.form.Check = func(f *Form) error {
		if miss := mcp.MissingArguments(it, d.stringValues()); len(miss) > 0 {
			return &mcp.MissingArgumentsError{Prompt: it.Name, Missing: miss}
		}
		return nil
	}
	return d
}

// stringValues are a prompt's arguments or a template's variables: the
// filled fields, or the object typed in a form of too many (its values
// strings, checked).
func (d *FormDialog) stringValues() map[string]string {
	if !d.raw {
		return d.form.Strings()
	}
	out := map[string]string{}
	for k, v := range rawArguments(d.form) {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// pickerDialog chooses one of a document's attachments.
type PickerDialog struct {
	dialogBase
	com     *common.Common
	choices []Choice
	cur     int
}

// Choice is one of the picker's options: what it is called and what kind
// of thing it is.
type Choice struct{ Label, Kind string }

// NewPicker asks which of choices to open; the answer is OpenAttachment
// with the chosen index.
func NewPicker(com *common.Common, choices []Choice) *PickerDialog {
	return &PickerDialog{com: com, choices: choices}
}

func (d *PickerDialog) ID() string { return "picker" }

// HandleKey moves the choice and opens it.
func (d *PickerDialog) HandleKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel):
		return Close{}
	case key.Matches(km, k.Up):
		d.cur = max(d.cur-1, 0)
	case key.Matches(km, k.Down):
		d.cur = min(d.cur+1, len(d.choices)-1)
	case key.Matches(km, k.Accept):
		return OpenAttachment{d.cur}
	case len(km.Runes) == 1 && km.Runes[0] >= '1' && km.Runes[0] <= '9':
		if i := int(km.Runes[0] - '1'); i < len(d.choices) {
			return OpenAttachment{i}
		}
	}
	return None{}
}

// Render lists the attachments.
func (d *PickerDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 70)
	content := []string{""}
	for i, a := range d.choices {
		kind := a.Kind
		line := fmt.Sprintf(" %d  %s  %s", i+1, common.OrDash(a.Label), st.Muted.Render(kind))
		if i == d.cur {
			line = st.List.Selected.Render(common.Fit(fmt.Sprintf("›%d  %s  %s", i+1, common.OrDash(a.Label), kind), w-2))
		}
		content = append(content, line)
	}
	content = append(content, "", " "+st.Dialog.Hint.Render("enter opens · 1-9 open directly · esc cancels"))
	return frameDialog(d.com, "Open", content, w, maxH, d.cur+1)
}

// serversDialog lists every server with its state, reason and recent
// stderr, and reconnects the chosen one.
type ServersDialog struct {
	dialogBase
	com     *common.Common
	servers []*catalog.Server
	cur     int
	// roots are the directories each server is offered when it asks
	// (nil: none offered), once Open's answer came.
	roots serverRootsMsg
}

// serverRootsMsg is each server's roots, by name.
type serverRootsMsg map[string][]string

func (d *ServersDialog) ID() string { return "servers" }

// HandleResult takes the roots Open asked for.
func (d *ServersDialog) HandleResult(r common.Result) Action {
	if roots, ok := r.Msg.(serverRootsMsg); ok {
		d.roots = roots
	}
	return None{}
}

// HandleKey moves the choice and reconnects.
func (d *ServersDialog) HandleKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel, k.Servers):
		return Close{}
	case key.Matches(km, k.Up):
		d.cur = max(d.cur-1, 0)
	case key.Matches(km, k.Down):
		d.cur = min(d.cur+1, len(d.servers)-1)
	case key.Matches(km, k.Reconnect, k.Accept):
		if len(d.servers) > 0 {
			return Reconnect{d.servers[d.cur].Name()}
		}
	case key.Matches(km, k.SwitchOff):
		if len(d.servers) > 0 {
			return SwitchServer{d.servers[d.cur].Name()}
		}
	}
	return None{}
}

// rootsText says which directories a server is offered when it asks for
// roots ("" until known). Some servers (server-filesystem among them)
// serve these instead of the directories on their command line.
func (d *ServersDialog) rootsText(name string) string {
	roots, ok := d.roots[name]
	switch {
	case d.roots == nil || !ok:
		return ""
	case roots == nil:
		return "none offered (howl does not offer it roots)"
	case len(roots) == 0:
		return "none offered (its \"roots\" is empty)"
	}
	shown := make([]string, len(roots))
	for i, r := range roots {
		shown[i] = r
		if d.com.DisplayPath != nil {
			shown[i] = d.com.DisplayPath(r)
		}
	}
	return strings.Join(shown, ", ")
}

// Render lists the servers.
func (d *ServersDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	var content []string
	focus := 0
	for i, sv := range d.servers {
		content = append(content, "")
		marker := "  "
		if i == d.cur {
			marker = "› "
			focus = len(content)
		}
		state := string(sv.Status().State)
		style := st.Status.Counts
		switch sv.Status().State {
		case mcp.StateReady:
			style = st.Status.Ready
		case mcp.StateFailed, mcp.StateAuthRequired:
			style = st.Status.Failed
		case mcp.StateStarting:
			style = st.Status.Starting
		}
		content = append(content, marker+st.Strong.Render(render.SanitizeLine(sv.Name()))+"  "+style.Render(state))
		detail := func(label, v string) {
			if v == "" {
				return
			}
			for j, l := range common.WrapWords(render.SanitizeLine(v), max(inner-14, 10)) {
				lab := strings.Repeat(" ", 10)
				if j == 0 {
					lab = common.Fit(label, 10)
				}
				content = append(content, "    "+st.Detail.Label.Render(lab)+l)
			}
		}
		detail("transport", string(sv.Status().Transport)+" "+sv.Status().Target)
		detail("protocol", sv.Status().Protocol)
		if si := sv.Status().ServerInfo; si != nil {
			detail("server", strings.TrimSpace(si.Name+" "+si.Version))
		}
		if sv.Status().State == mcp.StateReady && sv.Loaded() {
			detail("items", sv.CountText(true))
		}
		detail("roots", d.rootsText(sv.Name()))
		detail("reason", sv.Status().Reason)
		if sv.Status().State == mcp.StateAuthRequired {
			detail("fix", ".mcp auth "+sv.Name()+" in the chat logs in")
		}
		if tail := strings.TrimSpace(sv.Status().StderrTail); tail != "" {
			content = append(content, "    "+st.Detail.Label.Render("stderr"))
			lines := strings.Split(render.Sanitize(tail), "\n")
			for _, l := range lines[max(len(lines)-6, 0):] {
				content = append(content, "      "+st.Muted.Render(common.Truncate(l, inner-8)))
			}
		}
	}
	content = append(content, "", " "+st.Dialog.Hint.Render("enter/r reconnects the chosen server · esc closes"))
	return frameDialog(d.com, "Servers", content, w, maxH, focus)
}
