package mcp

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

// longCompleter answers every completion with two short values between
// two longer than MaxCompletionValueBytes.
type longCompleter struct{}

func (longCompleter) CompletePromptArgument(_ context.Context, prompt string, _ mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	if prompt == "many" { // MaxCompletions long values before a short one
		vals := make([]string, MaxCompletions, MaxCompletions+1)
		for i := range vals {
			vals[i] = strings.Repeat("z", MaxCompletionValueBytes+1)
		}
		return &mcpgo.Completion{Values: append(vals, "short")}, nil
	}
	return &mcpgo.Completion{Values: []string{"short", strings.Repeat("x", MaxCompletionValueBytes+1), "also-short", strings.Repeat("y", 1<<20)}}, nil
}

func (longCompleter) CompleteResourceArgument(context.Context, string, mcpgo.CompleteArgument, mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	return &mcpgo.Completion{}, nil
}

// serveLongCompletions is the "long-completions" fixture: one prompt whose
// argument completes to values of a megabyte.
func serveLongCompletions() int {
	s := server.NewMCPServer("long-completions", "1.0", server.WithPromptCapabilities(false),
		server.WithCompletions(), server.WithPromptCompletionProvider(longCompleter{}))
	for _, name := range []string{"p", "many"} {
		s.AddPrompt(mcpgo.NewPrompt(name, mcpgo.WithArgument("a")), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult(name, nil), nil
		})
	}
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// A completion value longer than MaxCompletionValueBytes is left out and
// counted, the others kept in order: a server cannot fill the popup with
// megabytes.
func TestACompletionValueOverItsBoundIsLeftOutAndCounted(t *testing.T) {
	rt := startRuntime(t, fixture("long-completions"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := rt.Complete(ctx, "long-completions", KindPrompt, "p", "a", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Values, []string{"short", "also-short"}) || c.TooLong != 2 {
		t.Errorf("values %d (%.20q...), too long %d; want [short also-short] and 2 left out", len(c.Values), c.Values, c.TooLong)
	}
	// The long values are left out before the count is cut to
	// MaxCompletions: they take no place of a short one's.
	c, err = rt.Complete(ctx, "long-completions", KindPrompt, "many", "a", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Values, []string{"short"}) || c.TooLong != MaxCompletions {
		t.Errorf("after %d long values: values %.20q, too long %d; want [short] and %d left out", MaxCompletions, c.Values, c.TooLong, MaxCompletions)
	}
}
