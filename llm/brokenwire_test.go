package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"charm.land/fantasy"
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

// On the Anthropic wire a tool call's arguments stream as input_json
// deltas, which the provider library gathers until the call's block ends:
// they count against MaxReplyBytes as they come, so an endpoint that
// streams more and never ends the block is stopped at the bound.
func TestAnthropicArgumentsCountAgainstMaxReplyBytesAsTheyStream(t *testing.T) {
	events := []string{
		`event: message_start
data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`,
		`event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c","name":"mcp_read_demo","input":{}}}`,
	}
	piece := strings.Repeat("x", 64<<10)
	for range MaxReplyBytes/len(piece) + 2 {
		events = append(events, `event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"`+piece+`"}}`)
	}
	_, model := scriptedAnthropic(t, llmtest.Sequence(llmtest.Turn{Raw: events}))
	reply, err := model.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(Event) {})
	if err != nil || reply == nil || !reply.OverMaxBytes || len(reply.ToolCalls) != 0 {
		t.Fatalf("reply %+v, error %v: want the reply stopped at MaxReplyBytes, its call not run", reply, err)
	}
}

// An endpoint that streams "data:" lines without the blank line that ends
// an event is stopped at MaxStreamEventBytes, on either wire, and an error
// response's body is read only up to MaxErrorBodyBytes.
func TestAStreamEventOrAnErrorBodyIsReadOnlyUpToItsBound(t *testing.T) {
	line := "data: " + strings.Repeat("x", 64<<10) + "\n"
	endless := strings.Repeat(line, MaxStreamEventBytes/len(line)+2)
	for name, model := range map[string]func(testing.TB, llmtest.Script) (*llmtest.Server, Model){"openai": scriptedOpenAI, "anthropic": scriptedAnthropic} {
		_, m := model(t, llmtest.Sequence(llmtest.Turn{Raw: []string{endless}}))
		_, err := m.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(Event) {})
		if err == nil || !strings.Contains(err.Error(), "without ending it") {
			t.Errorf("%s: an event of %d bytes: %v", name, len(endless), err)
		}
		_, m = model(t, llmtest.Sequence(llmtest.Turn{Status: 500, ErrorMessage: strings.Repeat("y", 4*MaxErrorBodyBytes)}))
		_, err = m.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(Event) {})
		var pe *fantasy.ProviderError
		if !errors.As(err, &pe) || len(pe.ResponseBody) > MaxErrorBodyBytes+4<<10 { // the dump holds the headers too
			t.Errorf("%s: an error body of %d bytes: %v (kept %d bytes)", name, 4*MaxErrorBodyBytes, err, len(pe.ResponseBody))
		}
	}
}

// A reply that opens more tool calls than MaxToolCallStarts (each one
// costs the libraries work over all before it) is refused as it streams.
func TestAReplyOpeningTooManyToolCallsIsRefused(t *testing.T) {
	var events []string
	for i := range MaxToolCallStarts + 50 {
		events = append(events, fmt.Sprintf(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}`, i, i))
	}
	_, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Raw: events}))
	reply, err := model.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(Event) {})
	if err == nil || !strings.Contains(err.Error(), "opened more than") {
		t.Fatalf("a reply opening %d calls: reply %+v, error %v", MaxToolCallStarts+50, reply != nil, err)
	}
}
