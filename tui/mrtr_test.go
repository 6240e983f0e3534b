package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// TestQuestionsInBothErasReachTheDialogs: a tool written the 2026-07-28
// way (an input-required result the client answers and retries) asks the
// person through the same dialogs on a modern connection, and through
// mcp-go's bridge (server requests) on a 2025-11-25 one.
func TestQuestionsInBothErasReachTheDialogs(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraModern, mcp.EraLegacy} {
		t.Run(string(era), func(t *testing.T) {
			srv, model := scriptedModel(t, func(int, llmtest.Request) llmtest.Turn { return llmtest.Turn{Text: "a long cry"} })
			b := newAskBenchOn(t, Options{Model: model}, era)
			out := b.call(context.Background(), "ask_mrtr", map[string]any{"message": "Your name?",
				"schema": `{"type":"object","properties":{"name":{"type":"string","default":"Ada"}},"required":["name"]}`})
			b.waitDialog("elicit")
			if v := b.h.view(); !strings.Contains(v, "Your name?") || !strings.Contains(v, "Question from asker") {
				t.Fatalf("the elicitation dialog:\n%s", v)
			}
			b.h.keys("ctrl+s")
			if got := b.result(out); !strings.Contains(got, `"action":"accept"`) || !strings.Contains(got, `"name":"Ada"`) {
				t.Errorf("the server received %s", got)
			}

			out = b.call(context.Background(), "sample_mrtr", map[string]any{"prompt": "what is a howl?"})
			b.waitDialog("sampling")
			b.h.keys("y")
			if got := b.result(out); !strings.Contains(got, "a long cry") {
				t.Errorf("the server received %s", got)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("the model was asked %d times, want 1", n)
			}
		})
	}
}
