package llm

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// callMeta is what the model must receive for a call: the runtime's own
// answer to the same arguments, or its error's message.
func callMeta(t *testing.T, rt *mcp.Runtime, name, args string) (string, bool) {
	t.Helper()
	out, err := rt.CallMeta(context.Background(), name, json.RawMessage(args))
	if err != nil {
		return err.Error(), true
	}
	return string(out), false
}

func TestRunSendsTheModelExactlyWhatCallMetaReturnsAndStreamsTheAnswer(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	searchArgs := `{"query":"log"}`
	readArgs := `{"uri":"` + demo.LogURI + `","pattern":"ERROR","max_bytes":3000}`
	describeArgs := `{"tool":"echo"}`
	answer := "The application log shows ERROR lines from the payment service."
	// The server writes each piece of the answer after the last one
	// reached the person: pieces that arrive together are merged
	// (coalescingTransport), pieces that come apart stream apart.
	pace := make(chan struct{}, 8)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_search_demo", Arguments: searchArgs}}, InputTokens: 100, OutputTokens: 10},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "call_2", Name: "mcp_read_demo", Arguments: readArgs},
			{ID: "call_3", Name: "mcp_describe_demo", Arguments: describeArgs},
		}, InputTokens: 200, OutputTokens: 20},
		llmtest.Turn{Text: answer, InputTokens: 300, OutputTokens: 30, Pace: pace},
	))
	conv := NewConversation()
	conv.AddUser("What errors are in the app log?")
	rec := newRecorder()
	on := func(e Event) {
		rec.on(e)
		if _, ok := e.(TextDelta); ok {
			pace <- struct{}{}
		}
	}
	if err := NewAgent(model, rt, Options{}).Run(context.Background(), conv, on); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if !reqs[0].Stream || len(reqs[0].Tools) != 5 || !strings.Contains(reqs[0].System, "mcp_search_demo") ||
		!strings.Contains(reqs[0].System, "safe, deterministic playground") {
		t.Errorf("first request: stream %v, tools %v, system %.300q", reqs[0].Stream, reqs[0].Tools, reqs[0].System)
	}
	want := []struct{ name, args string }{{"mcp_search_demo", searchArgs}, {"mcp_read_demo", readArgs}, {"mcp_describe_demo", describeArgs}}
	got := append(reqs[1].ToolResults(), reqs[2].ToolResults()...)
	if len(got) != 3 {
		t.Fatalf("tool results = %+v", got)
	}
	for i, w := range want {
		content, _ := callMeta(t, rt, w.name, w.args)
		if got[i].Content != content {
			t.Errorf("%s: the model received\n%.300s\nCallMeta returns\n%.300s", w.name, got[i].Content, content)
		}
		if got[i].CallID != "call_"+string(rune('1'+i)) {
			t.Errorf("result %d answers %q", i, got[i].CallID)
		}
	}
	read := got[1].Content
	if !strings.Contains(read, `"pattern":"ERROR"`) || strings.Index(read, `"note"`) > strings.Index(read, `"text"`) || len(read) > 3000+2048 {
		t.Errorf("the read is not bounded coverage-first: %.400s", read)
	}

	if conv.Answer() != answer {
		t.Errorf("answer = %q", conv.Answer())
	}
	roles := ""
	for _, m := range conv.Messages {
		roles += string(m.Role[0])
	}
	if roles != "uatata" {
		t.Errorf("conversation roles = %s, want uatata", roles)
	}
	events := rec.all()
	var text strings.Builder
	for _, d := range eventsOf[TextDelta](events) {
		text.WriteString(d.Text)
	}
	if text.String() != answer || len(eventsOf[TextDelta](events)) < 2 {
		t.Errorf("streamed %d deltas: %q", len(eventsOf[TextDelta](events)), text.String())
	}
	started, finished := eventsOf[ToolCallStarted](events), eventsOf[ToolCallFinished](events)
	if len(started) != 3 || len(finished) != 3 {
		t.Fatalf("started %d, finished %d", len(started), len(finished))
	}
	for _, f := range finished {
		// Windows' monotonic clock moves in ticks of up to 15.6 ms: a fast
		// call can measure 0 there.
		if f.IsError || f.Summary == "" || f.Bytes == 0 || f.Duration < 0 || f.Duration == 0 && runtime.GOOS != "windows" {
			t.Errorf("finished event %+v", f)
		}
	}
	if !strings.HasPrefix(finished[0].Summary, "showing ") {
		t.Errorf("search summary = %q, want its coverage line", finished[0].Summary)
	}
	done, ok := events[len(events)-1].(Done)
	if !ok || done.Reason != StopAnswered || done.Steps != 3 || done.Usage != (Usage{600, 60}) {
		t.Errorf("last event = %#v", events[len(events)-1])
	}
}

