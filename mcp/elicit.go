package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ElicitRequest is a server asking the person for input mid-call: a form
// (a JSON Schema of flat properties) or a URL to visit.
type ElicitRequest struct {
	// Mode is "form" or "url".
	Mode    string          `json:"mode"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"requested_schema,omitempty"`
	URL     string          `json:"url,omitempty"`
}

// The answers a person can give.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResponse is the person's answer.
type ElicitResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicitor answers elicitation requests. It runs on the connection's
// request goroutine and may block while a person decides; it must honour ctx.
type Elicitor func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error)

// ElicitWithDefaults answers a form with the schema's default values, and
// declines URL requests (nobody is there to visit them) and forms whose
// required fields have no default: accepting those would send the server
// an answer its own schema rejects.
func ElicitWithDefaults(_ context.Context, _ string, req ElicitRequest) (ElicitResponse, error) {
	if req.Mode == "url" {
		return ElicitResponse{Action: ElicitDecline}, nil
	}
	content := SchemaDefaults(req.Schema)
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(req.Schema, &s)
	for _, r := range s.Required { // a required name with no property counts too
		if _, ok := content[r]; !ok {
			return ElicitResponse{Action: ElicitDecline}, nil
		}
	}
	return ElicitResponse{Action: ElicitAccept, Content: content}, nil
}

// ElicitDeclineAll declines every request.
func ElicitDeclineAll(context.Context, string, ElicitRequest) (ElicitResponse, error) {
	return ElicitResponse{Action: ElicitDecline}, nil
}

// SchemaDefaults collects the "default" of each property of an object
// schema (read by SchemaProps, the one reader).
func SchemaDefaults(schema json.RawMessage) map[string]any {
	out := map[string]any{}
	for _, p := range SchemaProps(schema) {
		var v any
		if p.DefaultRaw != nil && json.Unmarshal(p.DefaultRaw, &v) == nil {
			out[p.Name] = v
		}
	}
	return out
}

// elicitAdapter turns an Elicitor into mcp-go's handler for one server.
type elicitAdapter struct {
	server string
	fn     Elicitor
}

func (a elicitAdapter) Elicit(ctx context.Context, r mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	req := ElicitRequest{Mode: r.Params.Mode, Message: r.Params.Message}
	if req.Mode == "" {
		req.Mode = "form"
	}
	if r.Params.RequestedSchema != nil {
		b, err := json.Marshal(r.Params.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("elicitation from %s: unreadable schema: %w", a.server, err)
		}
		req.Schema = b
	}
	req.URL = r.Params.URL
	resp, err := a.fn(ctx, a.server, req)
	if err != nil {
		return nil, err
	}
	res := &mcpgo.ElicitationResult{}
	res.Action = mcpgo.ElicitationResponseAction(resp.Action)
	if resp.Action == ElicitAccept {
		res.Content = resp.Content
	}
	return res, nil
}
