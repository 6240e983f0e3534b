package mcptest

import (
	"context"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// LongCompletions are the values LongCompletionsServer completes every
// argument to: two short ones between two over any sane bound on one
// value (5 KiB and 1 MiB), which a client leaves out and counts.
var LongCompletions = []string{"short", strings.Repeat("x", 5<<10), "also-short", strings.Repeat("y", 1<<20)}

// LongCompletionsServer is server "long-completions": a prompt "pick"
// with one required argument "flavour", which completes to
// LongCompletions whatever is typed.
func LongCompletionsServer() *server.MCPServer {
	s := server.NewMCPServer("long-completions", "1.0.0", server.WithPromptCapabilities(false),
		server.WithCompletions(), server.WithPromptCompletionProvider(longCompleter{}))
	s.AddPrompt(mcpgo.NewPrompt("pick", mcpgo.WithArgument("flavour", mcpgo.RequiredArgument(), mcpgo.ArgumentDescription("a flavour"))),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("pick", []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("I pick "+req.Params.Arguments["flavour"]))}), nil
		})
	return s
}

type longCompleter struct{}

func (longCompleter) CompletePromptArgument(context.Context, string, mcpgo.CompleteArgument, mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	return &mcpgo.Completion{Values: LongCompletions}, nil
}

func (longCompleter) CompleteResourceArgument(context.Context, string, mcpgo.CompleteArgument, mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	return &mcpgo.Completion{}, nil
}