func TestRunOverAnthropicStreamsThinkingAndReturnsErrorsAsErrorResults(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	brokenArgs := `{"uri":"demo://data/broken"}`
	badArgs := `{"tool":"echo","arguments":{"nope":1}}`
	srv, model := scriptedAnthropic(t, llmtest.Sequence(
		llmtest.Turn{Reasoning: "I should read the broken file and try echo.", ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_1", Name: "mcp_read_demo", Arguments: brokenArgs},
			{ID: "toolu_2", Name: "mcp_invoke_demo", Arguments: badArgs},
			{ID: "toolu_3", Name: "mcp_search_nosuch", Arguments: `{"query":"x"}`},
		}},
		llmtest.Turn{Text: "Both calls failed; the server says the file is broken."},
	))
	conv := NewConversation()
	conv.AddUser("Read the broken file.")
	rec := newRecorder()
	if err := NewAgent(model, rt, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "claude-scripted" || reqs[0].Header.Get("X-Api-Key") != "sk-ant-test" {
		t.Fatalf("requests: %d, model %q, key %q", len(reqs), reqs[0].Model, reqs[0].Header.Get("X-Api-Key"))
	}
	results := reqs[1].ToolResults()
	calls := [][2]string{{"mcp_read_demo", brokenArgs}, {"mcp_invoke_demo", badArgs}, {"mcp_search_nosuch", `{"query":"x"}`}}
	if len(results) != len(calls) {
		t.Fatalf("tool results = %+v", results)
	}
	for i, c := range calls {
		want, isErr := callMeta(t, rt, c[0], c[1])
		if !isErr || !results[i].IsError || results[i].Content != want {
			t.Errorf("%s: the model got is_error=%v %q; CallMeta failed=%v with %q", c[0], results[i].IsError, results[i].Content, isErr, want)
		}
	}
	var se *mcp.ServerError
	if _, err := rt.CallMeta(context.Background(), "mcp_read_demo", json.RawMessage(brokenArgs)); !errors.As(err, &se) {
		t.Errorf("the broken read should be a server error, got %T", err)
	}
	var ce *mcp.CallError
	if _, err := rt.CallMeta(context.Background(), "mcp_search_nosuch", json.RawMessage(`{}`)); !errors.As(err, &ce) {
		t.Errorf("an unknown server should be a call error, got %T", err)
	}
	var thinking strings.Builder
	for _, d := range eventsOf[ReasoningDelta](rec.all()) {
		thinking.WriteString(d.Text)
	}
	if thinking.String() != "I should read the broken file and try echo." || conv.Messages[1].Reasoning != thinking.String() {
		t.Errorf("reasoning streamed %q, recorded %q", thinking.String(), conv.Messages[1].Reasoning)
	}
	for _, f := range eventsOf[ToolCallFinished](rec.all()) {
		if !f.IsError {
			t.Errorf("%s finished without error: %+v", f.Name, f)
		}
	}
}

