package chat

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// DeniedByUser is what the model reads (after "not run: ") for a call the
// person denied.
const DeniedByUser = "the user denied this call"

// permissionAnswer is the person's answer to one permission request.
type PermissionAnswer int

const (
	AnswerDeny PermissionAnswer = iota
	AnswerOnce
	AnswerSession
	AnswerAlways
)

// permissionRequest is one call the rules did not allow, waiting for the
// person. The model's goroutine waits on reply (buffered: Update never
// blocks answering).
type PermissionRequest struct {
	Call   llm.ToolCall
	Why    string
	Server string
	// Tool is the invoked tool ("" for a call that is not mcp_invoke), and
	// Item its catalog entry when the server lists it.
	Tool        string
	Item        *mcp.CatalogItem
	Annotations *mcp.ToolAnnotations
	// changed: the person approved this tool before, and the server has
	// changed it since (what changed, to show).
	Changed *llm.Change
	// App is the ui:// interface of the MCP App that makes the call (""
	// for the model's calls): its answer does not read on in a turn.
	App   string
	reply chan permissionReply
}

// Rule is the "server:tool" rule that would allow the call ("" when the
// call names no tool).
func (r *PermissionRequest) Rule() string {
	if r.Tool == "" {
		return ""
	}
	return r.Server + ":" + r.Tool
}

// ruleOrName is the rule that would allow the call, or for a call naming
// no tool its function: what a grant is for.
func (r *PermissionRequest) ruleOrName() string {
	if rule := r.Rule(); rule != "" {
		return rule
	}
	return r.Call.Name
}

