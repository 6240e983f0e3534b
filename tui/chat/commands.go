package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
)

// command is one row of the command table. `.help`, the suggestion for a
// mistyped name and tab completion all derive from this table.
type Command struct {
	Name string
	// Args is the usage after the name, e.g. "<server> <name> [key=value ...]".
	Args string
	Desc string
	// When says when the command applies ("" means always).
	When string
}

// listKinds are what `.list` lists.
var ListKinds = []string{"prompts", "tools", "resources", "templates", "servers"}

// mcpActions are `.mcp`'s subcommands.
var MCPActions = []string{"enable", "disable", "reconnect", "auth", "decline", "ask", "reload"}

// Commands is the table of the chat's `.` commands, as data: `.help`, the
// suggestion for a mistyped name and tab completion derive from it; the
// root runs them.
func Commands() []Command {
	return []Command{
		{".prompt", "<server> <name> [key=value ...]", "get a prompt and send it as your message; missing required arguments open a form", "a ready server with prompts"},
		{".list", "prompts|tools|resources|templates|servers", "list what the enabled servers offer", ""},
		{".read", "<server> <uri> [key=value ...]", "read a resource (or a template with its variables) in the viewer", "a ready server with resources"},
		{".call", "<server> <tool> [key=value ...]", "call a tool and open its result in the viewer", "a ready server with tools"},
		{".mcp", "[enable|disable <server> [tool ...] | reconnect|auth|decline|ask <server> | reload]", "list the servers; switch one (or some of its tools) off or on, saved in its config file; restart it, log in to it (auth), or decline its questions unasked until ask; reload reads the config files again and applies what changed", ""},
		{".loglevel", "<server> <level>", "ask a server for log messages at level and above (" + strings.Join(mcp.LogLevels, ", ") + "); ctrl+l shows them", "a ready server with logging"},
		{".tasks", "[cancel <task id>]", "list the tasks howl is waiting on, or cancel one", ""},
		{".roots", "[add|remove <dir>]", "list the directories offered to servers that ask for roots, or change them (servers are told)", ""},
		{".model", "<provider/name>", "switch the chat's model, e.g. .model openai/gpt-4.1", "no turn running"},
		{".clear", "", "start a new conversation (the old one stays in its session) and empty the transcript", "no turn running"},
		{".sessions", "", "list, open, search, rename and delete saved conversations (ctrl+r)", ""},
		{".export", "<file.md>", "write the current session as Markdown", "a saved turn"},
		{".context", "", "what the next model request carries (system prompt, functions, conversation, each tool result) in tokens and bytes, and what howl's content policy saved", "no turn running"},
		{".help", "", "list these commands", ""},
		{".quit", "", "quit howl", ""},
	}
}

// findCommand looks a command up by its exact name.
func FindCommand(name string) (Command, bool) {
	for _, c := range Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// suggestCommand is the closest command name to a mistyped one: a prefix
// match first, then the smallest edit distance (at most 3).
func SuggestCommand(name string) string {
	best, bestD := "", 4
	for _, c := range Commands() {
		if name != "." && strings.HasPrefix(c.Name, name) {
			return c.Name
		}
		if d := mcp.EditDistance(name, c.Name); d < bestD {
			best, bestD = c.Name, d
		}
	}
	return best
}

// usage is the usage line of a command, for errors.
func Usage(name string) string {
	c, _ := FindCommand(name)
	return strings.TrimSpace(c.Name + " " + c.Args)
}

// hiddenTools is the Runtime the chat's model sees: servers hidden with
// `.mcp disable` have no declarations and their calls are refused.
type hiddenTools struct {
	ModelRuntime
	hidden map[string]bool
}

// Declarations leaves out the hidden servers' functions, in either shape.
func (h hiddenTools) Declarations() []mcp.FunctionDecl {
	return mcp.WithoutServers(h.ModelRuntime.Declarations(), h.names())
}

// CallMeta refuses the hidden servers' functions; the shared set's calls
// do not reach them either (mcp.WithHiddenServers).
func (h hiddenTools) CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	if h.isHidden(name) {
		return nil, fmt.Errorf("%s belongs to a server the person disabled for this session", name)
	}
	return h.ModelRuntime.CallMeta(mcp.WithHiddenServers(ctx, h.names()), name, args)
}

func (h hiddenTools) names() []string {
	out := make([]string, 0, len(h.hidden))
	for s := range h.hidden {
		out = append(out, s)
	}
	return out
}

// isHidden reports whether fn is a hidden server's own function.
func (h hiddenTools) isHidden(fn string) bool {
	for s := range h.hidden {
		if len(mcp.FunctionsFor([]mcp.FunctionDecl{{Name: fn}}, s)) > 0 {
			return true
		}
	}
	return false
}

// VisibleTools is what the chat's model reaches of rt: every server but
// the hidden ones (`.mcp disable`), whose functions are neither declared
// nor run.
func VisibleTools(rt ModelRuntime, hidden map[string]bool) llm.Tools {
	return hiddenTools{ModelRuntime: rt, hidden: hidden}
}

// Runtime is what the chat's own requests ask of the MCP side, from
// commands only: catalogs and completions (completion), and the reads of
// @-mentions.
type Runtime interface {
	Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error)
	Complete(ctx context.Context, server string, kind mcp.Kind, ref, arg, value string, filled map[string]string) (mcp.Completion, error)
	CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error)
}

// ModelRuntime is what the chat's model reaches, from its own goroutine:
// llm.Tools (the meta-functions' declarations and calls, the servers'
// states), and, for the permission rules, the catalogs through
// llm.Catalogs when it offers them.
type ModelRuntime = llm.Tools
