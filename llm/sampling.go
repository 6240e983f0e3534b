package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Sample answers a server's sampling/createMessage through model (call it
// only after the person approved the request): the messages as
// the conversation, the system prompt, maxTokens as the output bound, no
// tools.
func Sample(ctx context.Context, model Model, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	p := req.CreateMessageParams
	lr := Request{System: p.SystemPrompt, MaxOutputTokens: int64(p.MaxTokens)}
	for _, m := range p.Messages {
		role := RoleUser
		if m.Role == mcpgo.RoleAssistant {
			role = RoleAssistant
		}
		lr.Messages = append(lr.Messages, Message{Role: role, Text: SamplingText(m.Content)})
	}
	reply, err := model.Stream(ctx, lr, func(Event) {})
	if err != nil {
		return nil, &SampleError{Model: model.Name(), Err: err}
	}
	stop := "endTurn"
	if reply.Truncated || reply.OverMaxBytes {
		stop = "maxTokens"
	}
	return &mcpgo.CreateMessageResult{
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent(reply.Text)},
		Model:           model.Name(),
		StopReason:      stop,
	}, nil
}

// SampleError is a failed sampling answer. Its Error is what the server
// that asked hears: the model and the kind of failure only, because the
// model's error names the endpoint (a base_url the person wrote, with any
// credentials in it) and quotes the provider's own message, which are the
// person's to see, not a server's. Err, the whole of it, is for the
// person (errors.As finds the *Error).
type SampleError struct {
	Model string
	Err   error
}

func (e *SampleError) Error() string {
	kind := "failed"
	var le *Error
	if errors.As(e.Err, &le) && le.Kind != "" {
		kind = string(le.Kind)
	}
	return fmt.Sprintf("the chat model %s could not answer (%s); the person running howl sees why", e.Model, kind)
}

func (e *SampleError) Unwrap() error { return e.Err }

// SamplingText is a sampling message's content as text: text blocks as
// they are, anything else named by its type.
func SamplingText(content any) string {
	raw, err := json.Marshal(content)
	if err != nil {
		return "[unreadable content]"
	}
	type block struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MIMEType string `json:"mimeType"`
	}
	var blocks []block
	var one block
	if json.Unmarshal(raw, &one) == nil && one.Type != "" {
		blocks = []block{one}
	} else {
		_ = json.Unmarshal(raw, &blocks)
	}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.MIMEType != "":
			parts = append(parts, "["+b.Type+" "+b.MIMEType+"]")
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}
