package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

// Tools is what the loop needs from the MCP side. *mcp.Runtime has it.
type Tools interface {
	// Declarations are the gated meta-functions of every ready server.
	Declarations() []mcp.FunctionDecl
	// CallMeta runs one call exactly as the model should see it.
	CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error)
	// Status describes every configured server (for the system prompt).
	Status() []mcp.Status
}

// PermitFunc decides, before it runs, whether one tool call may: nil allows
// it; an error refuses it, and the error's message is the tool result the
// model sees ("the user declined ..."). It is called from the run's
// goroutine, one call at a time in the model's order, so it may ask a
// person; it must return when ctx ends.
type PermitFunc func(ctx context.Context, call ToolCall) error

// AllowAll is the default PermitFunc: every call runs.
func AllowAll(context.Context, ToolCall) error { return nil }

// Options configure an Agent. The zero value is usable.
type Options struct {
	// MaxSteps bounds the model requests of one run (DefaultMaxSteps when 0).
	MaxSteps int
	// Retry bounds retries of failed model requests (DefaultRetryPolicy when nil).
	Retry *RetryPolicy
	// System replaces the generated SystemPrompt when set.
	System string
	// Permit is the per-call decision hook (AllowAll when nil).
	Permit PermitFunc
	// Decide, when set, replaces Permit and also says how each call was
	// decided; the decision is kept in ToolResult.Decision.
	Decide DecideFunc
	// MaxOutputTokens bounds each reply (0: the provider's default).
	MaxOutputTokens int64
	// PreferTasks runs tools whose taskSupport is optional as tasks (see
	// mcp.CallObserver.PreferTask): a UI that lists and cancels tasks sets it.
	PreferTasks bool
}

// Agent runs the tool loop: one model, the MCP servers' meta-functions, and
// the options. It holds no conversation state, so one Agent may run many
// conversations, one run per conversation at a time.
type Agent struct {
	model Model
	tools Tools
	opts  Options
}

// NewAgent returns an Agent for model and tools.
func NewAgent(model Model, tools Tools, opts Options) *Agent {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.Retry == nil {
		p := DefaultRetryPolicy
		opts.Retry = &p
	}
	if opts.Permit == nil {
		opts.Permit = AllowAll
	}
	return &Agent{model: model, tools: tools, opts: opts}
}

// Run answers the conversation's last turn: it sends the conversation with
// the declarations of the ready servers, runs the model's tool calls
// (concurrently, through Tools.CallMeta), sends their results back, and
// repeats until the model answers without tool calls or Options.MaxSteps
// requests were made. Messages are appended to conv as they complete.
//
// onEvent (nil to ignore) receives the run's events in order, never two at
// once, from the goroutine that called Run or from a tool call's goroutine;
// it must not block for long. The last event is always Done.
//
// Run returns nil when the model answered, and otherwise an *Error: a model
// failure (after retries), KindStepLimit, or KindCancelled when ctx ended
// (in-flight MCP calls are then cancelled at their servers, and Run returns
// once they have). On any error conv stays well-formed: every tool call has
// a result, and an interrupted model turn is not recorded, so calling Run
// again retries.
func (a *Agent) Run(ctx context.Context, conv *Conversation, onEvent func(Event)) error {
	r := &run{a: a, conv: conv, on: onEvent}
	return r.run(ctx)
}

// Start runs Run in a goroutine and returns its events. The channel closes
// after the last event, when the run is over: only then may the caller read
// conv again. The caller must drain the channel or cancel ctx; once ctx is
// cancelled, undelivered events are dropped and the channel still closes.
// Run's error is the ErrorEvent before Done.
func (a *Agent) Start(ctx context.Context, conv *Conversation) <-chan Event {
	ch := make(chan Event, 64)
	go func() {
		defer close(ch)
		_ = a.Run(ctx, conv, func(e Event) {
			select {
			case ch <- e:
			case <-ctx.Done():
			}
		})
	}()
	return ch
}

// run is the state of one Run.
type run struct {
	a    *Agent
	conv *Conversation
	mu   sync.Mutex // serializes on
	on   func(Event)

	steps int
	total Usage
	// cancelledCalls names the calls a cancellation interrupted.
	cancelledCalls []string
}

func (r *run) emit(e Event) {
	if r.on == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on(e)
}

