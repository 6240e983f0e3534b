package tui

import (
	"context"
	"encoding/json"

	"github.com/howl-mcp/howl/mcp"
)

// Runtime is everything the TUI asks of the MCP side: exactly the functions
// the model's meta-functions use, so what a person sees is what the model
// gets. *mcp.Runtime implements it. Only tea.Cmds call it, never Update or
// View: tests pass an implementation that fails on any use from either.
type Runtime interface {
	// Status is a snapshot of every configured server.
	Status() []mcp.Status
	// Catalog lists (or returns the cached) catalog of one server.
	Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error)
	// CallMeta runs a meta-function (mcp_read_<s>, mcp_invoke_<s>, ...) and
	// returns the bytes the model would receive.
	CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error)
	// GetPrompt gets and flattens a prompt.
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.PromptResult, error)
	// Reconnect restarts one server.
	Reconnect(name string) error
	// Declarations are the gated meta-function declarations of every ready
	// server: what the chat's model is offered.
	Declarations() []mcp.FunctionDecl
	// Complete asks a server to complete one prompt argument or template
	// variable, with the earlier-filled ones as context. It never starts a
	// server and is bounded by mcp.CompletionTimeout.
	Complete(ctx context.Context, server string, kind mcp.Kind, ref, arg, value string, filled map[string]string) (mcp.Completion, error)
}

var _ Runtime = (*mcp.Runtime)(nil)
