package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// isolateModel clears every variable howl reads to pick a model, and turns
// the Ollama probe off, so only what a test sets counts.
func isolateModel(t *testing.T) {
	t.Helper()
	for _, k := range []string{"HOWL_MODEL", "HOWL_BASE_URL", "HOWL_API_KEY_ENV", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
		"OPENROUTER_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OLLAMA_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOWL_OLLAMA_URL", "off")
}

// demoRuntime is a runtime on the same config `howl ask` uses, for the bytes
// the model should have received.
func demoRuntime(t *testing.T) *mcp.Runtime {
	t.Helper()
	cfg, err := loadConfig(&globalFlags{})
	if err != nil {
		t.Fatal(err)
	}
	store, _ := render.DefaultSpillStore()
	rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{Spill: store})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = rt.Wait(ctx)
	return rt
}

func wantCallMeta(t *testing.T, rt *mcp.Runtime, name, args string) string {
	t.Helper()
	out, err := rt.CallMeta(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return string(out)
}

// toolLines are the tool activity lines of ask's stderr.
func toolLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "howl: mcp_") {
			out = append(out, l)
		}
	}
	return out
}

func TestAskSearchesReadsAndPrintsTheAnswerOverOpenAICompatible(t *testing.T) {
	isolate(t)
	isolateModel(t)
	searchArgs := `{"query":"application log"}`
	readArgs := `{"uri":"` + demo.LogURI + `","pattern":"ERROR","max_bytes":2000}`
	answer := "The log's ERROR lines come from the payment service timing out."
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_search_demo", Arguments: searchArgs}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_2", Name: "mcp_read_demo", Arguments: readArgs}}},
		llmtest.Turn{Text: answer},
	))
	defer srv.Close()
	out, errOut, code := howl(t, "ask", "--model", "openai-compat/scripted", "--base-url", srv.URL, "What", "errors", "are", "in", "the", "log?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "Let me look.\n"+answer+"\n" {
		t.Errorf("stdout = %q", out)
	}
	lines := toolLines(errOut)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "howl: mcp_search_demo "+searchArgs+" → showing ") ||
		!regexp.MustCompile(`^howl: mcp_read_demo \{.*\} → .+ \[\d+(\.\d)? (B|KiB), [\d.]+(µs|ms|s)\]$`).MatchString(lines[1]) {
		t.Errorf("tool lines = %q", lines)
	}
	if !strings.Contains(errOut, "howl: asking openai-compat/scripted at "+srv.URL+" (from --model; endpoint from --base-url; no key sent)") {
		t.Errorf("stderr does not say which model: %s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Messages[0].Text != "What errors are in the log?" {
		t.Fatalf("%d requests: %+v", len(reqs), reqs)
	}
	rt := demoRuntime(t)
	got := []string{reqs[1].ToolResults()[0].Content, reqs[2].ToolResults()[0].Content}
	want := []string{wantCallMeta(t, rt, "mcp_search_demo", searchArgs), wantCallMeta(t, rt, "mcp_read_demo", readArgs)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tool result %d: the model received\n%.300s\nCallMeta returns\n%.300s", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[1], `"uri":"`+demo.LogURI+`"`) || strings.Index(got[1], `"note"`) > strings.Index(got[1], `"text"`) || len(got[1]) > 2000+2048 {
		t.Errorf("the read is not coverage-first: %.300s", got[1])
	}
	if auth := reqs[0].Header.Get("Authorization"); auth != "" {
		t.Errorf("a key was sent to a custom base URL: %q", auth)
	}
}

