package demo

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// maxCompletionValues is the spec's cap on values in one completion result.
const maxCompletionValues = 100

// completer answers completion/complete for prompt arguments and template
// variables. mcp-go routes ref/prompt to CompletePromptArgument and
// ref/resource (whose uri is the template text, e.g. LogTemplate) to
// CompleteResourceArgument; server.WithCompletions advertises the capability.
type completer struct {
	scale *scaleSet // nil unless Options.Scale > 0
}

// CompletePromptArgument offers languages and focuses for code_review.
func (*completer) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != CodeReviewPrompt {
		return complete(nil, ""), nil
	}
	switch arg.Name {
	case "language":
		return complete(reviewLanguages, arg.Value), nil
	case "focus":
		return complete(reviewFocuses, arg.Value), nil
	}
	return complete(nil, ""), nil
}

// CompleteResourceArgument offers dates for LogTemplate and ids for UserTemplate.
func (c *completer) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case uri == LogTemplate && arg.Name == "date":
		return complete(logDates, arg.Value), nil
	case uri == UserTemplate && arg.Name == "id":
		return complete(UserIDs(), arg.Value), nil
	case uri == ScaleTemplate && arg.Name == "n" && c.scale != nil:
		return c.scale.complete(arg.Value), nil
	}
	return complete(nil, ""), nil
}

// complete returns the choices that start with prefix (ignoring case), in
// order, at most maxCompletionValues of them, with the total that matched.
func complete(choices []string, prefix string) *mcp.Completion {
	prefix = strings.ToLower(prefix)
	values := []string{}
	total := 0
	for _, c := range choices {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			total++
			if len(values) < maxCompletionValues {
				values = append(values, c)
			}
		}
	}
	return &mcp.Completion{Values: values, Total: total, HasMore: total > len(values)}
}
