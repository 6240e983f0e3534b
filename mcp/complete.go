package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// CompletionTimeout bounds every completion request: completion runs as a
// person types, and a slow server must never hold a keystroke.
const CompletionTimeout = 2 * time.Second

// MaxCompletions is the spec's limit on one completion answer.
const MaxCompletions = 100

// Completion is a server's suggestions for one argument value.
type Completion struct {
	Values []string `json:"values"`
	// Total is how many the server has (null when it did not say).
	Total   *int `json:"total"`
	HasMore bool `json:"has_more"`
	// TooLong counts the values left out for being longer than
	// MaxCompletionValueBytes.
	TooLong int `json:"too_long,omitempty"`
}

// MaxCompletionValueBytes bounds one completion value: a value is an
// argument a person picks from a popup (a name, a path, a language), and
// a server answering 100 values of a megabyte each would otherwise keep
// 100 MB in the popup. A longer value is left out (Completion.TooLong).
const MaxCompletionValueBytes = 4 << 10

// Complete asks a server for values of one argument of a prompt
// (kind KindPrompt, ref the prompt's name) or a resource template's
// variable (KindTemplate, ref the template). Earlier-filled arguments go as
// context. It never starts a server, it is bounded by CompletionTimeout,
// and a server without the completions capability gives an empty answer.
func (r *Runtime) Complete(ctx context.Context, server string, kind Kind, ref, arg, value string, filled map[string]string) (Completion, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return Completion{}, err
	}
	if !conn.features.Completions {
		return Completion{Values: []string{}}, nil
	}
	req := mcpgo.CompleteRequest{}
	switch kind {
	case KindPrompt:
		req.Params.Ref = mcpgo.PromptReference{Type: "ref/prompt", Name: ref}
	case KindTemplate, KindResource:
		req.Params.Ref = mcpgo.ResourceReference{Type: "ref/resource", URI: ref}
	default:
		return Completion{}, fmt.Errorf("completion is for prompt arguments and template variables, not %s", kind)
	}
	req.Params.Argument = mcpgo.CompleteArgument{Name: arg, Value: value}
	req.Params.Context = mcpgo.CompleteContext{Arguments: filled}
	ctx, cancel := context.WithTimeout(ctx, CompletionTimeout)
	defer cancel()
	raw, err := conn.rawResult(ctx, "completion/complete", func(ctx context.Context) error {
		_, err := conn.client.Complete(ctx, req)
		return err
	})
	if err != nil {
		return Completion{}, err
	}
	var res struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   *int     `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return Completion{}, &ServerError{Server: server, Method: "completion/complete", Err: err}
	}
	c := Completion{Values: res.Completion.Values, Total: res.Completion.Total, HasMore: res.Completion.HasMore}
	kept := c.Values[:0] // the long ones first, so they take no place of the others'
	for _, v := range c.Values {
		if len(v) > MaxCompletionValueBytes {
			c.TooLong++
			continue
		}
		kept = append(kept, v)
	}
	clear(c.Values[len(kept):]) // the long ones are not kept alive by the array
	c.Values = kept
	if len(c.Values) > MaxCompletions {
		c.Values, c.HasMore = c.Values[:MaxCompletions], true
	}
	if c.Values == nil {
		c.Values = []string{}
	}
	return c, nil
}
