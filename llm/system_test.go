package llm

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

func TestSystemPromptTeachesTheWorkflowAndListsServersSafely(t *testing.T) {
	long := strings.Repeat("Use the widgets wisely. ", 200)
	statuses := []mcp.Status{
		{Name: "alpha", State: mcp.StateReady, ServerInfo: &mcp.ServerInfo{Name: "alpha-srv", Title: "Alpha \x1b]0;pwned\x07Server", Version: "2.1"},
			Features: &mcp.Features{Name: "alpha", Tools: true, Resources: true, PeerInfoKnown: true}, Instructions: "Line one.\n\x1b[31mRed\x1b[0m line two."},
		{Name: "beta", State: mcp.StateReady, Features: &mcp.Features{Name: "beta", Prompts: true, PeerInfoKnown: true}, Instructions: long},
		{Name: "gamma", State: mcp.StateFailed, Reason: "exited with status 1"},
	}
	features := []mcp.Features{*statuses[0].Features, *statuses[1].Features}
	prompt := SystemPrompt(statuses, mcp.DeclarationsOf(mcp.FunctionsPerServer, features))
	for _, w := range []string{"mcp_search_<server>", "mcp_describe_<server>", "mcp_invoke_<server>", "coverage first",
		"- alpha (Alpha Server 2.1; offers tools, resources): mcp_search_alpha, mcp_describe_alpha, mcp_invoke_alpha, mcp_read_alpha.",
		"Instructions from the server: Line one.\n  Red line two.",
		"- beta (offers prompts): mcp_search_beta, mcp_describe_beta, mcp_prompt_beta.",
		"[clamped: 2048 of 4799 bytes]", "- gamma (failed: exited with status 1)"} {
		if !strings.Contains(prompt, w) {
			t.Errorf("prompt lacks %q", w)
		}
	}
	if strings.ContainsAny(prompt, "\x1b\x07") {
		t.Error("escape sequences reached the prompt")
	}
	if strings.Contains(prompt, "mcp_invoke_beta") {
		t.Error("a gated function was listed")
	}
	if p := SystemPrompt(nil, nil); !strings.Contains(p, "No MCP server is ready") {
		t.Errorf("no servers: %s", p)
	}
	// The shared set: the workflow names it, each server lists the shared
	// functions its capabilities pass.
	shared := SystemPrompt(statuses, mcp.DeclarationsOf(mcp.FunctionsShared, features))
	for _, w := range []string{"leave server out to search every server",
		"- alpha (Alpha Server 2.1; offers tools, resources): mcp_search, mcp_describe, mcp_invoke, mcp_read.",
		"- beta (offers prompts): mcp_search, mcp_describe, mcp_prompt."} {
		if !strings.Contains(shared, w) {
			t.Errorf("shared prompt lacks %q", w)
		}
	}
	if strings.Contains(shared, "mcp_search_") {
		t.Error("the shared prompt names per-server functions")
	}
}

func TestEncodeEventPutsTheTypeFirst(t *testing.T) {
	cases := []struct {
		e    Event
		want string
	}{
		{TextDelta{Text: "hi"}, `{"type":"text","text":"hi"}`},
		{ToolCallStarted{Step: 1, Call: ToolCall{ID: "c1", Name: "mcp_search_demo", Arguments: `{"query":"x"}`}},
			`{"type":"tool_start","step":1,"call":{"id":"c1","name":"mcp_search_demo","arguments":"{\"query\":\"x\"}"}}`},
		{Done{Reason: StopAnswered, Steps: 2, Usage: Usage{3, 4}}, `{"type":"done","reason":"answered","steps":2,"usage":{"input_tokens":3,"output_tokens":4}}`},
		{Retrying{Step: 1, Attempt: 1, MaxRetries: 3, Wait: time.Second, Reason: "429", Kind: KindRateLimit},
			`{"type":"retry","step":1,"attempt":1,"max_retries":3,"wait_ns":1000000000,"reason":"429","kind":"rate_limit"}`},
	}
	for _, c := range cases {
		b, err := EncodeEvent(c.e)
		if err != nil || string(b) != c.want || !json.Valid(b) {
			t.Errorf("EncodeEvent(%#v) = %s, %v; want %s", c.e, b, err, c.want)
		}
	}
}

