package llm

import "time"

// Role says who a message is from.
type Role string

// The roles of a conversation. The system prompt is not a message: it is
// Conversation.System, rebuilt for every run from the servers that are ready.
const (
	// RoleUser is the person (or a prompt they submitted).
	RoleUser Role = "user"
	// RoleAssistant is the model: text, and the tool calls it asked for.
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the preceding assistant message's
	// tool calls, one per call, in the same order.
	RoleTool Role = "tool"
)

// Conversation is the whole state of a chat as plain data: it marshals to
// JSON as is, so a later issue can persist it and the TUI can draw it without
// knowing any provider's types. A Conversation is not safe for concurrent
// use: while Agent.Run holds it, read the events instead.
type Conversation struct {
	// System is the system prompt the last run sent (see SystemPrompt).
	System string `json:"system,omitempty"`
	// Messages, oldest first.
	Messages []Message `json:"messages"`
}

// Message is one turn.
type Message struct {
	Role Role `json:"role"`
	// Text is what the user or the model wrote.
	Text string `json:"text,omitempty"`
	// Reasoning is the model's reasoning text, where the provider streams
	// one. It is kept for display and not sent back to the model.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are the functions an assistant message asked for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolResults answer the previous message's ToolCalls (RoleTool only).
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Model is "provider/model" for assistant messages.
	Model string `json:"model,omitempty"`
	// Usage is the token count of the request that produced an assistant message.
	Usage *Usage `json:"usage,omitempty"`
	// Truncated marks an assistant answer the model cut off at its output
	// token limit.
	Truncated bool `json:"truncated,omitempty"`
	// OverMaxBytes marks an assistant answer howl stopped reading at
	// MaxReplyBytes.
	OverMaxBytes bool `json:"over_max_bytes,omitempty"`
	// Attachments are the resources the person's @-mentions attached to a
	// user message, each a section of Text, so a reopened conversation
	// shows them apart from what the person typed.
	Attachments []Attachment `json:"attachments,omitempty"`
	Time        time.Time    `json:"time"`
}

// Attachment is one resource attached to a user message: Name is the
// mention ("@server:uri"); its section of Text starts at Section (its
// header line), and the resource's text is Text[Body:End].
type Attachment struct {
	Name    string `json:"name"`
	Section int    `json:"section"`
	Body    int    `json:"body"`
	End     int    `json:"end"`
}

// ToolCall is one function call the model asked for.
type ToolCall struct {
	// ID is the provider's call id; the result carries it back.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON text the model wrote, kept verbatim (a model
	// may write invalid JSON; the call then fails with a teaching error).
	Arguments string `json:"arguments"`
}

// ToolResult is what one call returned to the model.
type ToolResult struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// IsError: the call failed, was refused, or the tool reported an error;
	// Content then says why, in words the model can act on.
	IsError bool `json:"is_error,omitempty"`
	// Content is exactly the text the model receives: the bytes
	// mcp.Runtime.CallMeta returned (already bounded by the render policy),
	// or the error message.
	Content string `json:"content"`
	// Summary is one sanitized line for a person (coverage or error first).
	Summary  string        `json:"summary"`
	Duration time.Duration `json:"duration_ns"`
	// Decision says how the call was allowed or refused, for the audit
	// ("read-only: allowed by default", "allowed by rule demo:echo",
	// "denied: ..."); empty when no decision hook ran.
	Decision string `json:"decision,omitempty"`
	// Denied: the decision refused the call and it never ran.
	Denied bool `json:"denied,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// NewConversation starts an empty conversation.
func NewConversation() *Conversation { return &Conversation{Messages: []Message{}} }

// AddUser appends the person's turn.
func (c *Conversation) AddUser(text string) {
	c.Messages = append(c.Messages, Message{Role: RoleUser, Text: text, Time: time.Now()})
}

// Last returns the last message, or false when there is none.
func (c *Conversation) Last() (Message, bool) {
	if len(c.Messages) == 0 {
		return Message{}, false
	}
	return c.Messages[len(c.Messages)-1], true
}

// Answer returns the text of the last assistant message, or "".
func (c *Conversation) Answer() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].Role == RoleAssistant {
			return c.Messages[i].Text
		}
	}
	return ""
}

// Clone returns a deep copy, so a UI can keep a snapshot while a run goes on.
func (c *Conversation) Clone() *Conversation {
	out := &Conversation{System: c.System, Messages: make([]Message, len(c.Messages))}
	for i, m := range c.Messages {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		m.ToolResults = append([]ToolResult(nil), m.ToolResults...)
		m.Attachments = append([]Attachment(nil), m.Attachments...)
		if m.Usage != nil {
			u := *m.Usage
			m.Usage = &u
		}
		out.Messages[i] = m
	}
	return out
}
