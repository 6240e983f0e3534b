package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2/lexers"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Detail describes the selected catalog item: everything a server said
// about it, sanitized, with a tool's input schema formatted.
type Detail struct {
	com           *common.Common
	width, height int
	focused       bool
	entry         *Entry
	offset        int
	// server is the selected row's server: with no item selected, the
	// pane says what is wrong with it (a failed start, a failed listing).
	server *Server
	tab    int

	// The rendered lines of (entry, width), built on first draw.
	cacheFor   *Entry
	cacheWidth int
	// cacheSub is the subscription state the cache was drawn with.
	cacheSub string
	cache    []string
}

// NewDetail builds the detail pane, showing nothing.
func NewDetail(com *common.Common) *Detail { return &Detail{com: com} }

// SetSize sets the pane's outer size.
func (d *Detail) SetSize(w, h int) tea.Cmd {
	d.width, d.height = w, h
	return nil
}

// Focused reports whether the pane has the keys.
func (d *Detail) Focused() bool { return d.focused }

// HandleResult: the detail pane makes no requests.
func (d *Detail) HandleResult(common.Result) tea.Cmd { return nil }

// Focus and Blur move the keyboard focus.
func (d *Detail) Focus() { d.focused = true }
func (d *Detail) Blur()  { d.focused = false }

// SetEntry shows another item, from its top.
func (d *Detail) SetEntry(e *Entry) {
	if e != d.entry {
		d.entry = e
		d.offset = 0
	}
}

// SetServer names the server of the selected row and the tab shown, for
// when no item is selected.
func (d *Detail) SetServer(sv *Server, tab int) { d.server, d.tab = sv, tab }

// HandleKey scrolls the pane.
func (d *Detail) HandleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	delta, ok := d.com.Keys.ScrollBy(msg, max(d.height-2, 1))
	if ok {
		d.Scroll(delta)
	}
	return nil, ok
}

// Scroll moves the view by delta lines.
func (d *Detail) Scroll(delta int) {
	n := len(d.lines())
	d.offset = common.Clamp(d.offset+delta, 0, max(n-(d.height-2), 0))
}

// lines returns the rendered content, cached by (Entry, width).
func (d *Detail) lines() []string {
	if d.entry == nil {
		return nil
	}
	w := d.width - 2
	sub := subscribedText(d.com, *d.entry.item)
	if d.cacheFor != d.entry || d.cacheWidth != w || d.cacheSub != sub {
		d.cache = renderDetail(d.com, d.entry, w)
		d.cacheFor, d.cacheWidth, d.cacheSub = d.entry, w, sub
	}
	return d.cache
}

// Render draws the pane at its size.
func (d *Detail) Render(int) []string {
	st := d.com.Styles
	bs := common.BoxStyle{Focused: d.focused, Border: st.Pane.Border, BorderFocused: st.Pane.BorderFocused, Title: st.Pane.Title, TitleFocused: st.Pane.TitleFocused}
	lines := d.lines()
	if d.entry == nil {
		lines = serverDetail(d.com, d.server, d.tab, d.width-2)
	}
	if len(lines) == 0 {
		return common.Box(bs, "Details", []string{st.Muted.Render(" Nothing selected.")}, d.width, d.height)
	}
	h := d.height - 2
	off := common.Clamp(d.offset, 0, max(len(lines)-h, 0))
	end := min(off+h, len(lines))
	title := "Details"
	if mark := common.ScrollMark(off, len(lines), h); mark != "" {
		title += " · " + mark
	}
	return common.Box(bs, title, lines[off:end], d.width, d.height)
}