// sessionKey is what a "for this session" answer to r allows: its
// ruleOrName, for the same asker only, and for a call naming no tool on
// the server it was asked about (a shared function's name, mcp_read,
// names none). An app's grant is that app's: the model, or another app,
// is still asked, since the person answered about a button in one page,
// not about every caller of the tool. A grant under the bare ruleOrName
// (an "always" answer) is every caller's.
func (r *PermissionRequest) sessionKey() string {
	what := r.ruleOrName()
	if r.Tool == "" {
		what += " on " + r.Server
	}
	if r.App != "" {
		return "app " + r.App + " " + what
	}
	return "model " + what
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
type Permits struct {
	mu     sync.Mutex
	rules  llm.Permissions
	source string // the config file ("" in demo mode: nothing persists)
	// session maps a sessionKey (or a bare ruleOrName, for an "always"
	// answer) to what allowed it for the rest of the session.
	session map[string]sessionGrant
}

// sessionGrant is a "for this session" answer: the decision, and the
// fingerprint of the tool's definition it was given for ("" when the
// server did not list the tool). It is the asker's alone: a changed tool
// it covers is not approved for anyone else (Approvals are every
// caller's), and it lapses when the tool changes again.
type sessionGrant struct {
	decision, def string
}

func NewPermits(p llm.Permissions, source string) *Permits {
	return &Permits{rules: p, source: source, session: map[string]sessionGrant{}}
}

// decider is the DecideFunc for one turn: asks reach the chat through asks.
func (p *Permits) decider(cats llm.Catalogs, asks chan<- *PermissionRequest) llm.DecideFunc {
	return p.deciderFor(cats, "", func(ctx context.Context, req *PermissionRequest) error {
		select {
		case asks <- req:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// deciderFor is the running rules, as they are now, applied to the calls
// of app ("" for the model): the rest is put to the person through post.
func (p *Permits) deciderFor(cats llm.Catalogs, app string, post func(context.Context, *PermissionRequest) error) llm.DecideFunc {
	return p.snapshot().Decider(cats, func(ctx context.Context, call llm.ToolCall, why string) (string, error) {
		return p.ask(ctx, cats, post, app, call, why)
	})
}

// snapshot is a copy of the running rules, for one turn or one app.
func (p *Permits) snapshot() llm.Permissions {
	p.mu.Lock()
	defer p.mu.Unlock()
	rules := p.rules
	rules.Allow = append([]string(nil), p.rules.Allow...)
	return rules
}

// ask puts one call to the person through post and waits for the answer
// or ctx; app is the asking MCP App ("" for the model).
func (p *Permits) ask(ctx context.Context, cats llm.Catalogs, post func(context.Context, *PermissionRequest) error, app string, call llm.ToolCall, why string) (string, error) {
	// The decider refused arguments this reading cannot take.
	ma, _ := mcp.ParseMetaArgs(call.Name, []byte(call.Arguments))
	mc, _ := cats.ParseMetaCall(call.Name, ma)
	req := &PermissionRequest{Call: call, Why: why, Server: mc.Server, App: app, reply: make(chan permissionReply, 1)}
	if mc.Prefix == mcp.PrefixInvoke {
		req.Tool = ma.Tool
	}
	key := req.sessionKey()
	if req.Tool != "" {
		if cat, err := cats.Catalog(ctx, mc.Server, false); err == nil {
			if it, ok := cat.Lookup(mcp.KindTool, req.Tool); ok {
				req.Item, req.Annotations = &it, it.Annotations
			}
		}
	}
	approvals := p.approvals()
	if req.Item != nil && approvals != nil {
		if state, ch, err := approvals.Check(*req.Item); err == nil && state == llm.Changed {
			req.Changed = &ch
		}
	}
	p.mu.Lock()
	granted, ok := p.session[key]
	if !ok { // an "always" answer given this session, to any caller
		key = req.ruleOrName()
		granted, ok = p.session[key]
	}
	if ok && req.Changed != nil && (granted.def == "" || granted.def != fingerprintOf(req.Item)) {
		delete(p.session, key) // granted for what the tool was, not what it is now
		ok = false
	}
	p.mu.Unlock()
	if ok {
		return granted.decision, nil
	}
	if err := post(ctx, req); err != nil {
		return "not asked", err
	}
	select {
	case r := <-req.reply:
		if r.approve && req.Item != nil && approvals != nil {
			if err := approvals.Approve(*req.Item, r.save, time.Now()); err != nil {
				r.decision += " (its definition was not saved: " + err.Error() + "; howl asks again next time)"
			}
		}
		return r.decision, r.err
	case <-ctx.Done():
		return "cancelled while asking", ctx.Err()
	}
}

// approvals are the rules' pinned tool definitions (nil: none kept).
func (p *Permits) approvals() *llm.Approvals {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rules.Approvals
}

// grant allows key for the rest of the session with decision.
func (p *Permits) grant(key, decision string, it *mcp.CatalogItem) {
	p.mu.Lock()
	p.session[key] = sessionGrant{decision: decision, def: fingerprintOf(it)}
	p.mu.Unlock()
}

// fingerprintOf is the fingerprint of a listed tool's definition, "" for
// none.
func fingerprintOf(it *mcp.CatalogItem) string {
	if it == nil {
		return ""
	}
	return mcp.DefinitionOf(*it).Fingerprint()
}

// addRule adds a persisted rule to the running rules.
func (p *Permits) addRule(rule string) {
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

// AnswerPermission replies to the model's goroutine and reads on in the
// turn; an "always" answer is saved to the config file in a command.
func (c *Pane) AnswerPermission(req *PermissionRequest, answer PermissionAnswer) tea.Cmd {
	p := c.permits
	key, rule := req.sessionKey(), req.ruleOrName()
	var reply permissionReply
	var cmd tea.Cmd
	switch answer {
	case AnswerDeny:
		reply = permissionReply{decision: "denied by you", err: errors.New(DeniedByUser)}
	case AnswerOnce:
		reply.decision = "allowed once by you"
	case AnswerSession:
		// The asker's alone: the grant keeps the definition it was given
		// for, and no approval is recorded, since an approval is every
		// caller's (an app's "s" would let the model run a changed tool,
		// and the model's an app).
		reply.decision = "allowed by you for this session"
		if p != nil {
			p.grant(key, reply.decision, req.Item)
		}
	case AnswerAlways:
		switch {
		case p == nil || p.source == "":
			reply.decision = "allowed by you for this session (no config file: not saved)"
			reply.approve = true
			if p != nil {
				p.grant(key, reply.decision, req.Item)
			}
			cmd = common.ReportWarn("there is no config file of yours to save to, so " + render.SanitizeLine(rule) + " is allowed for this session only")
		default:
			// A saved rule is the config's, for every caller: the dialog
			// offers it as "always allow server:tool". The callers already
			// running (this turn, the open apps) hold copies of the rules
			// from before it, so it is granted for them by its bare name.
			reply.decision = "always allowed by you: rule " + rule
			reply.approve, reply.save = true, true
			p.grant(rule, "allowed by rule "+rule, req.Item)
			p.addRule(rule)
			cmd = common.Deliver(common.OwnerChat, c.com.NewID(), persistAllowCmd(p.source, rule))
		}
	}
	req.reply <- reply
	if req.App != "" {
		return cmd // an app's call: the chat's turn, if any, is not waiting on it
	}
	return tea.Batch(cmd, c.resumeAfterAsk())
}

// AppDecider is the chat's rules applied to the calls an MCP App (its
// interface app) makes: what the rules allow runs, what they refuse is
// refused, and the rest is put to the person through post (the answer
// comes back through AnswerPermission, as the model's do). Nil when the
// chat has no rules to apply (then decide, the fixed rule, if any).
func (c *Pane) AppDecider(app string, post func(context.Context, *PermissionRequest) error) llm.DecideFunc {
	cats, ok := c.com.ModelRT.(llm.Catalogs)
	if !ok || c.permits == nil {
		return c.decide
	}
	return c.permits.deciderFor(cats, app, post)
}

// handlePermissionSaved reports the write of an "always" rule.
func (c *Pane) handlePermissionSaved(msg permissionSavedMsg) tea.Cmd {
	if msg.err != nil {
		c.Error(fmt.Sprintf("could not save %s to %s: %v; it stays allowed for this session only", msg.rule, c.com.DisplayPath(msg.path), msg.err))
		return nil
	}
	return common.ReportInfo(fmt.Sprintf("saved: %s is always allowed (permissions.allow in %s)", msg.rule, c.com.DisplayPath(msg.path)))
}

// NewPermissionRequest is a request to run call on server (tool "" for a
// call that is not mcp_invoke), as the rules put it to the person; its
// answer goes to whoever waits on it (nobody, for one built here).
func NewPermissionRequest(call llm.ToolCall, server, tool string) *PermissionRequest {
	return &PermissionRequest{Call: call, Server: server, Tool: tool, reply: make(chan permissionReply, 1)}
}
