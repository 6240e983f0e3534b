package chat

import (
	"slices"

	"github.com/howl-mcp/howl/llm"
)

// LastRequest is the usage the provider reported for the last model
// request: its input tokens are the context that request carried.
func (c *Pane) LastRequest() llm.Usage { return c.lastReq }

// ContextMessages copies the conversation's messages for a command that
// measures them off Update (read them only while no turn runs).
func (c *Pane) ContextMessages() []llm.Message { return slices.Clone(c.conv.Messages) }
