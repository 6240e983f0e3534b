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

// cancelledResult is what the model reads for a call a cancellation ended.
const cancelledResult = "cancelled by the user before it finished; howl told the server to stop it"

// dispatch runs one step's calls: each is put to the permission hook in the
// model's order, then the permitted ones run concurrently. It returns when
// every call has returned (cancelling ctx makes them return promptly), with
// one result per call in the calls' order.
func (r *run) dispatch(ctx context.Context, step int, calls []ToolCall) []ToolResult {
	results := make([]ToolResult, len(calls))
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
			res := r.call(ctx, step, call, decision)
			results[i] = res
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
