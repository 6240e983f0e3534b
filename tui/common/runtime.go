package common

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
	// HoldsSpill reports whether path is a file howl spilled (the viewer
	// opens no other path a spill pointer names).
	HoldsSpill(path string) bool
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
	// Subscribe and Unsubscribe ask a server to report (or stop reporting)
	// changes to one resource; changes arrive as mcp.EventResourceUpdated.
	Subscribe(ctx context.Context, server, uri string) error
	Unsubscribe(ctx context.Context, server, uri string) error
	// SetLogLevel asks a server for log messages at level and above.
	SetLogLevel(ctx context.Context, server, level string) error
	// Login reconnects a remote server through its OAuth login.
	Login(name string) error
	// Tasks are the tasks howl is waiting on; Cancel cancels the request
	// (or task) with the given progress token at its server.
	Tasks() []mcp.RunningTask
	Cancel(token string) bool
	// Stderr is the tail of a stdio server's standard error.
	Stderr(name string) []byte
	// Roots are the directories offered to servers that ask (nil: none);
	// SetRoots replaces them and tells every ready server.
	Roots() []string
	SetRoots(ctx context.Context, dirs []string) error
	// SetTracing turns on or off an mcp.EventTrace for every request.
	SetTracing(on bool)
	// Switch switches a server (no tools) or some of its tools off or on,
	// at once and in the entry's config file, whose path it returns (""
	// when the entry comes from no file).
	Switch(name string, tools []string, off bool) (file string, err error)
}

var _ Runtime = (*mcp.Runtime)(nil)
