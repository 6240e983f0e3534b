package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// callTool runs one tools/call for the invoke path: tracked (progress, idle
// timeout), and as a task when the tool's execution.taskSupport (from the
// catalog the caller looked it up in) is required, or optional and the
// caller prefers tasks.
func (r *Runtime) callTool(ctx context.Context, conn *Conn, server, tool, taskSupport string, args map[string]any) (json.RawMessage, error) {
	obs, _ := ctx.Value(observerKey{}).(CallObserver)
	// tasks/result is gone from 2026-07-28 (mcp-go answers it "removed"),
	// so an optional task is only worth it before.
	asTask := taskSupport == "required" ||
		taskSupport == "optional" && obs.PreferTask && !mcpgo.IsModernProtocol(conn.ProtocolVersion())
	return tracked(r, ctx, server, "tools/call "+tool, "tools/call", func(ctx context.Context) (json.RawMessage, error) {
		if asTask {
			return r.callAsTask(ctx, conn, server, tool, args)
		}
		raw, err := conn.CallRaw(ctx, tool, args)
		retry, uerr := r.visitRequiredURLs(ctx, server, tool, err)
		switch {
		case uerr != nil:
			return nil, uerr
		case !retry:
			return raw, err
		}
		raw, err = conn.CallRaw(ctx, tool, args)
		var again mcpgo.URLElicitationRequiredError
		if errors.As(err, &again) {
			// Opening the page is not finishing there: the person may
			// still be in the browser when the call is made again.
			return nil, &ServerError{Server: server, Method: "tools/call", Err: fmt.Errorf("%s still needs a URL visited (%w): finish what the page asks, then make the call again", tool, err)}
		}
		return raw, err
	})
}

// visitRequiredURLs handles a call refused with URLElicitationRequired
// (-32042): each URL the server names is put to the person like a URL
// elicitation (shown, opened only when they agree). When every one is
// accepted the call is worth making again (retry); otherwise the error
// says which URL was not visited. Any other error is left alone.
func (r *Runtime) visitRequiredURLs(ctx context.Context, server, tool string, err error) (retry bool, _ error) {
	var need mcpgo.URLElicitationRequiredError
	if err == nil || !errors.As(err, &need) {
		return false, nil
	}
	elicit := r.holdingElicitor(r.opts.Elicit)
	if elicit == nil || len(need.Elicitations) == 0 {
		return false, &ServerError{Server: server, Method: "tools/call", Err: fmt.Errorf("%s needs a URL visited first (%w), and howl was told not to ask: run it with --elicit=ask", tool, err)}
	}
	for _, e := range need.Elicitations {
		resp, aerr := elicit(ctx, server, ElicitRequest{Mode: "url", Message: e.Message, URL: e.URL})
		if aerr != nil {
			return false, aerr
		}
		if resp.Action != ElicitAccept {
			return false, &ServerError{Server: server, Method: "tools/call", Err: fmt.Errorf("%s needs %s visited first, and the person answered %s", tool, e.URL, resp.Action)}
		}
	}
	return true, nil
}

// TaskPollInterval is how often a task's status is asked for when the
// server names no interval.
const TaskPollInterval = 500 * time.Millisecond

// MinTaskPollInterval is the shortest wait between two tasks/get of one
// task, whatever pollInterval the server suggests: a task answering
// pollInterval 1 (ms) would otherwise be polled 1,000 times a second for
// as long as it says "working", each answer keeping the call's idle
// timer alive.
const MinTaskPollInterval = 100 * time.Millisecond

// RunningTask is a task howl started and is waiting on.
type RunningTask struct {
	Server  string    `json:"server"`
	TaskID  string    `json:"task_id"`
	Tool    string    `json:"tool"`
	Owner   string    `json:"owner,omitempty"`
	Status  string    `json:"status"`
	Message string    `json:"message,omitempty"`
	Started time.Time `json:"started"`
	// Token is the progress token of the call that started it (Cancel takes it).
	Token string `json:"token"`
}