// serverDetail says why a server shows no items on tab: it failed to
// start (its reason and the tail of its stderr), it waits for a login, or
// listing the tab's kind failed. Nothing (nil) when the server is fine.
func serverDetail(com *common.Common, sv *Server, tab, w int) []string {
	if sv == nil {
		return nil
	}
	st := com.Styles
	inner := max(w-2, 10)
	name := render.SanitizeLine(sv.name)
	var out []string
	para := func(s string, style lipgloss.Style) {
		for _, l := range common.WrapText(s, inner) {
			out = append(out, " "+style.Render(l))
		}
	}
	status := sv.status
	switch {
	case status.State == mcp.StateFailed:
		title := name + " did not start"
		if status.ReadyMillis != nil { // it was ready: it died since
			title = name + " stopped"
		}
		out = append(out, " "+st.Detail.Title.Render(common.Truncate(title, inner)))
	case status.State == mcp.StateAuthRequired:
		out = append(out, " "+st.Detail.Title.Render(common.Truncate(name+" needs you to log in", inner)))
	case status.State == mcp.StateReady && sv.loadErr != "":
		out = append(out, " "+st.Detail.Title.Render(common.Truncate("Listing "+name+"'s catalog failed", inner)), "")
		para(sv.loadErr, st.Error)
		out = append(out, "")
		para("r asks the server again.", st.Muted)
		return out
	case status.State == mcp.StateReady && sv.failed[tab]:
		out = append(out, " "+st.Detail.Title.Render(common.Truncate("Listing "+name+"'s "+strings.ToLower(TabTitles[tab])+" failed", inner)), "")
		for _, w := range sv.warns[tab] {
			para(w, st.Error)
		}
		out = append(out, "")
		para("How many there are is unknown. r asks the server again.", st.Muted)
		return out
	default:
		return nil
	}
	out = append(out, "")
	reason := render.SanitizeLine(status.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	para(reason, st.Error)
	if tail := strings.TrimSpace(status.StderrTail); tail != "" {
		out = append(out, "", " "+st.Detail.Heading.Render("What it wrote to stderr (the last lines)"))
		for _, l := range strings.Split(render.Sanitize(tail), "\n") {
			out = append(out, " "+st.Muted.Render(common.Truncate(l, inner)))
		}
	}
	out = append(out, "")
	if status.State == mcp.StateAuthRequired {
		para("Type .mcp auth "+name+" in the chat to log in.", st.Muted)
	} else {
		para("S opens the servers list, where enter reconnects it; ctrl+l shows its whole log.", st.Muted)
	}
	return out
}

// maxHighlightedSchema is the largest schema the detail pane highlights.
const maxHighlightedSchema = 32 << 10

// renderDetail lays out one item at width w (inside the border).
func renderDetail(com *common.Common, e *Entry, w int) []string {
	st := com.Styles
	it := *e.item
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	pad := " "
	inner := max(w-2, 10)
	wrapped := func(s string, style lipgloss.Style) {
		for _, l := range common.WrapText(s, inner) {
			add(pad + style.Render(l))
		}
	}
	field := func(label, value string) {
		if value == "" {
			return
		}
		lw := 10
		lines := common.WrapText(value, max(inner-lw, 8))
		for i, l := range lines {
			lab := strings.Repeat(" ", lw)
			if i == 0 {
				lab = common.Fit(label, lw)
			}
			add(pad + st.Detail.Label.Render(lab) + st.Detail.Value.Render(l))
		}
	}
	heading := func(s string) {
		add("", pad+st.Detail.Heading.Render(s))
	}

	add(pad + st.Detail.Title.Render(common.Truncate(render.SanitizeLine(it.DisplayName()), inner)))
	add(pad + st.Detail.Kind.Render(kindLabel(it.Kind)+" · "+render.SanitizeLine(it.Server)))
	if it.Title != "" && it.Title != it.Name {
		field("name", render.SanitizeLine(it.Name))
	}
	switch it.Kind {
	case mcp.KindTool:
		if e.changed != "" {
			add("")
			wrapped("⚠ "+e.changed+": the rules that allowed it no longer apply; the chat asks before it runs (howl approve "+render.SanitizeLine(it.Server)+" "+render.SanitizeLine(it.Name)+" approves it as it is now)", st.Error)
		}
		if desc := strings.TrimSpace(render.Sanitize(it.Description)); desc != "" {
			add("")
			wrapped(desc, st.Text)
		}
		if hints := toolHints(it); hints != "" {
			add("")
			field("hints", hints)
		}
		field("task", it.TaskSupport)
		if it.AppURI != "" {
			field("app", render.SanitizeLine(it.AppURI)+": an MCP App; enter calls the tool and opens its interface in your browser with the result (howl app "+render.SanitizeLine(it.Server)+" "+render.SanitizeLine(it.Name)+" does it headless)")
		}
		props, more, moreRequired := detailProps(it.Schema)
		if len(props) > 0 {
			heading("Arguments")
		}
		for _, p := range props {
			mark := st.Detail.Optional.Render("  ")
			if p.Required {
				mark = st.Detail.Required.Render(" *")
			}
			typ := p.Type
			if len(p.Enum) > 0 {
				typ = "one of " + strings.Join(p.Enum, " | ")
			}
			add(pad + st.Strong.Render(render.SanitizeLine(p.Name)) + mark + "  " + st.Detail.Kind.Render(render.SanitizeLine(typ)))
			var extra []string
			if p.Constraints != "" {
				extra = append(extra, render.SanitizeLine(p.Constraints))
			}
			if p.Default != "" {
				extra = append(extra, "default "+render.SanitizeLine(p.Default))
			}
			if p.Format != "" {
				extra = append(extra, "format "+render.SanitizeLine(p.Format))
			}
			desc := strings.TrimSpace(render.Sanitize(p.Description))
			if len(extra) > 0 {
				desc = strings.TrimSpace(desc + " (" + strings.Join(extra, "; ") + ")")
			}
			for _, l := range common.WrapText(desc, max(inner-4, 8)) {
				if l != "" {
					add(pad + "    " + st.Muted.Render(l))
				}
			}
		}
		if more > 0 {
			wrapped(moreArgumentsText(more, moreRequired, "howl describe "+render.SanitizeLine(it.Server)+" --kind tool "+render.SanitizeLine(it.Name)), st.Muted)
		}
		if slices.ContainsFunc(props, func(p mcp.SchemaProp) bool { return p.Required }) {
			add(pad + st.Detail.Optional.Render("* required"))
		}
		schemaBlock := func(title string, raw []byte) {
			if len(raw) == 0 {
				return
			}
			heading(title)
			if len(raw) > MaxDetailSchemaBytes {
				wrapped(fmt.Sprintf("%s of JSON, over MaxDetailSchemaBytes (%d KiB) for this pane: howl describe %s --kind tool %s prints it",
					common.SizeText(int64(len(raw))), MaxDetailSchemaBytes>>10, render.SanitizeLine(it.Server), render.SanitizeLine(it.Name)), st.Muted)
				return
			}
			text := common.ExpandTabs(render.Sanitize(common.PrettyJSON(raw)))
			lexer := lexers.Get("json")
			if len(text) > maxHighlightedSchema {
				lexer = nil // drawn once per width, in View: keep it cheap
			}
			for _, l := range common.Highlight(text, lexer, com.Theme) {
				add(pad + common.Truncate(l, inner))
			}
		}
		schemaBlock("Input schema", it.Schema)
		schemaBlock("Output schema", it.OutputSchema)
		add("")
		if len(props) == 0 {
			wrapped("enter: call it (it takes no arguments; enter again confirms)", st.Subtle)
		} else {
			wrapped("enter: fill in the arguments and call", st.Subtle)
		}
	case mcp.KindResource:
		add("")
		field("uri", render.SanitizeLine(it.URI))
		if sub := subscribedText(com, it); sub != "" {
			field("followed", sub)
		}
		if it.AppURI != "" {
			field("app", "an MCP App's interface: o opens it in your browser (without a tool result; enter on the tool that names it calls it first)")
		}
		field("mime", common.OrDash(render.SanitizeLine(it.MIMEType)))
		if it.Size != nil {
			field("size", common.SizeText(*it.Size))
		} else {
			field("size", "unknown")
		}
		field("audience", render.SanitizeLine(strings.Join(it.Audience, ", ")))
		if it.Priority != nil {
			field("priority", strconv.FormatFloat(*it.Priority, 'g', -1, 64))
		}
		field("modified", render.SanitizeLine(it.LastModified))
		if desc := strings.TrimSpace(render.Sanitize(it.Description)); desc != "" {
			add("")
			wrapped(desc, st.Text)
		}
		add("")
		wrapped("enter: read it into the viewer", st.Subtle)
	case mcp.KindTemplate:
		add("")
		field("template", render.SanitizeLine(it.URI))
		field("mime", render.SanitizeLine(it.MIMEType))
		field("audience", render.SanitizeLine(strings.Join(it.Audience, ", ")))
		if desc := strings.TrimSpace(render.Sanitize(it.Description)); desc != "" {
			add("")
			wrapped(desc, st.Text)
		}
		heading("Variables")
		if len(it.Variables) == 0 {
			add(pad + st.Muted.Render("none"))
		}
		for _, v := range it.Variables {
			add(pad + st.Strong.Render("{"+render.SanitizeLine(v)+"}") + st.Detail.Required.Render(" *"))
		}
		add("")
		wrapped("enter: fill in the variables and read", st.Subtle)
	case mcp.KindPrompt:
		if desc := strings.TrimSpace(render.Sanitize(it.Description)); desc != "" {
			add("")
			wrapped(desc, st.Text)
		}
		if len(it.Arguments) > 0 {
			heading("Arguments")
		}
		for _, a := range it.Arguments[:min(len(it.Arguments), MaxDetailArguments)] {
			mark := st.Detail.Optional.Render("  (optional)")
			if a.Required {
				mark = st.Detail.Required.Render(" *")
			}
			add(pad + st.Strong.Render(render.SanitizeLine(a.Name)) + mark)
			for _, l := range common.WrapText(strings.TrimSpace(render.Sanitize(a.Description)), max(inner-4, 8)) {
				if l != "" {
					add(pad + "    " + st.Muted.Render(l))
				}
			}
		}
		if more := it.Arguments[min(len(it.Arguments), MaxDetailArguments):]; len(more) > 0 {
			req := 0
			for _, a := range more {
				if a.Required {
					req++
				}
			}
			wrapped(moreArgumentsText(len(more), req, "howl describe "+render.SanitizeLine(it.Server)+" --kind prompt "+render.SanitizeLine(it.Name)), st.Muted)
		}
		if slices.ContainsFunc(it.Arguments, func(a mcp.PromptArgument) bool { return a.Required }) {
			add(pad + st.Detail.Optional.Render("* required"))
		}
		add("")
		if len(it.Arguments) == 0 {
			wrapped("enter: get the prompt (it takes no arguments)", st.Subtle)
		} else {
			wrapped("enter: fill in the arguments and get the prompt", st.Subtle)
		}
	case mcp.KindSkill:
		if desc := strings.TrimSpace(render.Sanitize(it.Description)); desc != "" {
			add("")
			wrapped(desc, st.Text)
		}
		add("")
		field("uri", render.SanitizeLine(it.URI))
		if it.Size != nil {
			field("size", common.SizeText(*it.Size))
		}
		heading("Files")
		if it.Skill != nil && it.Skill.Dynamic {
			add(pad + st.Muted.Render("dynamic: no digests, its content cannot be checked"))
		}
		if it.Skill != nil {
			files := it.Skill.Files
			for _, f := range files[:min(len(files), MaxDetailFiles)] {
				add(pad + st.Strong.Render(common.Truncate(render.SanitizeLine(strings.TrimPrefix(f.URI, strings.TrimSuffix(it.URI, "SKILL.md"))), max(inner-12, 8))) + st.Muted.Render("  "+common.SizeText(f.Size)))
			}
			if more := len(files) - MaxDetailFiles; more > 0 {
				wrapped(fmt.Sprintf("… and %d more files, over MaxDetailFiles (%d): howl describe %s --kind skill %s lists them all",
					more, MaxDetailFiles, render.SanitizeLine(it.Server), render.SanitizeLine(it.Name)), st.Muted)
			}
		}
		add("")
		wrapped("nothing is read until the skill is loaded: the chat's model loads it, checked against this listing; from a shell: howl skill "+render.SanitizeLine(it.Server)+" "+render.SanitizeLine(it.Name), st.Subtle)
	}
	return out
}

// MaxDetailArguments bounds the arguments of a tool or prompt the details
// pane lists: a screen or two of rows to read, where a server's 100,000
// properties took 3.6 s to lay out whenever the item was selected. The
// rest are counted, and a line names the command that lists them all.
const MaxDetailArguments = 100

// MaxDetailFiles bounds the files of a skill the details pane lists, as
// MaxDetailArguments bounds arguments: a listing may name some 330,000
// files within its bound, and each would be a row laid out whenever the
// skill is selected. A skill loads only up to mcp.MaxSkillFiles anyway.
const MaxDetailFiles = 100

// MaxDetailSchemaBytes bounds the input or output schema the details pane
// draws as JSON: 256 KiB is some 10,000 lines, more than anyone scrolls;
// a larger one is named with its size and the command that prints it.
const MaxDetailSchemaBytes = 256 << 10

// moreArgumentsText says how many arguments the pane left out (how many
// of them required) and how to list them all.
func moreArgumentsText(n, required int, describe string) string {
	req := ""
	if required > 0 {
		req = fmt.Sprintf(" (%d required)", required)
	}
	return fmt.Sprintf("… and %d more arguments%s, over MaxDetailArguments (%d): %s lists them all", n, req, MaxDetailArguments, describe)
}

// detailProps are a tool's first MaxDetailArguments arguments, and how
// many more there are (how many of them required). Only those shown are
// decoded: the schema is scanned once for the others, to count them.
func detailProps(schema json.RawMessage) (props []mcp.SchemaProp, more, moreRequired int) {
	var properties []byte
	var required []string
	_ = render.ObjectMembers(schema, func(key string, value []byte) bool {
		switch key {
		case "properties":
			properties = value
		case "required":
			_ = json.Unmarshal(value, &required)
		}
		return true
	})
	var members [][]byte // the shown ones, as written: "name":value
	total := 0
	_ = render.ObjectMemberBytes(properties, func(key, value []byte) bool {
		if total++; total <= MaxDetailArguments {
			name, _ := json.Marshal(string(key))
			members = append(members, append(append(name, ':'), value...))
		}
		return true
	})
	if total <= MaxDetailArguments {
		return mcp.SchemaProps(schema), 0, 0
	}
	// The shown ones as a schema of their own, decoded as any schema is.
	var b bytes.Buffer
	b.WriteString(`{"properties":{`)
	b.Write(bytes.Join(members, []byte(",")))
	b.WriteString(`},"required":`)
	req, _ := json.Marshal(required)
	b.Write(req)
	b.WriteByte('}')
	props = mcp.SchemaProps(b.Bytes())
	shown := map[string]bool{}
	for _, p := range props {
		shown[p.Name] = true
	}
	for _, r := range required {
		if !shown[r] {
			moreRequired++
		}
	}
	return props, total - len(props), moreRequired
}

func kindLabel(k mcp.Kind) string {
	if k == mcp.KindTemplate {
		return "resource template"
	}
	return string(k)
}

// toolHints summarises a tool's annotations.
func toolHints(it mcp.CatalogItem) string {
	a := it.Annotations
	if a == nil {
		return ""
	}
	var out []string
	flag := func(p *bool, yes, no string) {
		if p == nil {
			return
		}
		if *p {
			if yes != "" {
				out = append(out, yes)
			}
		} else if no != "" {
			out = append(out, no)
		}
	}
	flag(a.ReadOnlyHint, "read-only", "")
	flag(a.DestructiveHint, "⚠ destructive", "")
	flag(a.IdempotentHint, "idempotent", "")
	flag(a.OpenWorldHint, "open world", "closed world")
	return strings.Join(out, " · ")
}

var _ common.Pane = (*Detail)(nil)

// subscribedText says how a subscribed resource has changed ("since
// 14:02:55 · 2 updates · last 14:03:10"), or "" when the person does not
// follow it.
func subscribedText(com *common.Common, it mcp.CatalogItem) string {
	if it.Kind != mcp.KindResource {
		return ""
	}
	s := com.Subs.Get(it.Server, it.URI)
	if s == nil {
		return ""
	}
	return "subscribed · " + com.SubscriptionStats(*s) + " · " + com.Keys.Subscriptions.Help().Key + " lists subscriptions"
}
