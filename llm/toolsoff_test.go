package llm

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

func TestTheModelNeverFindsDescribesOrCallsASwitchedOffTool(t *testing.T) {
	rt := startEntry(t, mcp.ServerConfig{
		Name: demo.Name, Transport: mcp.TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: map[string]string{fixtureEnv: "demo"},
		Era: mcp.EraLegacy, StartTimeout: 20 * time.Second,
		DisabledTools: []string{demo.EchoTool, "delete_*"},
	}, mcp.RuntimeOptions{})
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "s1", Name: "mcp_search_demo", Arguments: `{"query":"echo message back","limit":50}`},
			{ID: "s2", Name: "mcp_search_demo", Arguments: `{"query":"","limit":50}`},
			{ID: "s3", Name: "mcp_search_demo", Arguments: `{"query":"delete note"}`},
		}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "d1", Name: "mcp_describe_demo", Arguments: `{"tool":"echo"}`},
			{ID: "i1", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"hi"}}`},
			{ID: "i2", Name: "mcp_invoke_demo", Arguments: `{"tool":"delete_note","arguments":{}}`},
			{ID: "i3", Name: "mcp_invoke_demo", Arguments: `{"tool":"add","arguments":{"a":1,"b":2}}`},
		}},
		llmtest.Turn{Text: "done"},
	))
	conv := NewConversation()
	conv.AddUser("echo hi")
	if err := NewAgent(model, rt, Options{}).Run(context.Background(), conv, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if len(reqs[0].Tools) != 5 {
		t.Errorf("a server with a tool off keeps its five functions: %v", reqs[0].Tools)
	}
	for _, r := range reqs[1].ToolResults() {
		var res mcp.SearchResult
		if err := json.Unmarshal([]byte(r.Content), &res); err != nil {
			t.Fatalf("%s: %v: %s", r.CallID, err, r.Content)
		}
		for _, h := range res.Results {
			if h.Kind == mcp.KindTool && (h.ID == demo.EchoTool || strings.HasPrefix(h.ID, "delete_")) {
				t.Errorf("%s: the search returned the switched-off tool %s", r.CallID, h.ID)
			}
		}
		if r.CallID == "s2" && !strings.Contains(r.Content, `"id":"add"`) {
			t.Errorf("the other tools stay: %.300s", r.Content)
		}
	}
	results := reqs[2].ToolResults()
	if len(results) != 4 {
		t.Fatalf("results = %+v", results)
	}
	if d := results[0]; !strings.Contains(d.Content, `no tool "echo"`) || strings.Contains(d.Content, `"input_schema"`) {
		t.Errorf("describe of a switched-off tool: %+v", d)
	}
	for _, r := range results[1:3] {
		if !strings.Contains(r.Content, "switched off by the person") {
			t.Errorf("invoking a switched-off tool must fail with the reason: %+v", r)
		}
	}
	if r := results[3]; strings.Contains(r.Content, "switched off") || !strings.Contains(r.Content, "3") {
		t.Errorf("another tool still runs: %+v", r)
	}
	// Switched back on, it is found again.
	if err := rt.SetToolsOff(demo.Name, nil); err != nil {
		t.Fatal(err)
	}
	out, err := rt.CallMeta(context.Background(), "mcp_search_demo", json.RawMessage(`{"query":"echo message back"}`))
	if err != nil || !strings.Contains(string(out), `"kind":"tool","id":"echo"`) {
		t.Errorf("switched on, echo must be found: %v %.300s", err, out)
	}
}