// Tasks lists the tasks howl is waiting on, oldest first.
func (r *Runtime) Tasks() []RunningTask {
	r.progress.mu.Lock()
	defer r.progress.mu.Unlock()
	out := make([]RunningTask, 0, len(r.progress.tasks))
	for _, t := range r.progress.tasks {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// callAsTask calls a tool task-augmented, reports the task's status as
// progress until it is terminal, and returns the tool's result (tasks/result).
// Cancelling ctx cancels the task on the server.
func (r *Runtime) callAsTask(ctx context.Context, conn *Conn, server, tool string, args map[string]any) (json.RawMessage, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := conn.rawResult(ctx, "tools/call", func(ctx context.Context) error {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = args
		req.Params.Meta = progressMetaFor(ctx)
		req.Params.Task = &mcpgo.TaskParams{}
		_, err := conn.client.CallTool(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	var created struct {
		Task *mcpgo.Task `json:"task"`
	}
	if json.Unmarshal(raw, &created) != nil || created.Task == nil || created.Task.TaskId == "" {
		return raw, nil // the server ran it as a plain call
	}
	token, _ := ctx.Value(progressTokenKey{}).(string)
	obs, _ := ctx.Value(observerKey{}).(CallObserver)
	rt := &RunningTask{Server: server, TaskID: created.Task.TaskId, Tool: tool, Owner: obs.Owner,
		Status: string(created.Task.Status), Message: created.Task.StatusMessage, Started: time.Now(), Token: token}
	r.progress.mu.Lock()
	if r.progress.tasks == nil {
		r.progress.tasks = map[string]*RunningTask{}
	}
	key := server + "\x00" + rt.TaskID
	r.progress.tasks[key] = rt
	r.progress.mu.Unlock()
	defer func() {
		r.progress.mu.Lock()
		delete(r.progress.tasks, key)
		r.progress.mu.Unlock()
	}()
	task := *created.Task
	for !task.Status.IsTerminal() {
		interval := TaskPollInterval
		if task.PollInterval != nil && *task.PollInterval > 0 && *task.PollInterval < 60_000 {
			interval = max(time.Duration(*task.PollInterval)*time.Millisecond, MinTaskPollInterval)
		}
		select {
		case <-ctx.Done():
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_, _ = conn.client.CancelTask(cctx, mcpgo.CancelTaskRequest{Params: mcpgo.CancelTaskParams{TaskId: task.TaskId}})
			cancel()
			return nil, fmt.Errorf("task %s of %s on %s cancelled: %w", task.TaskId, tool, server, context.Cause(ctx))
		case <-time.After(interval):
		}
		res, err := conn.client.GetTask(ctx, mcpgo.GetTaskRequest{Params: mcpgo.GetTaskParams{TaskId: task.TaskId}})
		if err != nil {
			if ctx.Err() != nil {
				continue // cancel it above
			}
			return nil, &ServerError{Server: server, Method: "tasks/get", Err: err}
		}
		changed := res.Status != task.Status || res.StatusMessage != task.StatusMessage
		task = res.Task
		r.taskStatus(server, key, rt, task, changed)
	}
	switch task.Status {
	case mcpgo.TaskStatusCancelled:
		return nil, &ServerError{Server: server, Method: "tools/call", Err: fmt.Errorf("task %s was cancelled: %s", task.TaskId, task.StatusMessage)}
	}
	out, err := conn.rawResult(ctx, "tasks/result", func(ctx context.Context) error {
		_, err := conn.client.TaskResult(ctx, mcpgo.TaskResultRequest{Params: mcpgo.TaskResultParams{TaskId: task.TaskId}})
		return err
	})
	if err != nil && task.Status == mcpgo.TaskStatusFailed {
		return nil, &ServerError{Server: server, Method: "tools/call", Err: errors.Join(fmt.Errorf("task %s failed: %s", task.TaskId, task.StatusMessage), err)}
	}
	return out, err
}

// taskStatus records a task's status and reports it like progress (which
// also keeps the call's idle timer alive: the server answered).
func (r *Runtime) taskStatus(server, key string, rt *RunningTask, task mcpgo.Task, changed bool) {
	r.progress.mu.Lock()
	rt.Status, rt.Message = string(task.Status), task.StatusMessage
	f := r.progress.calls[rt.Token]
	r.progress.mu.Unlock()
	if f != nil {
		f.touch()
	}
	if !changed {
		return
	}
	p := Progress{Server: server, Token: rt.Token, Owner: rt.Owner, Method: "tools/call " + rt.Tool, Message: string(task.Status), Task: task.TaskId}
	if task.StatusMessage != "" {
		p.Message += ": " + task.StatusMessage
	}
	if f != nil && f.obs.OnProgress != nil {
		f.obs.OnProgress(p)
	}
	r.emit(Event{Kind: EventProgress, Server: server, Progress: &p})
}
