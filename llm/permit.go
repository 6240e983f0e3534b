package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

// DecideFunc decides, before it runs, whether one tool call may, and says
// how it was decided ("read-only: allowed by default", "allowed by --allow
// demo:echo", "asked: allowed once"): the decision is recorded with the
// result (ToolResult.Decision) for the audit. An error refuses the call;
// its message is what the model reads after "not run: ".
type DecideFunc func(ctx context.Context, call ToolCall) (decision string, err error)

// Permissions are the rules for the model's tool calls.
type Permissions struct {
	// Allow lists "server:tool" and "server:*". A wildcard never covers a
	// tool that may be destructive (annotated so, or not annotated
	// destructiveHint false: the MCP default); naming the tool does.
	Allow []string `json:"allow,omitempty"`
	// ReadOnlyServers auto-allow the tools those servers annotate
	// readOnlyHint (and not destructiveHint); "*" means every server.
	ReadOnlyServers []string `json:"read_only,omitempty"`
	// AskReads: searches, describes, reads and prompts need a decision too
	// (they are allowed by default: they only look).
	AskReads bool `json:"ask_reads,omitempty"`
	// Everything allows every call (--yes). Unsafe: named so in --help.
	Everything bool `json:"-"`
	// AllowNow are rules given for this run (--allow): the person approves
	// them as they type them, so they are not checked against Approvals.
	AllowNow []string `json:"-"`
	// Approvals, when set, pins the definition of every tool a rule of
	// Allow names: once the server changes the tool, the rule no longer
	// applies until the person approves the new definition. The first use
	// of a rule pins what it saw.
	Approvals *Approvals `json:"-"`
}

// ParsePermissions reads the config's top-level "permissions" section.
func ParsePermissions(source string, extra map[string]json.RawMessage) (Permissions, error) {
	var p Permissions
	raw, ok := extra["permissions"]
	if !ok {
		return p, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%s: permissions: %v: write {\"allow\": [\"server:tool\", \"server:*\"], \"read_only\": [\"server\"], \"ask_reads\": false}", source, err)
	}
	for _, a := range p.Allow {
		if s, t, ok := strings.Cut(a, ":"); !ok || s == "" || t == "" {
			return p, fmt.Errorf("%s: permissions.allow: %q is not server:tool or server:*", source, a)
		}
	}
	return p, nil
}

// Catalogs is what the rules need to see a tool's annotations.
type Catalogs interface {
	ParseMetaCall(name string, args mcp.MetaArgs) (mcp.MetaCall, bool)
	Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error)
}

// Decider returns the DecideFunc for these rules. ask is called for a call
// the rules neither allow nor refuse (nil: refuse it, as a headless run
// must, saying how to allow it).
func (p Permissions) Decider(cats Catalogs, ask func(ctx context.Context, call ToolCall, why string) (string, error)) DecideFunc {
	return func(ctx context.Context, call ToolCall) (string, error) {
		ma, err := mcp.ParseMetaArgs(call.Name, []byte(call.Arguments))
		if err != nil {
			return refusedMalformed, err
		}
		mc, ok := cats.ParseMetaCall(call.Name, ma)
		if !ok {
			return "not a known function: allowed to fail with a teaching error", nil
		}
		tool := ma.Tool
		if mc.ReadOnly() && !p.AskReads {
			return "read-only: allowed by default", nil
		}
		if p.Everything {
			return "allowed by --yes", nil
		}
		var ann *mcp.ToolAnnotations
		var item mcp.CatalogItem
		found, unseen, unlisted := false, false, false
		if cat, err := cats.Catalog(ctx, mc.Server, false); err == nil {
			if item, found = cat.Lookup(mcp.KindTool, tool); found {
				ann = item.Annotations
			}
			// A tool the listing may have missed (a page failed, a bound was
			// reached) reaches the server: howl cannot see whether it is
			// destructive, so a server:* rule does not cover it.
			unseen = !found && mc.Prefix == mcp.PrefixInvoke && !cat.ToolsComplete()
		} else {
			unseen = mc.Prefix == mcp.PrefixInvoke
			unlisted = unseen
		}
		// The spec's default for a tool that is not read-only is
		// destructiveHint true: a wildcard covers only the tools the server
		// says are harmless (destructiveHint false, or readOnlyHint true).
		destructive := ann.MayDestroy() || unseen
		readOnly := ann.ReadOnly() && !unseen
		var changed *Change
		for _, a := range p.Allow {
			s, t, _ := strings.Cut(a, ":")
			if s != mc.Server {
				continue
			}
			if t == tool {
				how, ch := p.pinned(item, found, unseen)
				if ch == nil {
					return "allowed by rule " + a + how, nil
				}
				changed = ch
				continue
			}
			if t == "*" && !destructive && mc.Prefix == mcp.PrefixInvoke {
				return "allowed by rule " + a, nil
			}
		}
		for _, a := range p.AllowNow {
			s, t, _ := strings.Cut(a, ":")
			if s == mc.Server && (t == tool || t == "*" && !destructive && mc.Prefix == mcp.PrefixInvoke) {
				return "allowed by --allow " + a, nil
			}
		}
		if readOnly && (slices.Contains(p.ReadOnlyServers, mc.Server) || slices.Contains(p.ReadOnlyServers, "*")) {
			return fmt.Sprintf("allowed: %s is annotated read-only", tool), nil
		}
		why := fmt.Sprintf("%s on %s", cmp.Or(tool, call.Name), cmp.Or(mc.Server, "every server"))
		switch {
		case unlisted:
			why += " (howl could not list the server's tools: it cannot see what this one does)"
		case unseen:
			why += " (not in the server's tool listing, which is incomplete: howl cannot see what it does)"
		case destructive && (ann == nil || ann.DestructiveHint == nil):
			why += " (not annotated destructiveHint false: by the MCP default it may change or delete things)"
		case destructive:
			why += " (annotated destructive)"
		}
		if changed != nil {
			why += ": " + changed.Summary()
		}
		if ask != nil {
			return ask(ctx, call, why)
		}
		if changed != nil {
			return "denied: " + changed.Summary(), fmt.Errorf("the user allowed %s:%s, but the server has changed the tool since (%s), so that approval no longer applies: do without this call; the user can check the tool (howl describe %s %s) and approve it again (howl approve %s %s, or --allow %s:%s for one run)",
				mc.Server, tool, changed.Summary(), mc.Server, tool, mc.Server, tool, mc.Server, tool)
		}
		return "denied: nobody to ask", fmt.Errorf("the user did not allow %s: howl ask cannot ask, so it runs only calls the config or flags allow; do without this call, or tell the user to allow it with --allow %s:%s", why, mc.Server, cmp.Or(tool, "TOOL"))
	}
}

