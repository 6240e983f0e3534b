package tui

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/llm/llmtest"
)

func sampleReq(text string) mcpgo.CreateMessageRequest {
	return mcpgo.CreateMessageRequest{CreateMessageParams: mcpgo.CreateMessageParams{
		Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(text)}}, MaxTokens: 10}}
}

// TestSamplingApprovedSendsTheModelsAnswerToTheServer: a real server's
// sampling request shows its messages, system prompt and maxTokens; on
// approval the chat model answers it and the server receives that answer.
func TestSamplingApprovedSendsTheModelsAnswerToTheServer(t *testing.T) {
	srv, model := scriptedModel(t, func(n int, req llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Text: "Haiku: servers ask, howl answers."}
	})
	b := newAskBench(t, Options{Model: model})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "Write a haiku\x1b]0;pwned\x07 about MCP", "system": "You are terse."})
	b.waitDialog("sampling")
	view := b.h.view()
	for _, want := range []string{"Sampling request from asker", "Server asker asks the chat model", "Write a haiku about MCP", "You are terse.", "max tokens  64", "y approve"} {
		if !strings.Contains(view, want) {
			t.Errorf("the sampling dialog does not show %q", want)
		}
	}
	requireGolden(t, view)
	if strings.Contains(view, "pwned") {
		t.Errorf("the server's escape sequence reached the screen:\n%s", view)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the model was asked before the person approved")
	}
	b.h.keys("y")
	got := b.result(out)
	if !strings.Contains(got, "sampled:") || !strings.Contains(got, "Haiku: servers ask, howl answers.") ||
		!strings.Contains(got, `"role":"assistant"`) || !strings.Contains(got, `"model":"openai-compat/scripted"`) || !strings.Contains(got, `"stopReason":"endTurn"`) {
		t.Errorf("the server received %s", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].System != "You are terse." || len(reqs[0].Messages) == 0 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "Write a haiku") {
		t.Errorf("the model was asked %+v", reqs)
	}
	if len(reqs) == 1 && len(reqs[0].Tools) != 0 {
		t.Errorf("a sampling request offered the model tools: %v", reqs[0].Tools)
	}
}

// A message's role is the server's string: one that is neither user nor
// assistant (here an escape sequence that would write the clipboard) is
// shown as the user it is sent as, and nothing of it reaches the screen.
func TestSamplingShowsAServersOddRoleAsTheUserItIsSentAs(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "hi", "role": "\x1b]52;c;cm0gLXJmIC8=\x07\x1b[2Juser"})
	b.waitDialog("sampling")
	v := b.h.view()
	if strings.Contains(v, "\x1b]52") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "cm0gLXJm") || !strings.Contains(v, "user (?)") {
		t.Errorf("the server's role reached the screen as written:\n%q", v)
	}
	b.h.keys("esc")
	b.result(out)
}

// When the approved request fails at the model, the server hears the
// model and the kind of failure only: not the endpoint (a base_url with
// whatever the person put in it) nor the provider's message, which the
// person is told.
func TestAFailedSampleTellsTheServerNeitherTheEndpointNorTheProvidersMessage(t *testing.T) {
	srv, model := scriptedModel(t, func(int, llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Status: 400, ErrorMessage: "maxTokens is invalid for key sk-abc123"}
	})
	b := newAskBench(t, Options{Model: model})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "hi"})
	b.waitDialog("sampling")
	b.h.keys("y")
	got := b.result(out)
	host := strings.TrimPrefix(srv.URL, "http://")
	if strings.Contains(got, host) || strings.Contains(got, "sk-abc123") || !strings.Contains(got, "could not answer (request)") {
		t.Errorf("the server received %s", got)
	}
	if v := b.h.view(); !strings.Contains(v, "sampling for asker") {
		t.Errorf("the person is not told why:\n%s", v)
	}
}

// A sampling message longer than a dialog shows (a dialog wraps its text
// on every frame) is cut there: the dialog holds 256 KiB of it, some 3,600
// lines, not the 4 MiB's 60,000.
func TestAHugeSamplingMessageIsCutInTheDialog(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": strings.Repeat("x", 4<<20)})
	b.waitDialog("sampling")
	m := regexp.MustCompile(`lines \d+-\d+ of (\d+)`).FindStringSubmatch(b.h.view())
	if m == nil {
		t.Fatalf("the dialog does not scroll its message:\n%s", b.h.view())
	}
	if n, _ := strconv.Atoi(m[1]); n > 5000 {
		t.Errorf("the dialog holds %v lines of the message", m)
	}
	b.h.keys("esc")
	b.result(out)
}

// TestSamplingRejectedIsAnErrorForTheServer: n rejects; the model is never
// asked and the server gets howl's error.
func TestSamplingRejectedIsAnErrorForTheServer(t *testing.T) {
	srv, model := scriptedModel(t, func(int, llmtest.Request) llmtest.Turn { return llmtest.Turn{Text: "never"} })
	b := newAskBench(t, Options{Model: model})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "hi"})
	b.waitDialog("sampling")
	b.h.keys("n")
	got := b.result(out)
	if !strings.Contains(got, "sampling failed") || !strings.Contains(got, "howl did not sample for asker: the user rejected the sampling request") {
		t.Errorf("the server received %s", got)
	}
	if len(srv.Requests()) != 0 {
		t.Error("the model was asked although the person rejected the request")
	}
	if b.h.m.dialogs.Len() != 0 {
		t.Error("the dialog is still open")
	}
}

// TestSamplingWithoutAModelSaysSoAndNamesTheFix: with no chat model the
// dialog explains, y does nothing, and the server's error names the fix.
func TestSamplingWithoutAModelSaysSoAndNamesTheFix(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "sample", map[string]any{"prompt": "hi"})
	b.waitDialog("sampling")
	if view := b.h.view(); !strings.Contains(view, "no chat model is configured") || strings.Contains(view, "y approve: send") {
		t.Errorf("the dialog does not explain the missing model:\n%s", view)
	}
	b.h.keys("y")
	if b.h.m.dialogs.Len() != 1 {
		t.Fatal("y closed the dialog with no model to ask")
	}
	b.h.keys("esc")
	if got := b.result(out); !strings.Contains(got, "no chat model is configured in howl") || !strings.Contains(got, "--model") {
		t.Errorf("the server received %s", got)
	}
}