func TestCancellingDuringAToolCallCancelsItAtTheServer(t *testing.T) {
	cancelledAtServer := make(chan string, 4)
	progressed := make(chan struct{}, 200)
	rt := startDemo(t, mcp.RuntimeOptions{LogLevel: "info", OnEvent: func(e mcp.Event) {
		if e.Kind == mcp.EventNotification && e.Method == "notifications/progress" {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}
		if e.Kind == mcp.EventNotification && e.Method == "notifications/message" {
			if d, _ := e.Params["data"].(string); strings.Contains(d, "cancelled") {
				cancelledAtServer <- d
			}
		}
	}})
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_slow", Name: "mcp_invoke_demo",
			Arguments: `{"tool":"slow","arguments":{"duration_ms":20000,"steps":100}}`}}},
		llmtest.Turn{Text: "never sent"},
	))
	conv := NewConversation()
	conv.AddUser("Run the slow tool.")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- NewAgent(model, rt, Options{}).Run(ctx, conv, rec.on) }()
	rec.waitFor(t, "tool_start", func(e Event) bool { _, ok := e.(ToolCallStarted); return ok })
	select { // cancel once the server is demonstrably working on it
	case <-progressed:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress from the slow tool")
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the cancellation")
	}
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindCancelled || !errors.Is(err, context.Canceled) ||
		!strings.Contains(err.Error(), "cancelled while mcp_invoke_demo was running") {
		t.Errorf("Run returned %v", err)
	}
	select {
	case msg := <-cancelledAtServer:
		t.Logf("server said: %s", msg)
	case <-time.After(10 * time.Second):
		t.Error("the server never saw the cancellation")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests after the cancellation, want 1", n)
	}
	last, _ := conv.Last()
	if last.Role != RoleTool || len(last.ToolResults) != 1 || !last.ToolResults[0].IsError || !strings.Contains(last.ToolResults[0].Content, "cancelled") {
		t.Errorf("the conversation should end with the cancelled call's result: %+v", last)
	}
	events := rec.all()
	if d, ok := events[len(events)-1].(Done); !ok || d.Reason != StopCancelled {
		t.Errorf("last event = %#v", events[len(events)-1])
	}
}

func TestCancellingWhileTheModelStreamsStopsAtOnceAndRecordsNothing(t *testing.T) {
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Text: "This answer never finishes streaming.", Stall: true}))
	conv := NewConversation()
	conv.AddUser("Say something.")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newRecorder()
	done := make(chan error, 1)
	go func() { done <- NewAgent(model, noTools{}, Options{}).Run(ctx, conv, rec.on) }()
	rec.waitFor(t, "text", func(e Event) bool { _, ok := e.(TextDelta); return ok })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled while waiting for openai-compat/scripted") {
			t.Errorf("Run returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the cancellation")
	}
	if len(conv.Messages) != 1 || len(srv.Requests()) != 1 {
		t.Errorf("after a cancelled stream: %d messages, %d requests", len(conv.Messages), len(srv.Requests()))
	}
}

// noTools is a Tools with no servers.
type noTools struct{}

func (noTools) Declarations() []mcp.FunctionDecl { return nil }
func (noTools) Status() []mcp.Status             { return nil }
func (noTools) CallMeta(context.Context, string, json.RawMessage) ([]byte, error) {
	return nil, &mcp.CallError{Msg: "no servers"}
}

func TestTheStepLimitIsToldToTheUserAndToTheModel(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	search := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_search_demo", Arguments: `{"query":"echo"}`}}}
	srv, model := scriptedOpenAI(t, llmtest.Sequence(search, search, llmtest.Turn{Text: "I found the echo tool; that is all so far."}))
	conv := NewConversation()
	conv.AddUser("Search forever.")
	rec := newRecorder()
	agent := NewAgent(model, rt, Options{MaxSteps: 2})
	err := agent.Run(context.Background(), conv, rec.on)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindStepLimit {
		t.Fatalf("Run returned %v", err)
	}
	msg := err.Error()
	t.Logf("message: %s", msg)
	for _, want := range []string{"stopped after 2 model steps", "max_steps 2", "mcp_search_demo", "--max-steps", `"max_steps"`, "continue"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the step-limit message lacks %q: %s", want, msg)
		}
	}
	if d, ok := rec.all()[len(rec.all())-1].(Done); !ok || d.Reason != StopStepLimit || d.Steps != 2 {
		t.Errorf("last event = %#v", rec.all()[len(rec.all())-1])
	}
	if len(eventsOf[ToolCallStarted](rec.all())) != 1 {
		t.Errorf("the call of the last step ran")
	}
	// The person says go on: the model now reads why its call did not run.
	if err := agent.Run(context.Background(), conv, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	told := reqs[2].ToolResults()
	if len(told) != 1 || !strings.Contains(told[0].Content, "step limit (max_steps 2") { // (the OpenAI wire has no is_error)
		t.Errorf("the model was not told about the step limit: %+v", told)
	}
}

