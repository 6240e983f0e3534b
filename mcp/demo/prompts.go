package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// reviewLanguages and reviewFocuses are what completion offers for the
// code_review prompt's arguments.
var (
	reviewLanguages = []string{"c", "cpp", "csharp", "go", "haskell", "java", "javascript", "kotlin",
		"python", "ruby", "rust", "scala", "swift", "typescript", "zig"}
	reviewFocuses = []string{"concurrency", "correctness", "error-handling", "performance", "readability", "security", "tests"}
)

func (d *demoServer) addPrompts() {
	d.srv.AddPrompts(
		server.ServerPrompt{Prompt: mcp.NewPrompt(GreetingPrompt,
			mcp.WithPromptTitle("Greeting"),
			mcp.WithPromptDescription("A friendly opener with no arguments: asks the model to introduce the demo server."),
		), Handler: greeting},
		server.ServerPrompt{Prompt: mcp.NewPrompt(CodeReviewPrompt,
			mcp.WithPromptTitle("Code review"),
			mcp.WithPromptDescription("Asks for a review of the demo Go source in the given language's idioms, with an optional focus. Both arguments complete."),
			mcp.WithArgument("language", mcp.RequiredArgument(), mcp.ArgumentTitle("Language"),
				mcp.ArgumentDescription("The programming language whose idioms to review by, e.g. go, python or rust.")),
			mcp.WithArgument("focus", mcp.ArgumentTitle("Focus"),
				mcp.ArgumentDescription("What to look at first, e.g. security, performance or tests; general quality when empty.")),
		), Handler: codeReview},
		server.ServerPrompt{Prompt: mcp.NewPrompt(ConversationPrompt,
			mcp.WithPromptTitle("Conversation"),
			mcp.WithPromptDescription("A short exchange with alternating user and assistant messages, ending on a user question."),
		), Handler: conversation},
		server.ServerPrompt{Prompt: mcp.NewPrompt(BangPrompt,
			mcp.WithPromptTitle("Bang text"),
			mcp.WithPromptDescription("A message whose text starts with '!': it looks like a shell command, but it is only text and a client must never run it."),
		), Handler: fixedPrompt("Text that starts with '!'", BangText)},
		server.ServerPrompt{Prompt: mcp.NewPrompt(DotPrompt,
			mcp.WithPromptTitle("Dot text"),
			mcp.WithPromptDescription("A message whose text starts with '.': it looks like a client command, but it is only text."),
		), Handler: fixedPrompt("Text that starts with '.'", DotText)},
		server.ServerPrompt{Prompt: mcp.NewPrompt(WithResourcePrompt,
			mcp.WithPromptTitle("Summarise the guide"),
			mcp.WithPromptDescription("Asks for a summary of the demo guide, which it embeds as a resource ("+MarkdownURI+")."),
		), Handler: withResource},
	)
}

func userText(text string) mcp.PromptMessage {
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))
}

func greeting(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return mcp.NewGetPromptResult("A friendly opener", []mcp.PromptMessage{
		userText("Hello! Please introduce yourself, then tell me in three bullet points what the howl demo server can do."),
	}), nil
}

func codeReview(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	lang := strings.TrimSpace(req.Params.Arguments["language"])
	if lang == "" {
		return nil, fmt.Errorf("%s needs the \"language\" argument, e.g. language=go (completion offers %s)",
			CodeReviewPrompt, strings.Join(reviewLanguages, ", "))
	}
	focus := strings.TrimSpace(req.Params.Arguments["focus"])
	if focus == "" {
		focus = "general quality"
	}
	src, err := asset("server.go.txt")()
	if err != nil {
		return nil, fmt.Errorf("%s: the embedded Go sample is missing (%w): rebuild howl", CodeReviewPrompt, err)
	}
	return mcp.NewGetPromptResult("Code review in "+lang+", focusing on "+focus, []mcp.PromptMessage{
		userText(fmt.Sprintf("Review the code below as an experienced %s developer would, focusing on %s. "+
			"List bugs first, then risks, then style, each with a suggested fix.", lang, focus)),
		userText("```go\n" + string(src) + "```"),
	}), nil
}

func conversation(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return mcp.NewGetPromptResult("A short exchange about the slow tool", []mcp.PromptMessage{
		userText("What does the demo server's slow tool do?"),
		mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent(
			"It waits for duration_ms, split into steps, and reports progress after each step.")),
		userText("And what happens if I cancel it halfway?"),
		mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent(
			"It notices at once, stops, and logs how many steps it finished.")),
		userText("Show me: call it with 4 steps over 2 seconds."),
	}), nil
}

func fixedPrompt(description, text string) server.PromptHandlerFunc {
	return func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult(description, []mcp.PromptMessage{userText(text)}), nil
	}
}

func withResource(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	md, err := asset("readme.md")()
	if err != nil {
		return nil, fmt.Errorf("%s: the embedded guide is missing (%w): rebuild howl", WithResourcePrompt, err)
	}
	return mcp.NewGetPromptResult("Summarise the demo guide", []mcp.PromptMessage{
		userText("Summarise this guide in five bullet points for a new user:"),
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(contents(MarkdownURI, "text/markdown", md, false))),
	}), nil
}
