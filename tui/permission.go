package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// PermissionGrace is how long a permission dialog ignores keys after it
// opens: it opens on its own, while the person may be typing.
const PermissionGrace = 400 * time.Millisecond

// deniedByUser is what the model reads (after "not run: ") for a call the
// person denied.
const deniedByUser = "the user denied this call"

// permissionAnswer is the person's answer to one permission request.
type permissionAnswer int

const (
	answerDeny permissionAnswer = iota
	answerOnce
	answerSession
	answerAlways
)

// permissionRequest is one call the rules did not allow, waiting for the
// person. The model's goroutine waits on reply (buffered: Update never
// blocks answering).
type permissionRequest struct {
	call   llm.ToolCall
	why    string
	server string
	// tool is the invoked tool ("" for a call that is not mcp_invoke), and
	// item its catalog entry when the server lists it.
	tool        string
	item        *mcp.CatalogItem
	annotations *mcp.ToolAnnotations
	// changed: the person approved this tool before, and the server has
	// changed it since (what changed, to show).
	changed *llm.Change
	reply   chan permissionReply
}

// rule is the "server:tool" rule that would allow the call ("" when the
// call names no tool).
func (r *permissionRequest) rule() string {
	if r.tool == "" {
		return ""
	}
	return r.server + ":" + r.tool
}

type permissionReply struct {
	decision string
	err      error
	// approve records the definition the person allowed: for the session,
	// or saved (always).
	approve, save bool
}

// permits are the chat's running rules: the config's, plus what the person
// allowed in this session. The model's goroutine reads them while asking,
// so they are guarded.
type permits struct {
	mu     sync.Mutex
	rules  llm.Permissions
	source string // the config file ("" in demo mode: nothing persists)
	// session maps "server:tool" (or a function name) to the decision that
	// allowed it for the rest of the session.
	session map[string]string
}

func newPermits(p llm.Permissions, source string) *permits {
	return &permits{rules: p, source: source, session: map[string]string{}}
}

// decider is the DecideFunc for one turn: asks reach the chat through asks.
func (p *permits) decider(cats llm.Catalogs, asks chan<- *permissionRequest) llm.DecideFunc {
	p.mu.Lock()
	rules := p.rules
	rules.Allow = append([]string(nil), p.rules.Allow...)
	p.mu.Unlock()
	return rules.Decider(cats, func(ctx context.Context, call llm.ToolCall, why string) (string, error) {
		return p.ask(ctx, cats, asks, call, why)
	})
}

// ask puts one call to the person and waits for the answer or ctx.
func (p *permits) ask(ctx context.Context, cats llm.Catalogs, asks chan<- *permissionRequest, call llm.ToolCall, why string) (string, error) {
	mc, _ := cats.ParseMetaCall(call.Name)
	req := &permissionRequest{call: call, why: why, server: mc.Server, reply: make(chan permissionReply, 1)}
	if mc.Prefix == mcp.PrefixInvoke {
		// The decider refused arguments this reading cannot take.
		ma, _ := mcp.ParseMetaArgs(call.Name, []byte(call.Arguments))
		req.tool = ma.Tool
	}
	key := req.rule()
	if key == "" {
		key = call.Name
	}
	if req.tool != "" {
		if cat, err := cats.Catalog(ctx, mc.Server, false); err == nil {
			if it, ok := cat.Lookup(mcp.KindTool, req.tool); ok {
				req.item, req.annotations = &it, it.Annotations
			}
		}
	}
	approvals := p.approvals()
	if req.item != nil && approvals != nil {
		if state, ch, err := approvals.Check(*req.item); err == nil && state == llm.Changed {
			req.changed = &ch
		}
	}
	p.mu.Lock()
	granted, ok := p.session[key]
	if ok && req.changed != nil {
		delete(p.session, key) // granted for what the tool was, not what it is now
		ok = false
	}
	p.mu.Unlock()
	if ok {
		return granted, nil
	}
	select {
	case asks <- req:
	case <-ctx.Done():
		return "cancelled while asking", ctx.Err()
	}
	select {
	case r := <-req.reply:
		if r.approve && req.item != nil && approvals != nil {
			if err := approvals.Approve(*req.item, r.save, time.Now()); err != nil {
				r.decision += " (its definition was not saved: " + err.Error() + "; howl asks again next time)"
			}
		}
		return r.decision, r.err
	case <-ctx.Done():
		return "cancelled while asking", ctx.Err()
	}
}

