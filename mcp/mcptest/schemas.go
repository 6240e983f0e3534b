// Package mcptest provides hostile MCP data for tests: input schemas and a
// server that make a client's checks and error messages expensive, for
// fixture servers that tests run over a real transport (as
// net/http/httptest does for handlers).
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The sizes of the hostile data.
const (
	// HugeEnum is how many values EnumSchema's "colour" may take.
	HugeEnum = 200_000
	// ManyArgs is how many required arguments the prompt "many-args" has.
	ManyArgs = 5_000
	// HugeServerMessage is the size of the error reading hostile://fails.
	HugeServerMessage = 2 << 20
)

// HugeToolName is a tool name of over a megabyte that a near miss
// ("huge-tool") would quote.
var HugeToolName = "huge-tool-" + strings.Repeat("x", 1<<20)

// ExponentialSchema is an inputSchema whose definitions d0…dn each say
// allOf [d(k+1), d(k+1)], with "a" a d0: a validator applies dn 2^n times
// to the value of "a", and every application fails for a string.
func ExponentialSchema(n int) json.RawMessage {
	defs := map[string]any{fmt.Sprintf("d%d", n): map[string]any{"type": "integer"}}
	for k := 0; k < n; k++ {
		ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", k+1)}
		defs[fmt.Sprintf("d%d", k)] = map[string]any{"allOf": []any{ref, ref}}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs,
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/d0"}}})
	return b
}

// EnumSchema is an inputSchema whose required "colour" is one of HugeEnum
// values, "c000000" to "c199999" (2 MB listed in full).
func EnumSchema() json.RawMessage {
	colours := make([]string, HugeEnum)
	for i := range colours {
		colours[i] = fmt.Sprintf("c%06d", i)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"colour"},
		"properties": map[string]any{"colour": map[string]any{"type": "string", "enum": colours}}})
	return b
}

// Ran answers a tool call "ran <name>" without looking at its arguments.
func Ran(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	return mcpgo.NewToolResultText("ran " + req.Params.Name), nil
}

// SchemasServer is server "schemas": tools "exponential"
// (ExponentialSchema(22)), "huge-enum" (EnumSchema) and HugeToolName,
// each answered by Ran; a prompt "many-args" with ManyArgs required
// arguments, each with a long description; and a resource
// hostile://fails whose read fails with a HugeServerMessage-byte message.
func SchemasServer() *server.MCPServer {
	s := server.NewMCPServer("schemas", "1.0.0", server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false), server.WithResourceCapabilities(false, false))
	s.AddTool(mcpgo.NewToolWithRawSchema("exponential", "validation doubles at every definition", ExponentialSchema(22)), Ran)
	s.AddTool(mcpgo.NewToolWithRawSchema("huge-enum", "one of HugeEnum colours", EnumSchema()), Ran)
	s.AddTool(mcpgo.NewTool(HugeToolName), Ran)
	var args []mcpgo.PromptOption
	for i := range ManyArgs {
		args = append(args, mcpgo.WithArgument(fmt.Sprintf("arg%05d", i), mcpgo.RequiredArgument(),
			mcpgo.ArgumentDescription(strings.Repeat("a long description ", 10))))
	}
	s.AddPrompt(mcpgo.NewPrompt("many-args", args...), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		return nil, errors.New("many-args needs all its arguments") // howl then lists to name them
	})
	s.AddResource(mcpgo.NewResource("hostile://fails", "fails"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return nil, errors.New(strings.Repeat("the server says no. ", HugeServerMessage/20))
	})
	return s
}