func TestAskOverAnthropicIsAutoDetectedAndStreamsTheAnswer(t *testing.T) {
	isolate(t)
	isolateModel(t)
	searchArgs := `{"query":"log"}`
	readArgs := `{"uri":"` + demo.LogURI + `","pattern":"WARN","max_bytes":1500}`
	answer := "There are WARN lines about slow queries."
	srv := llmtest.NewAnthropic(llmtest.Sequence(
		llmtest.Turn{Reasoning: "Search first.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "mcp_search_demo", Arguments: searchArgs}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "mcp_read_demo", Arguments: readArgs}}},
		llmtest.Turn{Text: answer},
	))
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	out, errOut, code := howl(t, "ask", "Any warnings in the log?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != answer+"\n" {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(errOut, "howl: asking anthropic/claude-sonnet-4-5 at "+srv.URL+" (auto-detected: $ANTHROPIC_API_KEY is set; endpoint from $ANTHROPIC_BASE_URL; key $ANTHROPIC_API_KEY)") || len(toolLines(errOut)) != 2 {
		t.Errorf("stderr = %s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Model != "claude-sonnet-4-5" || reqs[0].Header.Get("X-Api-Key") != "sk-ant-test" || !strings.Contains(reqs[0].System, "mcp_read_demo") {
		t.Fatalf("requests: %d, first %+v", len(reqs), reqs[0])
	}
	rt := demoRuntime(t)
	if got, want := reqs[1].ToolResults()[0].Content, wantCallMeta(t, rt, "mcp_search_demo", searchArgs); got != want {
		t.Errorf("search: the model received\n%.300s\nCallMeta returns\n%.300s", got, want)
	}
	if got, want := reqs[2].ToolResults()[0].Content, wantCallMeta(t, rt, "mcp_read_demo", readArgs); got != want {
		t.Errorf("read: the model received\n%.300s\nCallMeta returns\n%.300s", got, want)
	}
}

func TestAskJSONPrintsTheEventStream(t *testing.T) {
	isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp_invoke_demo", Arguments: `{"tool":"add","arguments":{"a":2,"b":3}}`}}, InputTokens: 10, OutputTokens: 2},
		llmtest.Turn{Text: "2 + 3 = 5", InputTokens: 20, OutputTokens: 4},
	))
	defer srv.Close()
	out, errOut, code := howl(t, "ask", "--json", "--allow", "demo:add", "--model", "ollama/scripted", "--base-url", srv.URL, "add 2 and 3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var types []string
	var text string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Summary string `json:"summary"`
			Reason  string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || !strings.HasPrefix(line, `{"type":`) {
			t.Fatalf("not a JSON event line: %q", line)
		}
		if len(types) == 0 || types[len(types)-1] != e.Type {
			types = append(types, e.Type)
		}
		if e.Type == "text" {
			text += e.Text
		}
		if e.Type == "tool_end" && e.Summary != "5" {
			t.Errorf("tool_end summary = %q", e.Summary)
		}
		if e.Type == "done" && e.Reason != "answered" {
			t.Errorf("done reason = %q", e.Reason)
		}
	}
	if strings.Join(types, ",") != "usage,tool_start,tool_end,text,usage,done" || text != "2 + 3 = 5" {
		t.Errorf("event types %v, text %q", types, text)
	}
	if errOut != "" {
		t.Errorf("--json wrote to stderr: %q", errOut)
	}
}

