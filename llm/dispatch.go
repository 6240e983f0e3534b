package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// MaxToolCallsPerStep bounds the tool calls howl runs from one model reply.
// Models that call tools in parallel ask for a handful at once (typically
// 1-10: a few searches, a read per file they want); 64 leaves room for a
// wide fan-out, such as one read on each of dozens of servers, and stops a
// reply that asks for thousands: reads run without asking by default, so
// 10,000 mcp_read calls at max_bytes 204,800 would be 10,000 requests and
// about 2 GB of results in one step, all of it kept in the conversation.
// MaxSteps bounds steps, not calls per step. Calls past it are not run;
// each gets an error result that says so (so every call id has its result,
// as providers require; MaxRefusalBytesPerStep bounds their text), and a
// TooManyToolCalls event tells the person.
const MaxToolCallsPerStep = 64

// MaxRefusalBytesPerStep bounds the text of the error results of one
// step's calls past MaxToolCallsPerStep. Every call id must have its
// result, and a reply of MaxReplyBytes can hold a hundred thousand tiny
// calls: one full explanation each (about 230 bytes) was some 23 MB sent
// back to the model and kept in the conversation. The first call past the
// bound gets the explanation, the next ones a short line pointing at it
// while their texts fit in these 16 KiB (a couple of hundred lines, more
// than a model needs to see the point, 1/256 of MaxReplyBytes); past it
// each gets just refusedShort, the least a result can say.
const MaxRefusalBytesPerStep = 16 << 10

// refusedShort is the result of a call past MaxToolCallsPerStep once the
// refusals of its step have used MaxRefusalBytesPerStep.
const refusedShort = "not run"

// MaxParallelToolCalls bounds the calls of one step that run at once; the
// others wait for a slot. 8 keeps a fan-out quick without a burst of
// MaxToolCallsPerStep requests (and their results in memory at once)
// landing on the servers together.
const MaxParallelToolCalls = 8

// cancelledResult is what the model reads for a call a cancellation ended.
const cancelledResult = "cancelled by the user before it finished; howl told the server to stop it"

// dispatch runs one step's calls: each is put to the permission hook in the
// model's order, then the permitted ones run concurrently, at most
// MaxParallelToolCalls at a time. Calls past MaxToolCallsPerStep are not
// run (tooManyResults). It returns when every call has returned
// (cancelling ctx makes them return promptly), with one result per call in
// the calls' order.
func (r *run) dispatch(ctx context.Context, step int, calls []ToolCall) []ToolResult {
	results := make([]ToolResult, len(calls))
	if len(calls) > MaxToolCallsPerStep {
		copy(results[MaxToolCallsPerStep:], tooManyResults(calls[MaxToolCallsPerStep:], len(calls)))
		r.emit(TooManyToolCalls{Step: step, Calls: len(calls), Kept: MaxToolCallsPerStep})
		calls = calls[:MaxToolCallsPerStep]
	}
	slots := make(chan struct{}, MaxParallelToolCalls)
	var wg sync.WaitGroup
	for i, call := range calls {
		if ctx.Err() != nil {
			results[i] = r.finished(step, call, ToolResult{IsError: true, Content: cancelledResult}, false)
			continue
		}
		if _, err := mcp.ParseMetaArgs(call.Name, []byte(call.Arguments)); err != nil {
			// Refused before the permission check: no rule can judge
			// arguments whose readers could disagree on the call.
			r.emit(ToolCallStarted{Step: step, Call: call, Decision: refusedMalformed})
			results[i] = r.finished(step, call, ToolResult{IsError: true, Content: errorText(call.Name, err), Decision: refusedMalformed}, false)
			continue
		}
		decision, err := r.decide(ctx, call)
		if err != nil {
			denied := ctx.Err() == nil
			content := cancelledResult
			if denied {
				content = render.BoundMessage("not run: " + err.Error())
			}
			results[i] = r.finished(step, call, ToolResult{IsError: true, Content: content, Decision: decision}, denied)
			continue
		}
		r.emit(ToolCallStarted{Step: step, Call: call, Decision: decision})
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
				results[i] = r.call(ctx, step, call, decision)
			case <-ctx.Done():
				results[i] = r.finished(step, call, ToolResult{IsError: true, Content: cancelledResult, Decision: decision}, false)
			}
		}()
	}
	wg.Wait()
	for _, res := range results {
		if res.Content == cancelledResult {
			r.cancelledCalls = append(r.cancelledCalls, res.Name)
		}
	}
	return results
}