func TestRateLimitIsRetriedAfterTheRetryAfterTheProviderGives(t *testing.T) {
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "1"}, ErrorMessage: "Rate limit reached for requests", ErrorType: "rate_limit_error"},
		llmtest.Turn{Text: "Answer after the wait."},
	))
	conv := NewConversation()
	conv.AddUser("Hi")
	rec := newRecorder()
	if err := NewAgent(model, noTools{}, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	retries := eventsOf[Retrying](rec.all())
	if len(retries) != 1 || retries[0].Wait != time.Second || retries[0].Attempt != 1 || retries[0].Kind != KindRateLimit ||
		!strings.Contains(retries[0].Reason, "rate limiting") || !strings.Contains(retries[0].Reason, "429") {
		t.Errorf("retry events = %+v", retries)
	}
	if len(srv.Requests()) != 2 || conv.Answer() != "Answer after the wait." {
		t.Errorf("%d requests, answer %q", len(srv.Requests()), conv.Answer())
	}
}

func TestARateLimitThatOutlastsTheRetriesNamesCauseAndFix(t *testing.T) {
	always429 := func(int, llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Status: 429, ErrorMessage: "Rate limit reached", ErrorType: "rate_limit_error"}
	}
	srv, model := scriptedOpenAI(t, always429)
	conv := NewConversation()
	conv.AddUser("Hi")
	err := NewAgent(model, noTools{}, Options{Retry: &RetryPolicy{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: time.Second}}).Run(context.Background(), conv, nil)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindRateLimit || le.Retries != 2 || len(srv.Requests()) != 3 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
	t.Logf("message: %s", err)
	for _, want := range []string{"is rate limiting requests", "429 Too Many Requests", "Rate limit reached", "still after 2 retries", "wait a little and ask again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}
	if len(conv.Messages) != 1 {
		t.Errorf("the failed run changed the conversation: %+v", conv.Messages)
	}

	// A Retry-After longer than howl waits is not waited for.
	srv2, model2 := scriptedOpenAI(t, func(int, llmtest.Request) llmtest.Turn {
		return llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "300"}, ErrorMessage: "slow down"}
	})
	err = NewAgent(model2, noTools{}, Options{}).Run(context.Background(), conv, nil)
	if len(srv2.Requests()) != 1 || !strings.Contains(err.Error(), "it asks to wait 5m0s, longer than howl waits (1m0s)") || !strings.Contains(err.Error(), "ask again in 5m0s") {
		t.Errorf("%d requests: %v", len(srv2.Requests()), err)
	}
}

