package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// observedTools is the real runtime with the calls that reach it counted:
// how many, and how many at most were in flight at once. When gate is
// set, a call waits in flight until gate of them are (or every one of the
// total expected has arrived), so calls that may run together do.
type observedTools struct {
	*mcp.Runtime
	gate, total int

	mu                           sync.Mutex
	cond                         *sync.Cond
	calls, inFlight, maxInFlight int
}

func observe(rt *mcp.Runtime, gate, total int) *observedTools {
	o := &observedTools{Runtime: rt, gate: gate, total: total}
	o.cond = sync.NewCond(&o.mu)
	return o
}

func (o *observedTools) CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	o.mu.Lock()
	o.calls++
	o.inFlight++
	o.maxInFlight = max(o.maxInFlight, o.inFlight)
	o.cond.Broadcast()
	for o.gate > 0 && o.inFlight < o.gate && o.calls < o.total {
		o.cond.Wait()
	}
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.inFlight--
		o.mu.Unlock()
	}()
	return o.Runtime.CallMeta(ctx, name, args)
}

// readCalls is n reads of the demo's log, each a small page.
func readCalls(n int) []llmtest.ToolCall {
	calls := make([]llmtest.ToolCall, n)
	for i := range calls {
		calls[i] = llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "mcp_read_demo",
			Arguments: fmt.Sprintf(`{"uri":%q,"offset":%d,"max_bytes":100}`, demo.LogURI, i*100)}
	}
	return calls
}