func TestConversationRoundTripsThroughJSONAndClonesDeeply(t *testing.T) {
	conv := NewConversation()
	conv.AddUser("hi")
	conv.Messages = append(conv.Messages,
		Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "mcp_search_demo", Arguments: "{not json"}}, Usage: &Usage{1, 2}},
		Message{Role: RoleTool, ToolResults: []ToolResult{{CallID: "1", Name: "mcp_search_demo", IsError: true, Content: "bad", Duration: time.Millisecond}}})
	b, err := json.Marshal(conv)
	if err != nil {
		t.Fatal(err)
	}
	var back Conversation
	if err := json.Unmarshal(b, &back); err != nil || back.Messages[1].ToolCalls[0].Arguments != "{not json" || back.Messages[2].ToolResults[0].Duration != time.Millisecond {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	c := conv.Clone()
	c.Messages[1].ToolCalls[0].Name = "changed"
	c.Messages[1].Usage.InputTokens = 99
	if conv.Messages[1].ToolCalls[0].Name != "mcp_search_demo" || conv.Messages[1].Usage.InputTokens != 1 {
		t.Error("Clone shares memory with the original")
	}
}

func TestSummariesLeadWithCoverageAndMarkToolErrors(t *testing.T) {
	cases := []struct {
		name, content string
		want          string
		toolErr       bool
	}{
		{"mcp_search_demo", `{"coverage":"showing 2 of 2 matches","results":[]}`, "showing 2 of 2 matches", false},
		{"mcp_read_demo", `{"uri":"x","note":"showing bytes 0-10 of 99","text":"..."}`, "showing bytes 0-10 of 99", false},
		{"mcp_invoke_demo", `{"content":[{"type":"text","text":"boom\nmore"}],"isError":true}`, "tool error: boom …", true},
		{"mcp_invoke_demo", `{"content":[{"type":"text","text":"5"}]}`, "5", false},
		{"mcp_invoke", `{"content":[{"type":"text","text":"boom"}],"isError":true}`, "tool error: boom", true}, // the shared set
		{"mcp_describe_demo", `{"kind":"tool","server":"demo","id":"echo","name":"echo"}`, "tool echo", false},
		{"mcp_read_demo", `{"spilled":true,"path":"/tmp/x.png","size_bytes":12}`, "binary, 12 bytes, saved to /tmp/x.png", false},
	}
	for _, c := range cases {
		got, toolErr := summarize(c.name, c.content, false)
		if got != c.want || toolErr != c.toolErr {
			t.Errorf("summarize(%s) = %q %v, want %q %v", c.content, got, toolErr, c.want, c.toolErr)
		}
	}
	if got, _ := summarize("x", "line one\n\x1b[2Jline two", true); got != "line one …" {
		t.Errorf("error summary = %q", got)
	}
}

// The prompt, built on every model turn, sanitizes only the part of a
// server's instructions it can keep (MaxInstructionBytes), not all of
// them. Counted in bytes allocated: sanitizing a megabyte that starts with
// an escape sequence copies the megabyte.
func TestSystemPromptSanitizesOnlyTheInstructionsItKeeps(t *testing.T) {
	ins := "\x1b[31m" + strings.Repeat("x", 1<<20)
	statuses := []mcp.Status{{Name: "alpha", State: mcp.StateReady, Features: &mcp.Features{Name: "alpha", Tools: true, PeerInfoKnown: true}, Instructions: ins}}
	decls := mcp.DeclarationsOf(mcp.FunctionsPerServer, []mcp.Features{*statuses[0].Features})
	var prompt string
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		prompt = SystemPrompt(statuses, decls)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 256<<10 {
		t.Errorf("SystemPrompt allocated %d bytes a call for %d bytes of instructions, of which it keeps %d", per, len(ins), MaxInstructionBytes)
	}
	if want := fmt.Sprintf("[clamped: %d of %d bytes]", MaxInstructionBytes, len(ins)); !strings.Contains(prompt, want) || strings.Contains(prompt, "\x1b") {
		t.Errorf("prompt lacks %q or has an escape: ...%q", want, prompt[max(len(prompt)-200, 0):])
	}
}