func TestAnInvalidKeyNamesTheVariableAndTheFix(t *testing.T) {
	for _, p := range []struct {
		name  string
		start func(testing.TB, llmtest.Script) (*llmtest.Server, Model)
		want  []string
	}{
		{"openai-compatible", scriptedOpenAI, []string{"openai-compat at http://", "wants an API key and howl sent none", "401 Unauthorized", "Incorrect API key", `"api_key_env"`}},
		{"anthropic", scriptedAnthropic, []string{"anthropic rejected the API key from $ANTHROPIC_API_KEY", "401 Unauthorized", "invalid x-api-key", "check that $ANTHROPIC_API_KEY holds a valid"}},
	} {
		t.Run(p.name, func(t *testing.T) {
			srv, model := p.start(t, func(int, llmtest.Request) llmtest.Turn {
				msg := "Incorrect API key provided"
				if p.name == "anthropic" {
					msg = "invalid x-api-key"
				}
				return llmtest.Turn{Status: 401, ErrorMessage: msg, ErrorType: "authentication_error"}
			})
			conv := NewConversation()
			conv.AddUser("Hi")
			rec := newRecorder()
			err := NewAgent(model, noTools{}, Options{}).Run(context.Background(), conv, rec.on)
			var le *Error
			if !errors.As(err, &le) || le.Kind != KindAuth || le.Status != 401 {
				t.Fatalf("Run returned %v", err)
			}
			t.Logf("message: %s", err)
			for _, w := range p.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q: %s", w, err)
				}
			}
			if len(srv.Requests()) != 1 || len(eventsOf[Retrying](rec.all())) != 0 {
				t.Errorf("a bad key was retried")
			}
			ev := eventsOf[ErrorEvent](rec.all())
			if len(ev) != 1 || ev[0].Message != err.Error() {
				t.Errorf("error events = %+v", ev)
			}
		})
	}
}

func TestProviderErrorsBecomeMessagesThatTeach(t *testing.T) {
	cases := []struct {
		name string
		turn llmtest.Turn
		kind Kind
		want []string
	}{
		{"unknown model", llmtest.Turn{Status: 404, ErrorMessage: "The model `scripted` does not exist or you do not have access to it.", ErrorType: "invalid_request_error"},
			KindUnknownModel, []string{`does not serve the model "scripted"`, "404 Not Found", "check the name after \"openai-compat/\"", "/v1/models"}},
		{"context window", llmtest.Turn{Status: 400, ErrorMessage: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", ErrorType: "invalid_request_error"},
			KindContextWindow, []string{"no longer fits", "9000 tokens, the limit is 8192", "start a new conversation"}},
		{"overloaded", llmtest.Turn{Status: 503, ErrorMessage: "overloaded", ErrorType: "server_error"},
			KindProvider, []string{"failed to answer", "503 Service Unavailable", "still after 1 retry"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, model := scriptedOpenAI(t, func(int, llmtest.Request) llmtest.Turn { return c.turn })
			conv := NewConversation()
			conv.AddUser("Hi")
			err := NewAgent(model, noTools{}, Options{Retry: &RetryPolicy{MaxRetries: 1, InitialDelay: time.Millisecond, MaxDelay: time.Second}}).Run(context.Background(), conv, nil)
			var le *Error
			if !errors.As(err, &le) || le.Kind != c.kind {
				t.Fatalf("Run returned %v (%T)", err, err)
			}
			t.Logf("message: %s", err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q: %s", w, err)
				}
			}
		})
	}
}

func TestAnUnreachableEndpointIsANetworkErrorThatSaysWhatToCheck(t *testing.T) {
	srv := llmtest.NewOpenAI(llmtest.Sequence())
	url := srv.URL
	srv.Close()
	c, err := Resolve(context.Background(), ResolveOptions{Flags: Settings{Model: "ollama/llama3.2", BaseURL: url}, Getenv: noEnv, OllamaURL: "off"})
	if err != nil {
		t.Fatal(err)
	}
	model, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	conv := NewConversation()
	conv.AddUser("Hi")
	rec := newRecorder()
	err = NewAgent(model, noTools{}, Options{Retry: &RetryPolicy{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: time.Second}}).Run(context.Background(), conv, rec.on)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindNetwork || len(eventsOf[Retrying](rec.all())) != 2 {
		t.Fatalf("Run returned %v", err)
	}
	t.Logf("message: %s", err)
	for _, w := range []string{"cannot reach ollama/llama3.2 at " + url, "connection refused", "is the server running?", "`ollama serve`"} {
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(w)) { // Windows says "Connection refused."
			t.Errorf("message lacks %q: %s", w, err)
		}
	}
}