func TestAskStopsAtTheStepLimitAndSaysHowToGoOn(t *testing.T) {
	dir := isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(func(int, llmtest.Request) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_search_demo", Arguments: `{"query":"echo"}`}}}
	})
	defer srv.Close()
	exe, _ := os.Executable()
	cfg := filepath.Join(dir, "howl.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"demo": {"command": "`+exe+`", "args": ["demo-server"]}},
		"model": "vllm/scripted", "base_url": "`+srv.URL+`", "max_steps": 10}`), 0o644)
	_, errOut, code := howl(t, "--config", cfg, "ask", "--max-steps", "2", "search forever")
	if code != exitServer {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"howl: asking vllm/scripted at " + srv.URL + " (from \"model\" in " + cfg + "; endpoint from \"base_url\" in " + cfg + "; no key sent)", "stopped after 2 model steps without a final answer",
		"the step limit (max_steps 2) was reached", "ask it to continue", "--max-steps", `"max_steps" in the config`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %s", w, errOut)
		}
	}
	if n := len(srv.Requests()); n != 2 || len(toolLines(errOut)) != 1 {
		t.Errorf("%d requests, tool lines %q", n, toolLines(errOut))
	}
}

func TestAskRetriesARateLimitAfterItsRetryAfter(t *testing.T) {
	isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "1"}, ErrorMessage: "Rate limit reached for gpt-4.1", ErrorType: "rate_limit_error"},
		llmtest.Turn{Text: "Hello after waiting."},
	))
	defer srv.Close()
	out, errOut, code := howl(t, "ask", "--model", "lmstudio/scripted", "--base-url", srv.URL, "hello")
	if code != 0 || out != "Hello after waiting.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "is rate limiting requests (429 Too Many Requests: Rate limit reached for gpt-4.1): retrying in 1s (retry 1 of 3)") {
		t.Errorf("stderr = %s", errOut)
	}
}

func TestAskWithAnInvalidKeyNamesTheVariableAndTheFix(t *testing.T) {
	isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(func(int, llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Status: 401, ErrorMessage: "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.", ErrorType: "invalid_request_error"}
	})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-bad")
	t.Setenv("OPENAI_BASE_URL", srv.URL) // the native OpenAI provider, moved to the stand-in
	_, errOut, code := howl(t, "ask", "--model", "openai/gpt-4.1", "hello")
	if code != exitServer {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"openai rejected the API key from $OPENAI_API_KEY", "401 Unauthorized", "Incorrect API key provided",
		"check that $OPENAI_API_KEY holds a valid, active key for openai", `"api_key_env"`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %s", w, errOut)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-bad" || reqs[0].Model != "gpt-4.1" {
		t.Errorf("requests: %d, %+v", len(reqs), reqs)
	}
}

func TestAskWithoutAModelSaysHowToConfigureOne(t *testing.T) {
	isolate(t)
	isolateModel(t)
	_, errOut, code := howl(t, "ask", "hello")
	if code != exitUsage {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"no model is configured", "export ANTHROPIC_API_KEY=", "ollama serve", `"model": "provider/name"`, "--model"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %s", w, errOut)
		}
	}
	if out, _, code := howl(t, "search", "demo", "log", "--json"); code != 0 || !strings.Contains(out, `"coverage"`) {
		t.Errorf("without a model, search fails: %d", code)
	}
}

// syncBuffer is a bytes.Buffer safe to read while run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAskInterruptedDuringAToolCallExitsPromptlyAndSaysSo(t *testing.T) {
	interrupt := selfInterrupter(t)
	isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "slow", Name: "mcp_invoke_demo", Arguments: `{"tool":"` + demo.SlowTool + `","arguments":{"duration_ms":20000,"steps":100}}`}}},
		llmtest.Turn{Text: "never"},
	))
	defer srv.Close()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"ask", "--json", "--allow", "demo:*", "--model", "openai-compat/scripted", "--base-url", srv.URL, "run the slow tool"}, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), `"type":"tool_start"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow call never started: %s %s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let the server get to work on it
	start := time.Now()
	if err := interrupt(); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitServer {
			t.Errorf("exit %d", code)
		}
		t.Logf("exited %s after SIGINT: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(errOut.String()))
	case <-time.After(5 * time.Second):
		t.Fatal("howl ask did not exit within 5 s of SIGINT")
	}
	if !strings.Contains(errOut.String(), "howl: cancelled while mcp_invoke_demo was running (howl told the server to cancel it)") {
		t.Errorf("stderr = %s", errOut.String())
	}
	if !strings.Contains(out.String(), `"type":"done","reason":"cancelled"`) || len(srv.Requests()) != 1 {
		t.Errorf("stdout = %s, %d requests", out.String(), len(srv.Requests()))
	}
}