// resultsOfOneReply runs a reply of n reads of the demo's log and returns
// the results the model got for them (one per call, checked) and the
// run's events. Only MaxToolCallsPerStep of the calls may reach the server.
func resultsOfOneReply(t *testing.T, n int) ([]llmtest.ToolResult, *recorder) {
	t.Helper()
	tools := observe(startDemo(t, mcp.RuntimeOptions{}), 0, 0)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{ToolCalls: readCalls(n)}, llmtest.Turn{Text: "done"}))
	conv := NewConversation()
	conv.AddUser("Read the whole log.")
	rec := newRecorder()
	if err := NewAgent(model, tools, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	if want := min(n, MaxToolCallsPerStep); tools.calls != want {
		t.Errorf("%d calls reached the server, want %d (MaxToolCallsPerStep %d)", tools.calls, want, MaxToolCallsPerStep)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	results := reqs[1].ToolResults()
	if len(results) != n {
		t.Fatalf("the model got %d results for %d calls", len(results), n)
	}
	return results, rec
}

// TestAReplyWithMoreThanMaxToolCallsPerStepRunsOnlyTheBound: a reply that
// asks for more calls than MaxToolCallsPerStep runs the first
// MaxToolCallsPerStep; every other call id gets an error result, so the
// next request is well-formed: the first of them names the bound, the
// count and what to do, the others point at it in a short line; the
// person is told once.
func TestAReplyWithMoreThanMaxToolCallsPerStepRunsOnlyTheBound(t *testing.T) {
	n := MaxToolCallsPerStep + 6
	results, rec := resultsOfOneReply(t, n)
	for i, r := range results {
		if r.CallID != fmt.Sprintf("call_%d", i) {
			t.Errorf("result %d answers %q", i, r.CallID)
		}
		over := strings.Contains(r.Content, "not run")
		if over != (i >= MaxToolCallsPerStep) {
			t.Errorf("result %d: %.200s", i, r.Content)
		}
	}
	want := fmt.Sprintf("not run: this reply asked for %d tool calls and howl takes at most MaxToolCallsPerStep (%d) per step", n, MaxToolCallsPerStep)
	if first := results[MaxToolCallsPerStep].Content; !strings.HasPrefix(first, want) || !strings.Contains(first, "split the work across steps") {
		t.Errorf("the first call past the bound got %q, want it to start %q and say to split the work", first, want)
	}
	for _, r := range results[MaxToolCallsPerStep+1:] {
		if !strings.HasPrefix(r.Content, fmt.Sprintf("not run: past MaxToolCallsPerStep (%d)", MaxToolCallsPerStep)) || len(r.Content) > 100 {
			t.Errorf("a later call past the bound got %q, want a short line naming the bound", r.Content)
		}
	}
	if got := eventsOf[TooManyToolCalls](rec.all()); len(got) != 1 || got[0] != (TooManyToolCalls{Step: 1, Calls: n, Kept: MaxToolCallsPerStep}) {
		t.Errorf("TooManyToolCalls events = %+v", got)
	} else if !strings.Contains(got[0].Text(), "MaxToolCallsPerStep") {
		t.Errorf("the person reads %q", got[0].Text())
	}
	if got := len(eventsOf[ToolCallStarted](rec.all())); got != MaxToolCallsPerStep {
		t.Errorf("%d calls reported started, want %d", got, MaxToolCallsPerStep)
	}
}

// TestTheRefusalsOfAStepStayWithinMaxRefusalBytesPerStep: a reply of
// thousands of calls past MaxToolCallsPerStep gets one result per call id,
// in order, but their texts together stay within MaxRefusalBytesPerStep,
// past which each says only refusedShort; the last longer one says so,
// naming the bound. Before, each got the whole explanation: 2,000 calls
// were some 460 KB of refusals (a 4 MiB reply of tiny calls, ~23 MB).
func TestTheRefusalsOfAStepStayWithinMaxRefusalBytesPerStep(t *testing.T) {
	const over = 2000
	results, _ := resultsOfOneReply(t, MaxToolCallsPerStep+over)
	var total, short int
	notes := 0
	for i, r := range results[MaxToolCallsPerStep:] {
		if want := fmt.Sprintf("call_%d", MaxToolCallsPerStep+i); r.CallID != want {
			t.Fatalf("result %d answers %q, want %q", MaxToolCallsPerStep+i, r.CallID, want)
		}
		if r.Content == refusedShort {
			short++
			continue
		}
		if short > 0 {
			t.Errorf("result %d is longer than %q after one that was not: %q", MaxToolCallsPerStep+i, refusedShort, r.Content)
		}
		total += len(r.Content)
		if strings.Contains(r.Content, "MaxRefusalBytesPerStep") {
			notes++
			if want := fmt.Sprintf("the %d calls after this one only say %q", over-1-i, refusedShort); !strings.Contains(r.Content, want) {
				t.Errorf("the note %q does not say %q", r.Content, want)
			}
		}
	}
	if total > MaxRefusalBytesPerStep || short == 0 || notes != 1 {
		t.Errorf("the refusals hold %d bytes besides %d of %q (%d notes naming the bound); want at most MaxRefusalBytesPerStep (%d), then %q, one note",
			total, short, refusedShort, notes, MaxRefusalBytesPerStep, refusedShort)
	}
	t.Logf("%d calls past the bound: %d bytes of refusals, %d of them %q", over, total+short*len(refusedShort), short, refusedShort)
}

// TestAStepRunsAtMostMaxParallelToolCallsAtOnce: the calls of one step
// run concurrently, but no more than MaxParallelToolCalls at a time. Each
// call waits until MaxParallelToolCalls are in flight, so a dispatcher
// that starts them all at once is seen doing so.
func TestAStepRunsAtMostMaxParallelToolCallsAtOnce(t *testing.T) {
	n := 3 * MaxParallelToolCalls
	tools := observe(startDemo(t, mcp.RuntimeOptions{}), MaxParallelToolCalls, n)
	_, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{ToolCalls: readCalls(n)}, llmtest.Turn{Text: "done"}))
	conv := NewConversation()
	conv.AddUser("Read the log in pages.")
	if err := NewAgent(model, tools, Options{}).Run(context.Background(), conv, nil); err != nil {
		t.Fatal(err)
	}
	if tools.calls != n || tools.maxInFlight != MaxParallelToolCalls {
		t.Errorf("%d calls, at most %d at once; want %d, at most MaxParallelToolCalls (%d)", tools.calls, tools.maxInFlight, n, MaxParallelToolCalls)
	}
}

