package llm

import (
	"context"
	"errors"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
)

// An endpoint's numbers index the provider libraries' accumulators: a
// choice index of -1, or a content block index of -1 on the
// Anthropic wire, panics inside them. The reply is an error saying the
// endpoint's reply could not be read, not a crash of howl (whose terminal
// the TUI would leave in raw mode).
func TestAnEndpointsOutOfRangeIndexIsAnErrorNotACrash(t *testing.T) {
	const start = `event: message_start
data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`
	for _, c := range []struct {
		name   string
		events []string
		model  func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
	}{
		{"openai choice -1", []string{`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":-1,"delta":{"content":"a"},"finish_reason":null}]}`}, scriptedOpenAI},
		{"anthropic block -1", []string{start, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":-1}"}, scriptedAnthropic},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, model := c.model(t, llmtest.Sequence(llmtest.Turn{Raw: c.events}))
			reply, err := model.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(Event) {})
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindRequest {
				t.Fatalf("reply %+v, error %v: want a request error", reply, err)
			}
		})
	}
}