// tooManyResults answers the calls past MaxToolCallsPerStep of a reply
// that asked for n, telling the model what to do instead: the first in
// full, the next ones with a line pointing at it while their texts fit in
// MaxRefusalBytesPerStep, the last of those saying that the rest only say
// refusedShort.
func tooManyResults(calls []ToolCall, n int) []ToolResult {
	out := make([]ToolResult, len(calls))
	full := fmt.Sprintf("not run: this reply asked for %d tool calls and howl takes at most MaxToolCallsPerStep (%d) per step, the first %d. "+
		"Call at most %d tools per step; split the work across steps.", n, MaxToolCallsPerStep, MaxToolCallsPerStep, MaxToolCallsPerStep)
	pointer := fmt.Sprintf("not run: past MaxToolCallsPerStep (%d) like the first call not run, whose result says why", MaxToolCallsPerStep)
	note := func(rest int) string {
		return fmt.Sprintf("%s; the %d calls after this one only say %q (MaxRefusalBytesPerStep: %d bytes of these texts per step)",
			pointer, rest, refusedShort, MaxRefusalBytesPerStep)
	}
	noteMax := len(note(len(calls)))
	summary := fmt.Sprintf("not run: over MaxToolCallsPerStep (%d)", MaxToolCallsPerStep)
	room, noted := MaxRefusalBytesPerStep, false
	for i, c := range calls {
		// room always keeps noteMax for the note (full and noteMax are
		// far under MaxRefusalBytesPerStep).
		var content string
		switch rest := len(calls) - 1 - i; {
		case i == 0:
			content = full
		case rest == 0 && !noted, room-len(pointer) >= noteMax:
			content = pointer
		case !noted:
			content, noted = note(rest), true
		default:
			content = refusedShort
		}
		if content != refusedShort {
			room -= len(content)
		}
		out[i] = ToolResult{CallID: c.ID, Name: c.Name, IsError: true, Content: content, Summary: summary}
	}
	return out
}

// decide puts a call to the decision hook: Decide when set, else Permit.
func (r *run) decide(ctx context.Context, call ToolCall) (string, error) {
	if r.a.opts.Decide != nil {
		return r.a.opts.Decide(ctx, call)
	}
	if err := r.a.opts.Permit(ctx, call); err != nil {
		return "denied", err
	}
	return "", nil
}

// CallOwner is the owner the MCP requests of one of the model's calls
// carry (mcp.CallObserver.Owner): a UI matches the call's progress events
// to the call by it.
func CallOwner(callID string) string { return "tool-call:" + callID }

// call runs one call through the meta-function table.
func (r *run) call(ctx context.Context, step int, call ToolCall, decision string) ToolResult {
	start := time.Now()
	ctx = mcp.WithCallObserver(ctx, mcp.CallObserver{Owner: CallOwner(call.ID), PreferTask: r.a.opts.PreferTasks})
	out, err := r.a.tools.CallMeta(ctx, call.Name, json.RawMessage(call.Arguments))
	res := ToolResult{Duration: time.Since(start), Decision: decision}
	switch {
	case err == nil:
		res.Content = string(out)
	case ctx.Err() != nil:
		res.IsError, res.Content = true, cancelledResult
	default:
		res.IsError, res.Content = true, errorText(call.Name, err)
	}
	return r.finished(step, call, res, false)
}

// finished completes a result, reports it and returns it.
func (r *run) finished(step int, call ToolCall, res ToolResult, denied bool) ToolResult {
	res.CallID, res.Name, res.Denied = call.ID, call.Name, denied
	var toolErr bool
	res.Summary, toolErr = summarize(call.Name, res.Content, res.IsError)
	res.IsError = res.IsError || toolErr
	r.emit(ToolCallFinished{Step: step, CallID: call.ID, Name: call.Name, IsError: res.IsError, Denied: denied,
		Summary: res.Summary, Bytes: len(res.Content), Duration: res.Duration, Decision: res.Decision})
	return res
}

// errorText is the message the model reads for a failed call: a refusal's
// teaching text as is, a server's error with who said it; bounded like
// every message built from server data (render.BoundMessage).
func errorText(name string, err error) string {
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		return render.BoundMessage(ce.Msg)
	}
	var se *mcp.ServerError
	if errors.As(err, &se) {
		return se.Error()
	}
	return render.BoundMessage(fmt.Sprintf("%s failed: %v", name, err))
}