// TestAReplyPastMaxReplyBytesIsCutAndTheTurnEndsCleanly: a model stuck
// repeating itself is read up to MaxReplyBytes, no further: howl stops
// the stream (the server sees its client leave), keeps the text up to the
// bound on a character boundary, marks the answer, and the run ends as
// answered.
func TestAReplyPastMaxReplyBytesIsCutAndTheTurnEndsCleanly(t *testing.T) {
	piece := strings.Repeat("Ça recommence, encore et encore. ", 100)
	// 16 times the bound: more than the loopback connection's buffers
	// take on any host (Linux grows a receive buffer up to tcp_rmem's
	// 32 MiB), so the server cannot write its reply to the end unless
	// howl reads it.
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Text: piece, Repeat: 16 * MaxReplyBytes / len(piece)}))
	conv := NewConversation()
	conv.AddUser("Say something.")
	rec := newRecorder()
	if err := NewAgent(model, startDemo(t, mcp.RuntimeOptions{}), Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	answer := conv.Answer()
	if len(answer) > MaxReplyBytes || len(answer) < MaxReplyBytes-utf8.UTFMax || !utf8.ValidString(answer) {
		t.Errorf("kept %d bytes (valid UTF-8 %v), want MaxReplyBytes (%d) cut on a character boundary", len(answer), utf8.ValidString(answer), MaxReplyBytes)
	}
	var streamed strings.Builder
	for _, d := range eventsOf[TextDelta](rec.all()) {
		streamed.WriteString(d.Text)
	}
	if streamed.String() != answer {
		t.Errorf("streamed %d bytes, kept %d", streamed.Len(), len(answer))
	}
	if last := conv.Messages[len(conv.Messages)-1]; last.Role != RoleAssistant || !last.OverMaxBytes {
		t.Errorf("last message: role %s, OverMaxBytes %v", last.Role, last.OverMaxBytes)
	}
	events := rec.all()
	if done, ok := events[len(events)-1].(Done); !ok || done.Reason != StopAnswered || !done.OverMaxBytes {
		t.Errorf("last event %#v, want Done answered with OverMaxBytes", events[len(events)-1])
	}
	if srv.Abandoned() != 1 {
		t.Errorf("the server wrote its reply to the end (abandoned %d): howl did not stop reading", srv.Abandoned())
	}
	if !strings.Contains(OverMaxBytesText(), fmt.Sprintf("MaxReplyBytes (%d bytes)", MaxReplyBytes)) {
		t.Errorf("the person reads %q", OverMaxBytesText())
	}
}

// TestAToolCallWhoseArgumentsPassMaxReplyBytesIsNotRun: arguments count
// toward MaxReplyBytes as they stream; a reply cut in them runs no call
// and ends the turn, and the conversation holds no call without a result.
func TestAToolCallWhoseArgumentsPassMaxReplyBytesIsNotRun(t *testing.T) {
	huge := `{"uri":"` + strings.Repeat("x", MaxReplyBytes+1) + `"}`
	tools := observe(startDemo(t, mcp.RuntimeOptions{}), 0, 0)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "mcp_read_demo", Arguments: huge}}}))
	conv := NewConversation()
	conv.AddUser("Read it.")
	rec := newRecorder()
	if err := NewAgent(model, tools, Options{}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	last := conv.Messages[len(conv.Messages)-1]
	if tools.calls != 0 || len(srv.Requests()) != 1 || last.Role != RoleAssistant || len(last.ToolCalls) != 0 || !last.OverMaxBytes || last.Text != "Reading." {
		t.Errorf("%d calls ran, %d requests; last message %s with %d calls, OverMaxBytes %v, text %q",
			tools.calls, len(srv.Requests()), last.Role, len(last.ToolCalls), last.OverMaxBytes, last.Text)
	}
	events := rec.all()
	if done, ok := events[len(events)-1].(Done); !ok || done.Reason != StopAnswered || !done.OverMaxBytes {
		t.Errorf("last event %#v, want Done answered with OverMaxBytes", events[len(events)-1])
	}
}
