package dialog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// actionAnswerPermission answers the permission request on top.
type AnswerPermission struct {
	Req    *chat.PermissionRequest
	Answer chat.PermissionAnswer
}

func (AnswerPermission) isAction() {}

// permissionDialog asks whether one of the model's calls may run. It opens
// on its own, so it ignores keys for PermissionGrace after it opens.
type PermissionDialog struct {
	dialogBase
	com *common.Common
	req *chat.PermissionRequest
	grace
	// canPersist: there is a config file to save "always" to.
	canPersist bool
	// scroll moves through the arguments.
	scroll dialogScroll
}

func (d *PermissionDialog) ID() string { return "permission" }

// HandleKey answers on y/s/a/n (esc denies) and scrolls the arguments.
func (d *PermissionDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	k := d.com.Keys
	pk := k.Permission
	switch {
	case key.Matches(km, k.Cancel, pk.Deny):
		return AnswerPermission{d.req, chat.AnswerDeny}
	case key.Matches(km, pk.Once):
		return AnswerPermission{d.req, chat.AnswerOnce}
	case key.Matches(km, pk.Session):
		return AnswerPermission{d.req, chat.AnswerSession}
	case key.Matches(km, pk.Always) && d.canAlways():
		return AnswerPermission{d.req, chat.AnswerAlways}
	default:
		d.scroll.HandleKey(km, k)
	}
	return None{}
}

// Render draws the call: server, tool, annotations (destructive first and
// loud), the arguments and the answers.
func (d *PermissionDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	r := d.req
	var head []string
	head = append(head, "")
	if ann := r.Annotations; ann != nil && ann.DestructiveHint != nil && *ann.DestructiveHint {
		for _, l := range common.WrapWords("⚠ DESTRUCTIVE: the server says this tool may change or delete things", max(inner-2, 10)) {
			head = append(head, " "+st.Error.Render(l))
		}
	}
	if r.Changed != nil {
		for _, l := range common.WrapWords("⚠ CHANGED: "+render.SanitizeLine(r.Changed.Summary())+"; what you allowed no longer applies. What changed:", max(inner-2, 10)) {
			head = append(head, " "+st.Error.Render(l))
		}
	}
	label := func(l, v string) string {
		return " " + st.Detail.Label.Render(common.Fit(l, 12)) + common.Truncate(v, inner-14)
	}
	head = append(head, label("server", render.SanitizeLine(r.Server)))
	if r.App != "" {
		head = append(head, label("asked by", "the MCP App "+render.SanitizeLine(r.App)+" (in your browser), not the model"))
	}
	if r.Tool != "" {
		head = append(head, label("tool", st.Strong.Render(render.SanitizeLine(r.Tool))))
	} else {
		head = append(head, label("function", render.SanitizeLine(r.Call.Name)))
	}
	for i, l := range common.WrapWords(annotationText(r.Annotations), max(inner-14, 10)) {
		if i == 0 {
			head = append(head, label("annotations", l))
		} else {
			head = append(head, label("", l))
		}
	}
	if r.Changed != nil {
		head = append(head, " "+st.Detail.Label.Render("what changed (- approved, + now)"))
	} else {
		head = append(head, " "+st.Detail.Label.Render("arguments"))
	}

	args := r.Call.Arguments
	if r.Tool != "" {
		var a struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(args), &a) == nil && len(a.Arguments) > 0 {
			args = string(a.Arguments)
		}
	}
	var body []string
	if r.Changed != nil {
		for _, l := range r.Changed.Diff {
			style := st.Detail.Label
			switch {
			case strings.HasPrefix(l, "+"):
				style = st.Strong
			case strings.HasPrefix(l, "-"):
				style = st.Error
			}
			body = append(body, "   "+style.Render(common.Truncate(render.SanitizeLine(common.ExpandTabs(l)), max(inner-4, 10))))
		}
		body = append(body, " "+st.Detail.Label.Render("arguments"))
	}
	for _, l := range strings.Split(render.Sanitize(chat.PrettyArgs(args)), "\n") {
		for _, wl := range common.WrapWords(common.ExpandTabs(l), max(inner-4, 10)) {
			body = append(body, "   "+wl)
		}
	}
	// Only what can be done is offered, the keys as the help line shows them.
	var answers []string
	answers = append(answers, "")
	if r.Rule() != "" && !d.canPersist {
		for _, l := range common.WrapWords(noAlwaysReason, max(inner-2, 10)) {
			answers = append(answers, " "+st.Muted.Render(l))
		}
	}
	var opts []string
	for _, b := range d.ShortHelp() {
		if b.Help().Key == d.com.Keys.PageDown.Help().Key {
			continue
		}
		desc := b.Help().Desc
		switch b.Help().Key {
		case d.com.Keys.Permission.Always.Help().Key:
			desc = "always allow " + render.SanitizeLine(r.Rule())
			if r.App != "" {
				desc += " (for the model and every app)"
			}
		case d.com.Keys.Permission.Session.Help().Key:
			if r.App != "" {
				desc = "allow this app this tool for the session (the model is still asked)"
			}
		}
		opts = append(opts, b.Help().Key+" "+desc)
	}
	for _, l := range common.WrapWords(strings.Join(opts, " · "), max(inner-2, 10)) {
		answers = append(answers, " "+st.Dialog.Hint.Render(l))
	}

	// The arguments scroll within what the frame leaves them.
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(answers))
	content := append(append(append([]string(nil), head...), shown...), answers...)
	return frameDialog(d.com, "Allow this call?", content, w, maxH, -1)
}

// noAlwaysReason says, once, why "always" is not offered.
const noAlwaysReason = "\"always allow\" is not offered: howl runs without a config file (the built-in demo), so a rule could not be saved."

// canAlways reports whether "always" can be done: the call names a tool
// and there is a config file to save the rule to.
func (d *PermissionDialog) canAlways() bool { return d.req.Rule() != "" && d.canPersist }

// ShortHelp is the answers the dialog offers, for the help line and its
// own answer line alike.
func (d *PermissionDialog) ShortHelp() []key.Binding {
	k := d.com.Keys
	out := []key.Binding{k.Permission.Once, k.Permission.Session}
	if d.canAlways() {
		out = append(out, k.Permission.Always)
	}
	return append(out, k.Permission.Deny, k.PageDown)
}

// annotationText lists a tool's hints ("none" when it declares none).
func annotationText(ann *mcp.ToolAnnotations) string {
	const byDefault = "treated as destructive, the MCP default"
	if ann == nil {
		return "none declared (" + byDefault + ")"
	}
	var parts []string
	hint := func(name string, v *bool) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s=%t", name, *v))
		}
	}
	hint("destructiveHint", ann.DestructiveHint)
	hint("readOnlyHint", ann.ReadOnlyHint)
	hint("openWorldHint", ann.OpenWorldHint)
	hint("idempotentHint", ann.IdempotentHint)
	if len(parts) == 0 {
		return "none declared (" + byDefault + ")"
	}
	if ann.DestructiveHint == nil && ann.MayDestroy() {
		parts = append(parts, "(no destructiveHint: "+byDefault+")")
	}
	return strings.Join(parts, " ")
}

// Scrolled reports whether the arguments are scrolled from their top.
func (d *PermissionDialog) Scrolled() bool { return d.scroll.top > 0 }