// approvals are the rules' pinned tool definitions (nil: none kept).
func (p *permits) approvals() *llm.Approvals {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rules.Approvals
}

// grant allows key for the rest of the session with decision.
func (p *permits) grant(key, decision string) {
	p.mu.Lock()
	p.session[key] = decision
	p.mu.Unlock()
}

// addRule adds a persisted rule to the running rules.
func (p *permits) addRule(rule string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.rules.Allow {
		if a == rule {
			return
		}
	}
	p.rules.Allow = append(p.rules.Allow, rule)
}

// permissionSavedMsg reports the write of an "always" rule.
type permissionSavedMsg struct {
	rule, path string
	err        error
}

// persistAllowCmd writes rule to the config file.
func persistAllowCmd(path, rule string) tea.Cmd {
	return func() tea.Msg { return permissionSavedMsg{rule: rule, path: path, err: llm.PersistAllow(path, rule)} }
}

// actionAnswerPermission answers the permission request on top.
type actionAnswerPermission struct {
	req    *permissionRequest
	answer permissionAnswer
}

func (actionAnswerPermission) isAction() {}

// permissionDialog asks whether one of the model's calls may run. It opens
// on its own, so it ignores keys for PermissionGrace after it opens.
type permissionDialog struct {
	dialogBase
	com    *common.Common
	req    *permissionRequest
	opened time.Time
	// canPersist: there is a config file to save "always" to.
	canPersist bool
	// scroll moves through the arguments.
	scroll dialogScroll
}

func (d *permissionDialog) ID() string { return "permission" }

// HandleKey answers on y/s/a/n (esc denies) and scrolls the arguments.
func (d *permissionDialog) HandleKey(km tea.KeyMsg) Action {
	if d.com.Now().Sub(d.opened) < PermissionGrace {
		return actionNone{}
	}
	k := d.com.Keys
	pk := k.Permission
	switch {
	case key.Matches(km, k.Cancel, pk.Deny):
		return actionAnswerPermission{d.req, answerDeny}
	case key.Matches(km, pk.Once):
		return actionAnswerPermission{d.req, answerOnce}
	case key.Matches(km, pk.Session):
		return actionAnswerPermission{d.req, answerSession}
	case key.Matches(km, pk.Always) && d.req.rule() != "":
		return actionAnswerPermission{d.req, answerAlways}
	default:
		d.scroll.HandleKey(km, k)
	}
	return actionNone{}
}

// Render draws the call: server, tool, annotations (destructive first and
// loud), the arguments and the answers.
func (d *permissionDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	r := d.req
	var head []string
	head = append(head, "")
	if ann := r.annotations; ann != nil && ann.DestructiveHint != nil && *ann.DestructiveHint {
		for _, l := range common.WrapText("⚠ DESTRUCTIVE: the server says this tool may change or delete things", max(inner-2, 10)) {
			head = append(head, " "+st.Error.Render(l))
		}
	}
	if r.changed != nil {
		for _, l := range common.WrapText("⚠ CHANGED: "+render.SanitizeLine(r.changed.Summary())+"; what you allowed no longer applies. What changed:", max(inner-2, 10)) {
			head = append(head, " "+st.Error.Render(l))
		}
	}
	label := func(l, v string) string {
		return " " + st.Detail.Label.Render(common.Fit(l, 12)) + common.Truncate(v, inner-14)
	}
	head = append(head, label("server", render.SanitizeLine(r.server)))
	if r.tool != "" {
		head = append(head, label("tool", st.Strong.Render(render.SanitizeLine(r.tool))))
	} else {
		head = append(head, label("function", render.SanitizeLine(r.call.Name)))
	}
	for i, l := range common.WrapText(annotationText(r.annotations), max(inner-14, 10)) {
		if i == 0 {
			head = append(head, label("annotations", l))
		} else {
			head = append(head, label("", l))
		}
	}
	if r.changed != nil {
		head = append(head, " "+st.Detail.Label.Render("what changed (- approved, + now)"))
	} else {
		head = append(head, " "+st.Detail.Label.Render("arguments"))
	}

	args := r.call.Arguments
	if r.tool != "" {
		var a struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(args), &a) == nil && len(a.Arguments) > 0 {
			args = string(a.Arguments)
		}
	}
	var body []string
	if r.changed != nil {
		for _, l := range r.changed.Diff {
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
	for _, l := range strings.Split(render.Sanitize(prettyArgs(args)), "\n") {
		for _, wl := range common.WrapText(common.ExpandTabs(l), max(inner-4, 10)) {
			body = append(body, "   "+wl)
		}
	}
	var answers []string
	opts := []string{"y allow once", "s allow this tool for the session"}
	switch {
	case r.rule() == "":
	case d.canPersist:
		opts = append(opts, "a always allow "+render.SanitizeLine(r.rule()))
	default:
		opts = append(opts, "a allow for the session (no config file to save to)")
	}
	opts = append(opts, "n/esc deny")
	answers = append(answers, "")
	for _, l := range common.WrapText(strings.Join(opts, " · "), max(inner-2, 10)) {
		answers = append(answers, " "+st.Dialog.Hint.Render(l))
	}

	// The arguments scroll within what the frame leaves them.
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(answers))
	content := append(append(append([]string(nil), head...), shown...), answers...)
	return frameDialog(d.com, "Allow this call?", content, w, maxH, -1)
}

