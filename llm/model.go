package llm

import (
	"context"

	"github.com/howl-mcp/howl/mcp"
)

// Model is one language model: the small interface the loop needs. NewModel
// returns the providers' implementation; anything else that streams a turn
// can stand behind it.
type Model interface {
	// Name is "provider/model".
	Name() string
	// Stream sends one request and returns the assistant's complete turn.
	// While the turn streams it calls emit with TextDelta and
	// ReasoningDelta events, in order, from the calling goroutine. Errors
	// are *Error. Cancelling ctx ends the request at once.
	Stream(ctx context.Context, req Request, emit func(Event)) (*Reply, error)
}

// Request is one model request.
type Request struct {
	System   string
	Messages []Message
	// Tools are the function declarations on offer (the gated meta-functions).
	Tools []mcp.FunctionDecl
	// MaxOutputTokens bounds the reply (0: the provider's default).
	MaxOutputTokens int64
}

// Reply is one assistant turn.
type Reply struct {
	Text      string
	Reasoning string
	ToolCalls []ToolCall
	Usage     Usage
	// Truncated: the model stopped at its output token limit.
	Truncated bool
	// OverMaxBytes: the reply passed MaxReplyBytes and howl stopped
	// reading it; Text and Reasoning are what came up to the bound, and
	// ToolCalls is empty (a cut reply's calls are not run).
	OverMaxBytes bool
}
