package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// serveFastPollTask is mcp-go's task server with one tool, "stall", that
// must run as a task and never ends, every task it reports rewritten to
// suggest pollInterval 1 (ms). Its tool "polls" answers how many tasks/get
// it has been sent.
func serveFastPollTask() int {
	var polls atomic.Int64
	s := server.NewMCPServer("fast-poll", "1.0", server.WithToolCapabilities(false), server.WithTaskCapabilities(true, true, true))
	s.AddTool(mcpgo.NewTool("stall", mcpgo.WithTaskSupport(mcpgo.TaskSupportRequired)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			// Not the request's context: mcp-go's stdio server ends it once
			// the task is created. The task stays "working" until howl
			// ends the process.
			time.Sleep(time.Hour)
			return mcpgo.NewToolResultText("stalled"), nil
		})
	s.AddTool(mcpgo.NewTool("polls"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText(strconv.FormatInt(polls.Load(), 10)), nil
	})
	return proxyStdio(s, func(method string, _, _ json.RawMessage) []byte {
		if method == "tasks/get" {
			polls.Add(1)
		}
		return nil
	}, func(resp map[string]json.RawMessage) {
		var res map[string]json.RawMessage
		if json.Unmarshal(resp["result"], &res) != nil {
			return
		}
		switch {
		case res["task"] != nil: // CreateTaskResult
			var task map[string]json.RawMessage
			if json.Unmarshal(res["task"], &task) == nil {
				task["pollInterval"] = json.RawMessage(`1`)
				res["task"], _ = json.Marshal(task)
			}
		case res["taskId"] != nil: // tasks/get
			res["pollInterval"] = json.RawMessage(`1`)
		default:
			return
		}
		resp["result"], _ = json.Marshal(res)
	})
}

// A task whose server asks to be polled every millisecond is polled no
// more often than MinTaskPollInterval. The bound is checked by counting
// the server's tasks/get against the time the call ran: n polls need at
// least n-1 waits of the floor, however slow the machine.
func TestATaskAskingForOneMillisecondPollsIsPolledAtTheFloor(t *testing.T) {
	rt := startRuntime(t, fixture("tasks-fast-poll"))
	if _, err := rt.Catalog(context.Background(), "tasks-fast-poll", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(ctx, "mcp_invoke_tasks-fast-poll", json.RawMessage(`{"tool":"stall"}`))
		errc <- err
	}()
	for i := 0; i < 500 && len(rt.Tasks()) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if len(rt.Tasks()) == 0 {
		t.Fatal("the task never showed in Tasks()")
	}
	time.Sleep(time.Second)
	cancel()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v, want the task cancelled", err)
	}
	ran := time.Since(start)
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_tasks-fast-poll", json.RawMessage(`{"tool":"polls"}`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("polls answered %s (%v)", out, err)
	}
	polls, err := strconv.Atoi(res.Content[0].Text)
	if err != nil {
		t.Fatalf("polls answered %s", out)
	}
	most := int(ran/MinTaskPollInterval) + 2
	if polls == 0 || polls > most {
		t.Fatalf("%d tasks/get in %s; want 1 to %d (one per MinTaskPollInterval, %s)", polls, ran, most, MinTaskPollInterval)
	}
	t.Logf("%d tasks/get in %s", polls, ran)
}
