package llm

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event is one thing a run reports while it goes: the concrete types below,
// and no others. A UI type-switches on them; EncodeEvent writes one as a
// JSON line. Every run ends with exactly one Done.
type Event interface {
	// Type is the event's name on the wire ("text", "tool_start", ...).
	Type() string
}

// TextDelta is a piece of the model's answer, in order.
type TextDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta is a piece of the model's reasoning, for providers that
// stream one (Anthropic thinking, reasoning_content of compatible servers).
type ReasoningDelta struct {
	Text string `json:"text"`
}

// ToolCallStarted: howl is running one of the model's calls.
type ToolCallStarted struct {
	Step int      `json:"step"`
	Call ToolCall `json:"call"`
	// Decision says how the call was allowed (see ToolResult.Decision).
	Decision string `json:"decision,omitempty"`
}

// ToolCallFinished: a call returned; its full result is in the conversation.
type ToolCallFinished struct {
	Step    int    `json:"step"`
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	IsError bool   `json:"is_error"`
	// Denied: the permission hook refused the call; it never ran.
	Denied bool `json:"denied,omitempty"`
	// Summary is one sanitized line: the result's coverage, or the error.
	Summary  string        `json:"summary"`
	Bytes    int           `json:"bytes"`
	Duration time.Duration `json:"duration_ns"`
	// Decision says how the call was allowed or refused.
	Decision string `json:"decision,omitempty"`
}

// UsageReport gives the tokens of one model request (Step) and the run's total.
type UsageReport struct {
	Step  int   `json:"step"`
	Usage Usage `json:"usage"`
	Total Usage `json:"total"`
}

// Retrying: a model request failed in a way worth retrying (rate limit,
// overload, network) and howl waits before trying again.
type Retrying struct {
	Step       int           `json:"step"`
	Attempt    int           `json:"attempt"`
	MaxRetries int           `json:"max_retries"`
	Wait       time.Duration `json:"wait_ns"`
	// Reason is the error's cause, for a person.
	Reason string `json:"reason"`
	Kind   Kind   `json:"kind"`
}

// TooManyToolCalls: one reply asked for more than MaxToolCallsPerStep
// calls. howl took the first Kept (MaxToolCallsPerStep: they run, or are
// put to the permission hook, as usual); each of the others got an error
// result, the first telling the model to split the work across steps, the
// next ones pointing at it (within MaxRefusalBytesPerStep).
type TooManyToolCalls struct {
	Step  int `json:"step"`
	Calls int `json:"calls"`
	Kept  int `json:"kept"`
}

// Text says what happened, for a person.
func (e TooManyToolCalls) Text() string {
	return fmt.Sprintf("the model asked for %d tool calls in one reply; howl took the first %d (MaxToolCallsPerStep) and told it to split the rest across steps",
		e.Calls, e.Kept)
}

// ErrorEvent reports the error that ends a run; Run returns the same error.
type ErrorEvent struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
}

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	// StopAnswered: the model answered without calling tools.
	StopAnswered StopReason = "answered"
	// StopStepLimit: the step limit was reached while the model still
	// wanted tools.
	StopStepLimit StopReason = "step_limit"
	// StopCancelled: the context was cancelled.
	StopCancelled StopReason = "cancelled"
	// StopError: a model error ended the run (an ErrorEvent came first).
	StopError StopReason = "error"
)

// Done is the last event of every run.
type Done struct {
	Reason StopReason `json:"reason"`
	// Steps is how many model requests the run made.
	Steps int   `json:"steps"`
	Usage Usage `json:"usage"`
	// Truncated: the answer was cut off at the model's output token limit.
	Truncated bool `json:"truncated,omitempty"`
	// OverMaxBytes: howl stopped reading the answer at MaxReplyBytes
	// (OverMaxBytesText says so to a person).
	OverMaxBytes bool `json:"over_max_bytes,omitempty"`
}

// Type implements Event.
func (TextDelta) Type() string { return "text" }

// Type implements Event.
func (ReasoningDelta) Type() string { return "reasoning" }

// Type implements Event.
func (ToolCallStarted) Type() string { return "tool_start" }

// Type implements Event.
func (ToolCallFinished) Type() string { return "tool_end" }

// Type implements Event.
func (UsageReport) Type() string { return "usage" }

// Type implements Event.
func (Retrying) Type() string { return "retry" }

// Type implements Event.
func (TooManyToolCalls) Type() string { return "too_many_tool_calls" }

// Type implements Event.
func (ErrorEvent) Type() string { return "error" }

// Type implements Event.
func (Done) Type() string { return "done" }

// EncodeEvent marshals e as one JSON object whose first member is its type:
// {"type":"text","text":"..."}. No trailing newline.
func EncodeEvent(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(e.Type())
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 { // not "{}"
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}