func TestThePermitHookCanRefuseACallAndTheModelReadsWhy(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "a", Name: "mcp_invoke_demo", Arguments: `{"tool":"delete_note","arguments":{"uri":"demo://notes/1"}}`},
			{ID: "b", Name: "mcp_search_demo", Arguments: `{"query":"note"}`},
		}},
		llmtest.Turn{Text: "ok"},
	))
	var asked []string
	permit := func(_ context.Context, c ToolCall) error {
		asked = append(asked, c.Name)
		if strings.HasPrefix(c.Name, mcp.PrefixInvoke) {
			return errors.New("the user declined to run delete_note")
		}
		return nil
	}
	conv := NewConversation()
	conv.AddUser("Delete a note.")
	rec := newRecorder()
	if err := NewAgent(model, rt, Options{Permit: permit}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "mcp_invoke_demo,mcp_search_demo" {
		t.Errorf("asked about %v", asked)
	}
	res := srv.Requests()[1].ToolResults()
	if len(res) != 2 || res[0].Content != "not run: the user declined to run delete_note" || strings.HasPrefix(res[1].Content, "not run") {
		t.Errorf("results = %+v", res)
	}
	var denied int
	for _, f := range eventsOf[ToolCallFinished](rec.all()) {
		if f.Denied {
			denied++
		}
	}
	if denied != 1 || len(eventsOf[ToolCallStarted](rec.all())) != 1 {
		t.Errorf("denied %d, started %d", denied, len(eventsOf[ToolCallStarted](rec.all())))
	}
}

func TestStartDeliversEveryEventAndClosesAfterDone(t *testing.T) {
	_, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Text: "Hello there, person."}))
	conv := NewConversation()
	conv.AddUser("Hi")
	var last Event
	var text string
	for e := range NewAgent(model, noTools{}, Options{}).Start(context.Background(), conv) {
		if d, ok := e.(TextDelta); ok {
			text += d.Text
		}
		last = e
	}
	if d, ok := last.(Done); !ok || d.Reason != StopAnswered || text != "Hello there, person." || conv.Answer() != text {
		t.Errorf("last %#v, text %q, answer %q", last, text, conv.Answer())
	}
}

func TestRunRefusesAConversationWithNothingToAnswer(t *testing.T) {
	_, model := scriptedOpenAI(t, llmtest.Sequence())
	err := NewAgent(model, noTools{}, Options{}).Run(context.Background(), NewConversation(), nil)
	if err == nil || !strings.Contains(err.Error(), "nothing for the model to answer") || !strings.Contains(err.Error(), "AddUser") {
		t.Errorf("Run on an empty conversation: %v", err)
	}
}

func TestATruncatedAnswerIsMarked(t *testing.T) {
	_, model := scriptedAnthropic(t, llmtest.Sequence(llmtest.Turn{Text: "A long answer that gets cut", Truncated: true}))
	conv := NewConversation()
	conv.AddUser("Write a lot.")
	rec := newRecorder()
	if err := NewAgent(model, noTools{}, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	last, _ := conv.Last()
	d, _ := rec.all()[len(rec.all())-1].(Done)
	if !last.Truncated || !d.Truncated {
		t.Errorf("message truncated %v, done %#v", last.Truncated, d)
	}
}

func TestAFailedRunLeavesTheConversationReadyToTryAgain(t *testing.T) {
	rt := startDemo(t, mcp.RuntimeOptions{})
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp_search_demo", Arguments: `{"query":"echo"}`}}},
		llmtest.Turn{Status: 500, ErrorMessage: "internal error", ErrorType: "server_error"},
		llmtest.Turn{Text: "The demo has an echo tool."},
	))
	conv := NewConversation()
	conv.AddUser("What can echo?")
	agent := NewAgent(model, rt, Options{Retry: &RetryPolicy{}})
	err := agent.Run(context.Background(), conv, nil)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindProvider || len(conv.Messages) != 3 {
		t.Fatalf("first run: %v, %d messages", err, len(conv.Messages))
	}
	if err := agent.Run(context.Background(), conv, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if conv.Answer() != "The demo has an echo tool." || len(reqs) != 3 || len(reqs[2].Messages) != len(reqs[1].Messages) {
		t.Errorf("the retry did not resend the same conversation: answer %q, %d requests", conv.Answer(), len(reqs))
	}
}