func (r *run) run(ctx context.Context) error {
	last, ok := r.conv.Last()
	if !ok || last.Role == RoleAssistant && len(last.ToolCalls) == 0 {
		return r.finish(ctx, &Error{Kind: KindConfig, Model: r.a.model.Name(),
			Cause: "the conversation has nothing for the model to answer",
			Fix:   "add the person's turn (Conversation.AddUser) before running"})
	}
	decls := r.a.tools.Declarations()
	system := r.a.opts.System
	if system == "" {
		system = SystemPrompt(r.a.tools.Status(), decls)
	}
	r.conv.System = system
	if last.Role == RoleAssistant { // calls recorded without results: run them first
		r.appendResults(r.dispatch(ctx, 0, last.ToolCalls))
		if ctx.Err() != nil {
			return r.finish(ctx, ctx.Err())
		}
	}
	for step := 1; ; step++ {
		reply, err := r.request(ctx, step, Request{System: system, Messages: r.conv.Messages, Tools: decls, MaxOutputTokens: r.a.opts.MaxOutputTokens})
		if err != nil {
			return r.finish(ctx, err)
		}
		r.steps = step
		r.total = r.total.Add(reply.Usage)
		usage := reply.Usage
		r.conv.Messages = append(r.conv.Messages, Message{Role: RoleAssistant, Text: reply.Text, Reasoning: reply.Reasoning,
			ToolCalls: reply.ToolCalls, Model: r.a.model.Name(), Usage: &usage, Truncated: reply.Truncated,
			OverMaxBytes: reply.OverMaxBytes, Time: time.Now()})
		r.emit(UsageReport{Step: step, Usage: reply.Usage, Total: r.total})
		if len(reply.ToolCalls) == 0 {
			r.emit(Done{Reason: StopAnswered, Steps: r.steps, Usage: r.total, Truncated: reply.Truncated, OverMaxBytes: reply.OverMaxBytes})
			return nil
		}
		if step >= r.a.opts.MaxSteps {
			r.appendResults(stepLimitResults(reply.ToolCalls, r.a.opts.MaxSteps))
			return r.finish(ctx, &Error{Kind: KindStepLimit, Model: r.a.model.Name(),
				Cause: fmt.Sprintf("stopped after %d model steps without a final answer: the step limit (max_steps %d) was reached while %s still wanted %s",
					step, r.a.opts.MaxSteps, r.a.model.Name(), callNames(reply.ToolCalls)),
				Fix: "ask it to continue (the model was told why it stopped), ask a narrower question, or raise the limit with --max-steps or \"max_steps\" in the config"})
		}
		r.appendResults(r.dispatch(ctx, step, reply.ToolCalls))
		if ctx.Err() != nil {
			return r.finish(ctx, ctx.Err())
		}
	}
}

func (r *run) appendResults(results []ToolResult) {
	r.conv.Messages = append(r.conv.Messages, Message{Role: RoleTool, ToolResults: results, Time: time.Now()})
}

// request makes one model request, retrying as the policy allows as long
// as nothing was streamed yet.
func (r *run) request(ctx context.Context, step int, req Request) (*Reply, error) {
	policy := *r.a.opts.Retry
	for attempt := 1; ; attempt++ {
		streamed := false
		reply, err := r.a.model.Stream(ctx, req, func(e Event) {
			streamed = true
			r.emit(e)
		})
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := asError(err, r.a.model.Name())
		if streamed {
			return nil, e
		}
		wait, ok := policy.wait(attempt, e)
		if !ok {
			return nil, giveUp(e, attempt-1, policy)
		}
		r.emit(Retrying{Step: step, Attempt: attempt, MaxRetries: policy.MaxRetries, Wait: wait, Reason: e.Cause, Kind: e.Kind})
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

// giveUp adds what the retries did to a final error.
func giveUp(e *Error, retries int, p RetryPolicy) *Error {
	out := *e
	out.Retries = retries
	if retries > 0 {
		out.Cause += fmt.Sprintf(", still after %d %s", retries, plural(retries, "retry", "retries"))
	}
	if e.retryable() && e.RetryAfter > p.MaxDelay && p.MaxDelay > 0 {
		out.Cause += fmt.Sprintf("; it asks to wait %s, longer than howl waits (%s)", e.RetryAfter.Round(time.Second), p.MaxDelay)
		out.Fix = fmt.Sprintf("ask again in %s", e.RetryAfter.Round(time.Second))
	}
	return &out
}

// finish reports a run's error and ends it.
func (r *run) finish(ctx context.Context, err error) error {
	e := asError(err, r.a.model.Name())
	if e.Kind == KindCancelled || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		e = r.cancelled(ctx)
	}
	reason := StopError
	switch e.Kind {
	case KindCancelled:
		reason = StopCancelled
	case KindStepLimit:
		reason = StopStepLimit
	}
	r.emit(ErrorEvent{Kind: e.Kind, Message: e.Error()})
	r.emit(Done{Reason: reason, Steps: r.steps, Usage: r.total})
	return e
}

// cancelled says what a cancellation interrupted.
func (r *run) cancelled(ctx context.Context) *Error {
	err := context.Cause(ctx)
	if err == nil {
		err = context.Canceled
	}
	e := &Error{Kind: KindCancelled, Model: r.a.model.Name(), Err: err, Fix: "ask again to start over"}
	if len(r.cancelledCalls) > 0 {
		e.Cause = fmt.Sprintf("cancelled while %s %s running (howl told the server to cancel %s)",
			strings.Join(r.cancelledCalls, ", "), plural(len(r.cancelledCalls), "was", "were"), plural(len(r.cancelledCalls), "it", "them"))
	} else {
		e.Cause = "cancelled while waiting for " + r.a.model.Name()
	}
	return e
}

// asError makes any error an *Error.
func asError(err error, model string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindCancelled, Model: model, Cause: "cancelled", Err: err}
	}
	return &Error{Kind: KindRequest, Model: model, Cause: fmt.Sprintf("%s failed: %s", model, clampMessage(err.Error())),
		Fix: "try again", Err: err}
}

// stepLimitResults answers calls the step limit kept from running, telling
// the model why.
func stepLimitResults(calls []ToolCall, maxSteps int) []ToolResult {
	out := make([]ToolResult, len(calls))
	for i, c := range calls {
		out[i] = ToolResult{CallID: c.ID, Name: c.Name, IsError: true,
			Content: fmt.Sprintf("not run: howl's step limit (max_steps %d model requests per question) was reached before this call. "+
				"Tell the user what you found so far and what is left; they can ask you to continue.", maxSteps),
			Summary: fmt.Sprintf("not run: step limit (max_steps %d) reached", maxSteps)}
	}
	return out
}

func callNames(calls []ToolCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