// pinned checks a tool a rule names against its approved definition. It
// returns how the rule applied (" (definition pinned)" the first time),
// or the change that stops it from applying. Without Approvals, or for a
// tool a complete listing lacks (the call is refused before the server),
// the rule applies as written; one an incomplete listing lacks (unseen)
// reaches the server with a definition nobody can check, so the person is
// asked. An approvals file that cannot be read stops it too: the person is
// asked rather than trusted blindly.
func (p Permissions) pinned(it mcp.CatalogItem, found, unseen bool) (string, *Change) {
	if p.Approvals == nil || !found && !unseen {
		return "", nil
	}
	if unseen {
		return "", &Change{Fields: []string{"(unknown: the tool is not in the server's tool listing, which is incomplete, so its definition cannot be checked)"}}
	}
	state, ch, err := p.Approvals.Check(it)
	switch {
	case err != nil:
		return "", &Change{Fields: []string{"(unknown: " + err.Error() + ")"}}
	case state == Unchanged:
		return "", nil
	case state == Changed:
		return "", &ch
	}
	if err := p.Approvals.Approve(it, true, time.Now()); err != nil {
		return " (its definition could not be pinned: " + err.Error() + ")", nil
	}
	return " (definition pinned)", nil
}

// refusedMalformed is the decision recorded for a call whose arguments
// are not exactly one JSON object: it is refused before any rule is
// consulted.
const refusedMalformed = "refused: the arguments are not exactly one JSON object"

// AppDecider is the rule for the tool calls an MCP App makes through its
// host: the tool the person opened the app with may run again; any other
// tool of the app's server is judged by decide exactly as the model's
// mcp_invoke call of it would be. A nil decide refuses every other call.
// The host only ever relays to the app's own server, so no rule here can
// reach another server's tools.
func AppDecider(decide DecideFunc, server, opened string) func(context.Context, string, map[string]any) (string, error) {
	return func(ctx context.Context, tool string, args map[string]any) (string, error) {
		if tool == opened && opened != "" {
			return "allowed: the tool you opened this app with", nil
		}
		if decide == nil && opened == "" {
			return "", errors.New("howl has no permission rules here, and this app was opened from its resource, not a tool: it may call no tools")
		}
		if decide == nil {
			return "", fmt.Errorf("howl has no permission rules here, so this app may call only %s", opened)
		}
		b, err := json.Marshal(map[string]any{"tool": tool, "arguments": args})
		if err != nil {
			return "", err
		}
		return decide(ctx, ToolCall{ID: "app", Name: mcp.PrefixInvoke + mcp.FunctionSuffix(server), Arguments: string(b)})
	}
}
