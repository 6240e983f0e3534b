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
	reply   chan permissionReply
}

// Rule is the "server:tool" rule that would allow the call ("" when the
// call names no tool).
func (r *PermissionRequest) Rule() string {
	if r.Tool == "" {
		return ""
	}
	return r.Server + ":" + r.Tool
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
	// session maps "server:tool" (or a function name) to the decision that
	// allowed it for the rest of the session.
	session map[string]string
}

func NewPermits(p llm.Permissions, source string) *Permits {
	return &Permits{rules: p, source: source, session: map[string]string{}}
}

// decider is the DecideFunc for one turn: asks reach the chat through asks.
func (p *Permits) decider(cats llm.Catalogs, asks chan<- *PermissionRequest) llm.DecideFunc {
	p.mu.Lock()
	rules := p.rules
	rules.Allow = append([]string(nil), p.rules.Allow...)
	p.mu.Unlock()
	return rules.Decider(cats, func(ctx context.Context, call llm.ToolCall, why string) (string, error) {
		return p.ask(ctx, cats, asks, call, why)
	})
}

// ask puts one call to the person and waits for the answer or ctx.
func (p *Permits) ask(ctx context.Context, cats llm.Catalogs, asks chan<- *PermissionRequest, call llm.ToolCall, why string) (string, error) {
	// The decider refused arguments this reading cannot take.
	ma, _ := mcp.ParseMetaArgs(call.Name, []byte(call.Arguments))
	mc, _ := cats.ParseMetaCall(call.Name, ma)
	req := &PermissionRequest{Call: call, Why: why, Server: mc.Server, reply: make(chan permissionReply, 1)}
	if mc.Prefix == mcp.PrefixInvoke {
		req.Tool = ma.Tool
	}
	key := req.Rule()
	if key == "" {
		key = call.Name
	}
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
	if ok && req.Changed != nil {
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
func (p *Permits) grant(key, decision string) {
	p.mu.Lock()
	p.session[key] = decision
	p.mu.Unlock()
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
	key := req.Rule()
	if key == "" {
		key = req.Call.Name
	}
	var reply permissionReply
	var cmd tea.Cmd
	switch answer {
	case AnswerDeny:
		reply = permissionReply{decision: "denied by you", err: errors.New(DeniedByUser)}
	case AnswerOnce:
		reply.decision = "allowed once by you"
	case AnswerSession:
		reply.decision = "allowed by you for this session"
		reply.approve = true
		if p != nil {
			p.grant(key, reply.decision)
		}
	case AnswerAlways:
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
			cmd = common.Deliver(common.OwnerChat, c.com.NewID(), persistAllowCmd(p.source, key))
		}
	}
	req.reply <- reply
	return tea.Batch(cmd, c.resumeAfterAsk())
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