// howl ask cannot ask a person, so it denies any tool call no rule allows,
// says so on stderr, and the model is told; read-only functions run.
func TestAskDeniesUnallowedToolCallsAndAllowsWithFlags(t *testing.T) {
	isolate(t)
	isolateModel(t)
	script := func() *llmtest.Server {
		return llmtest.NewOpenAI(llmtest.Sequence(
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{
				{ID: "s", Name: "mcp_search_demo", Arguments: `{"query":"note"}`},
				{ID: "d", Name: "mcp_invoke_demo", Arguments: `{"tool":"delete_note","arguments":{"id":"note-001"}}`},
				{ID: "e", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"hi"}}`},
			}},
			llmtest.Turn{Text: "done"},
		))
	}
	denied := func(r llmtest.ToolResult) bool {
		return strings.HasPrefix(r.Content, "not run: the user did not allow")
	}
	results := func(srv *llmtest.Server) map[string]llmtest.ToolResult {
		reqs := srv.Requests()
		out := map[string]llmtest.ToolResult{}
		for _, r := range reqs[len(reqs)-1].ToolResults() {
			out[r.CallID] = r
		}
		return out
	}
	model := func(srv *llmtest.Server) []string {
		return []string{"--model", "openai-compat/scripted", "--base-url", srv.URL}
	}
	// No rule: search runs, both invokes are denied and the model is told.
	srv := script()
	_, errOut, code := howl(t, append(append([]string{"ask", "--no-save"}, model(srv)...), "tidy the notes")...)
	srv.Close()
	res := results(srv)
	if code != 0 || denied(res["s"]) || !denied(res["d"]) || !denied(res["e"]) ||
		!strings.Contains(res["d"].Content, "the user did not allow delete_note on demo (annotated destructive)") ||
		strings.Count(errOut, "DENIED") != 2 {
		t.Fatalf("exit %d, results %+v\nstderr %s", code, res, errOut)
	}
	// A wildcard allows echo but never the destructive delete_note.
	srv = script()
	howl(t, append(append([]string{"ask", "--no-save", "--allow", "demo:*"}, model(srv)...), "tidy the notes")...)
	srv.Close()
	res = results(srv)
	if denied(res["e"]) || !denied(res["d"]) {
		t.Errorf("demo:* must allow echo, not delete_note: %+v", res)
	}
	// --allow-read-only: echo is annotated read-only, delete_note is not.
	srv = script()
	howl(t, append(append([]string{"ask", "--no-save", "--allow-read-only"}, model(srv)...), "tidy the notes")...)
	srv.Close()
	res = results(srv)
	if denied(res["e"]) || !denied(res["d"]) {
		t.Errorf("--allow-read-only: %+v", res)
	}
	// Naming the destructive tool, or --yes, allows it.
	for _, flag := range [][]string{{"--allow", "demo:delete_note"}, {"--yes"}} {
		srv = script()
		howl(t, append(append(append([]string{"ask", "--no-save"}, flag...), model(srv)...), "tidy the notes")...)
		srv.Close()
		if res := results(srv); denied(res["d"]) {
			t.Errorf("%v: delete_note still denied: %+v", flag, res["d"])
		}
	}
	if _, errOut, code := howl(t, "ask", "--allow", "nocolon", "x"); code != exitUsage || !strings.Contains(errOut, "SERVER:TOOL") {
		t.Errorf("bad --allow: %d %s", code, errOut)
	}
	out, _, _ := howl(t, "ask", "--help")
	if !strings.Contains(out, "UNSAFE") {
		t.Error("--help does not name --yes unsafe")
	}
}

// TestAskSaysWhenItStoppedReadingAReplyAtMaxReplyBytes: a model stuck
// repeating itself is printed up to llm.MaxReplyBytes; stderr says howl
// stopped there, naming the bound, and ask ends as answered.
func TestAskSaysWhenItStoppedReadingAReplyAtMaxReplyBytes(t *testing.T) {
	isolate(t)
	isolateModel(t)
	piece := strings.Repeat("over and over ", 200)
	srv := llmtest.NewOpenAI(llmtest.Sequence(llmtest.Turn{Text: piece, Repeat: 2 * llm.MaxReplyBytes / len(piece)}))
	defer srv.Close()
	out, errOut, code := howl(t, "ask", "--model", "openai-compat/scripted", "--base-url", srv.URL, "Say", "something.")
	if code != 0 {
		t.Fatalf("exit %d: %.500s", code, errOut)
	}
	if len(out) != llm.MaxReplyBytes+1 || !strings.HasPrefix(out, piece) {
		t.Errorf("stdout is %d bytes, want the reply up to MaxReplyBytes (%d) and a newline", len(out), llm.MaxReplyBytes)
	}
	if want := "howl: " + llm.OverMaxBytesText() + "\n"; !strings.Contains(errOut, want) || !strings.Contains(want, "MaxReplyBytes (4194304 bytes)") {
		t.Errorf("stderr lacks %q: %.500s", want, errOut)
	}
}
