package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
)

// errSampleDeclined is what a server hears when the person said no.
var errSampleDeclined = errors.New("the user declined the sampling request")

// errSampleNotAsked is what a server hears when nobody could be asked: howl
// never samples on its own.
var errSampleNotAsked = errors.New("howl declined the sampling request without asking anyone: it samples only with a person's approval (run with --sample=ask on a terminal, or in the TUI)")

// sampler picks how headless verbs answer a sampling request from a server
// whose entry says "sampling": true: ask (show it on the terminal and run
// it through the model only when the person approves; the default on a
// terminal) or decline. It is never automatic.
func sampler(g *globalFlags, cfg *mcp.Config) (mcp.Sampler, error) {
	switch g.questionMode(g.sample) {
	case "decline":
		return declineSampling, nil
	case "ask":
		// The model is resolved on the first request (auto-detection may
		// probe for a local server) and kept; a failure is tried again.
		var mu sync.Mutex
		var model llm.Model
		resolve := func(ctx context.Context) (llm.Model, error) {
			mu.Lock()
			defer mu.Unlock()
			if model != nil {
				return model, nil
			}
			choice, err := resolveModel(ctx, g, cfg, 0)
			if err != nil {
				return nil, err
			}
			m, err := llm.NewModel(choice)
			if err == nil {
				model = m
			}
			return m, err
		}
		return func(ctx context.Context, server string, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
			return g.term.sample(ctx, server, req, func() (llm.Model, error) { return resolve(ctx) })
		}, nil
	}
	return nil, usagef("--sample %q: use ask or decline", g.sample)
}

// declineSampling refuses every sampling request (--sample=decline).
func declineSampling(context.Context, string, mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	return nil, errSampleNotAsked
}

// maxSampleShown bounds each message shown on the terminal.
const maxSampleShown = 2000

// sample shows a sampling request (the server, its system prompt, its
// messages and token limit) and runs it through the model only when the
// person approves.
func (t *terminal) sample(ctx context.Context, server string, req mcpgo.CreateMessageRequest, model func() (llm.Model, error)) (*mcpgo.CreateMessageResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := req.CreateMessageParams
	fmt.Fprintf(t.out, "\nserver %s asks the model to answer (sampling, at most %d tokens):\n", clean(server), p.MaxTokens)
	if p.SystemPrompt != "" {
		fmt.Fprintf(t.out, "  [system] %s\n", cleanText(shorten(p.SystemPrompt)))
	}
	for _, m := range p.Messages {
		fmt.Fprintf(t.out, "  [%s] %s\n", clean(string(m.Role)), cleanText(shorten(llm.SamplingText(m.Content))))
	}
	mdl, err := model()
	if err != nil {
		fmt.Fprintf(t.out, "howl: no model to answer with: %v\n", err)
		return nil, fmt.Errorf("no chat model is configured in howl, so nothing can answer: %w", err)
	}
	if !t.confirm(ctx, fmt.Sprintf("send it to %s? [y/N] ", clean(mdl.Name())), false) {
		return nil, errSampleDeclined
	}
	res, err := llm.Sample(ctx, mdl, req)
	var se *llm.SampleError
	if errors.As(err, &se) { // the server hears the short form; the person why
		fmt.Fprintf(t.out, "howl: %s could not answer: %s\n", clean(mdl.Name()), cleanText(se.Err.Error()))
	}
	return res, err
}

func shorten(s string) string {
	if len(s) <= maxSampleShown {
		return s
	}
	return strings.ToValidUTF8(s[:maxSampleShown], "") + fmt.Sprintf(" … (%d bytes more, not shown here, are sent too)", len(s)-maxSampleShown)
}