// annotationText lists a tool's hints ("none" when it declares none).
func annotationText(ann *mcp.ToolAnnotations) string {
	if ann == nil {
		return "none declared (treated as able to change things)"
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
		return "none declared (treated as able to change things)"
	}
	return strings.Join(parts, " ")
}

// openPermission opens the dialog for a request that arrived with a turn's
// events.
func (m *Model) openPermission(req *permissionRequest) {
	src := ""
	if m.chat.permits != nil {
		src = m.chat.permits.source
	}
	m.dialogs.Push(&permissionDialog{com: m.com, req: req, opened: m.com.Now(), canPersist: src != ""})
}

// answerPermission replies to the model's goroutine, closes the dialog and
// reads on in the turn.
func (m *Model) answerPermission(a actionAnswerPermission) tea.Cmd {
	if d, ok := m.dialogs.Top().(*permissionDialog); ok && d.req == a.req {
		m.dialogs.Pop()
	}
	req, p := a.req, m.chat.permits
	key := req.rule()
	if key == "" {
		key = req.call.Name
	}
	var reply permissionReply
	var cmd tea.Cmd
	switch a.answer {
	case answerDeny:
		reply = permissionReply{decision: "denied by you", err: errors.New(deniedByUser)}
	case answerOnce:
		reply.decision = "allowed once by you"
	case answerSession:
		reply.decision = "allowed by you for this session"
		reply.approve = true
		if p != nil {
			p.grant(key, reply.decision)
		}
	case answerAlways:
		switch {
		case p == nil || p.source == "":
			reply.decision = "allowed by you for this session (no config file: not saved)"
			reply.approve = true
			if p != nil {
				p.grant(key, reply.decision)
			}
			cmd = common.ReportWarn("there is no config file of yours to save to, so " + render.SanitizeLine(key) + " is allowed for this session only")
		default:
			reply.decision = "always allowed by you: rule " + key
			reply.approve, reply.save = true, true
			p.grant(key, "allowed by rule "+key)
			p.addRule(key)
			cmd = common.Deliver(common.OwnerRoot, m.com.NewID(), persistAllowCmd(p.source, key))
		}
	}
	req.reply <- reply
	return tea.Batch(cmd, m.chat.resumeAfterAsk())
}

// handlePermissionSaved reports the write of an "always" rule.
func (m *Model) handlePermissionSaved(msg permissionSavedMsg) tea.Cmd {
	if msg.err != nil {
		m.chat.Error(fmt.Sprintf("could not save %s to %s: %v; it stays allowed for this session only", msg.rule, m.com.DisplayPath(msg.path), msg.err))
		return nil
	}
	return common.ReportInfo(fmt.Sprintf("saved: %s is always allowed (permissions.allow in %s)", msg.rule, m.com.DisplayPath(msg.path)))
}
