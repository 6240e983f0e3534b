package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestInteropTaskRequiredToolRunsAsATaskWithStatusAndResult(t *testing.T) {
	var mu sync.Mutex
	var statuses []Progress
	rt := interopRuntime(t, func(e Event) {
		if e.Kind == EventProgress && e.Progress.Task != "" {
			mu.Lock()
			statuses = append(statuses, *e.Progress)
			mu.Unlock()
		}
	}, peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cat, err := rt.Catalog(ctx, "everything", false)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := cat.Lookup(KindTool, "simulate-research-query")
	if !ok || it.TaskSupport != "required" {
		t.Fatalf("simulate-research-query: found %v, taskSupport %q; want required", ok, it.TaskSupport)
	}
	var during []RunningTask
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			if ts := rt.Tasks(); len(ts) > 0 {
				during = ts
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out, err := rt.CallMeta(ctx, "mcp_invoke_everything", json.RawMessage(`{"tool":"simulate-research-query","arguments":{"topic":"howls"}}`))
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(string(out)), "howls") {
		t.Errorf("task result does not mention the topic: %s", out)
	}
	if len(during) != 1 || during[0].Tool != "simulate-research-query" || during[0].TaskID == "" {
		t.Errorf("Tasks() while running = %+v", during)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(statuses) == 0 {
		t.Error("no task status reached the events")
	}
	t.Logf("task statuses: %+v", statuses)
	if n := len(rt.Tasks()); n != 0 {
		t.Errorf("Tasks() lists %d after the call", n)
	}
}

func TestInteropCancellingATaskCancelsItOnTheServer(t *testing.T) {
	rt := interopRuntime(t, nil, peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := rt.Catalog(ctx, "everything", false); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(ctx, "mcp_invoke_everything", json.RawMessage(`{"tool":"simulate-research-query","arguments":{"topic":"cancelled"}}`))
		errc <- err
	}()
	var task RunningTask
	for i := 0; i < 250 && task.TaskID == ""; i++ {
		if ts := rt.Tasks(); len(ts) > 0 {
			task = ts[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if task.TaskID == "" {
		t.Fatal("the task never showed in Tasks()")
	}
	if !rt.Cancel(task.Token) {
		t.Fatal("Cancel did not find the task's call")
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("err = %v, want the task cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled task's call did not end")
	}
	if n := len(rt.Tasks()); n != 0 {
		t.Fatalf("Tasks() lists %d after the cancel", n)
	}
}
