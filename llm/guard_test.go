package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// guardMarkEnv names the file the guard fixture's nuke tool appends to
// each time it runs: evidence from the server's side that it ran.
const guardMarkEnv = "HOWL_LLM_TEST_NUKE_MARK"

// serveGuard serves the guard fixture over stdio: server "x" with a
// harmless tool echo, a tool nuke annotated destructive, and paint, whose
// schema is mcptest.EnumSchema. Each answers "ran <name>".
func serveGuard() error {
	s := server.NewMCPServer("x", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("harmless"), mcpgo.WithDestructiveHintAnnotation(false)), mcptest.Ran)
	s.AddTool(mcpgo.NewTool("nuke", mcpgo.WithDescription("deletes everything"), mcpgo.WithDestructiveHintAnnotation(true)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			f, err := os.OpenFile(os.Getenv(guardMarkEnv), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			_, _ = f.WriteString("nuke ran\n")
			return mcpgo.NewToolResultText("ran nuke"), nil
		})
	s.AddTool(mcpgo.NewToolWithRawSchema("paint", "paints in one of mcptest.HugeEnum colours", mcptest.EnumSchema()), mcptest.Ran)
	return demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout)
}

// startGuard runs the guard fixture as server "x" and returns the runtime
// and the file nuke marks when it runs.
func startGuard(t testing.TB) (*mcp.Runtime, string) {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "nuke.mark")
	return startFixture(t, "x", map[string]string{fixtureEnv: "guard", guardMarkEnv: mark}, mcp.RuntimeOptions{}), mark
}

func nukeRuns(t testing.TB, mark string) int {
	b, err := os.ReadFile(mark)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "nuke ran")
}

// TestTrailingBytesOrDuplicateKeysCannotSlipADestructiveToolPastAWildcard
// runs the hostile calls through the real loop, with the rule --allow x:*
// (a wildcard never covers a tool annotated destructive): each is refused
// before the rules with a reason the model can act on, and nuke never
// runs. The harmless control call does run, so the fixture would show a run.
func TestTrailingBytesOrDuplicateKeysCannotSlipADestructiveToolPastAWildcard(t *testing.T) {
	rt, mark := startGuard(t)
	hostile := []llmtest.ToolCall{
		{ID: "trailing", Name: "mcp_invoke_x", Arguments: `{"tool":"nuke","arguments":{}} x`},
		{ID: "second-object", Name: "mcp_invoke_x", Arguments: `{"tool":"echo"}{"tool":"nuke"}`},
		{ID: "duplicate", Name: "mcp_invoke_x", Arguments: `{"tool":"echo","tool":"nuke"}`},
		{ID: "duplicate-case", Name: "mcp_invoke_x", Arguments: `{"tool":"echo","TOOL":"nuke"}`},
		{ID: "array", Name: "mcp_invoke_x", Arguments: `[{"tool":"nuke"}]`},
	}
	calls := append(hostile, llmtest.ToolCall{ID: "control", Name: "mcp_invoke_x", Arguments: `{"tool":"echo","arguments":{}}`})
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{ToolCalls: calls}, llmtest.Turn{Text: "done"}))
	perms := Permissions{Allow: []string{"x:*"}}
	conv := NewConversation()
	conv.AddUser("Clean up.")
	rec := newRecorder()
	if err := NewAgent(model, rt, Options{Decide: perms.Decider(rt, nil)}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	if n := nukeRuns(t, mark); n != 0 {
		t.Fatalf("the destructive tool nuke ran %d times under the wildcard rule x:*", n)
	}
	results := map[string]llmtest.ToolResult{}
	for _, r := range srv.Requests()[1].ToolResults() {
		results[r.CallID] = r
	}
	for _, c := range hostile {
		r := results[c.ID]
		t.Logf("%s: %s", c.ID, r.Content)
		if !strings.Contains(r.Content, "mcp_invoke_x: ") || !strings.Contains(r.Content, "send exactly one JSON object") ||
			!strings.Contains(r.Content, "nothing was run") || !strings.Contains(r.Content, "tool (required)") {
			t.Errorf("%s: the model read %+v; want an error naming the function, what was wrong and what to send", c.ID, r)
		}
	}
	if r := results["control"]; !strings.Contains(r.Content, "ran echo") {
		t.Errorf("the harmless control call did not run: %+v", r)
	}
	for _, f := range eventsOf[ToolCallFinished](rec.all()) {
		if f.CallID != "control" && (!f.IsError || f.Denied || f.Decision != refusedMalformed) {
			t.Errorf("%s: decision %q (denied %v): a malformed call is refused before the rules, not denied by them", f.CallID, f.Decision, f.Denied)
		}
	}
}

// FuzzDecideAndDispatchAgree: for any argument bytes, the tool the
// permission decider sees is the tool dispatch runs at the server, or
// both refuse the call; and under the rule x:* the destructive nuke never
// runs on a decision that allowed it.
func FuzzDecideAndDispatchAgree(f *testing.F) {
	for _, s := range []string{
		`{"tool":"nuke","arguments":{}} x`, `{"tool":"echo"}`, `{"tool":"nuke"}`, `{"tool":"echo","tool":"nuke"}`,
		`{"tool":"echo","TOOL":"nuke"}`, `{"tool":"echo"}{"tool":"nuke"}`, ` {"tool" : "nuke" } `, `{"Tool":"nuke"}`,
		`{"tool":"echo","arguments":{"tool":"nuke"}}`, `null`, ``, `[]`, `{"tool":"nu\u006be"}`, `{"tool":"echo"}` + "\x00",
		`{"server":"x","tool":"nuke"}`, `{"server":"x","tool":"echo","Server":"x"}`, `{"server":"x","tool":"echo","arguments":{"server":"y"}}`,
	} {
		f.Add([]byte(s))
	}
	rt, mark := startGuard(f)
	decide := Permissions{Allow: []string{"x:*"}}.Decider(rt, nil)
	// Both shapes: the server's own name, and the shared set's, whose
	// server argument is one more key the readers must agree on.
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, name := range []string{"mcp_invoke_x", "mcp_invoke"} {
			decideAndDispatchAgree(t, rt, mark, decide, name, args)
		}
	})
}

func decideAndDispatchAgree(t *testing.T, rt *mcp.Runtime, mark string, decide DecideFunc, name string, args []byte) {
	ctx := context.Background()
	call := ToolCall{ID: "f", Name: name, Arguments: string(args)}
	ma, seenErr := mcp.ParseMetaArgs(call.Name, args)
	seen := ma.Tool
	_, decideErr := decide(ctx, call)
	before := nukeRuns(t, mark)
	out, callErr := rt.CallMeta(ctx, call.Name, json.RawMessage(args))
	nuked := nukeRuns(t, mark) > before
	var ran string
	switch {
	case callErr == nil && strings.Contains(string(out), "ran echo"):
		ran = "echo"
	case callErr == nil && strings.Contains(string(out), "ran nuke"):
		ran = "nuke"
	}
	if nuked != (ran == "nuke") {
		t.Fatalf("nuke's mark (%v) and the result %s disagree", nuked, out)
	}
	if seenErr != nil && (callErr == nil || decideErr == nil) {
		t.Fatalf("the decider's reading refused %q (%v) but decide=%v dispatch=%v", args, seenErr, decideErr, callErr)
	}
	if ran != "" && ran != seen {
		t.Fatalf("%q: the decider saw tool %q, dispatch ran %q", args, seen, ran)
	}
	if ran == "nuke" && decideErr == nil {
		t.Fatalf("%s %q: x:* allowed a call that ran the destructive nuke", name, args)
	}
}

// TestAValidationErrorAboutAHugeEnumReachesTheModelBounded: the model
// sends a colour the 200000-value enum lacks; what it reads back is under
// render.MaxMessageBytes, quotes a few values and says how many there are.
func TestAValidationErrorAboutAHugeEnumReachesTheModelBounded(t *testing.T) {
	rt, _ := startGuard(t)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "p", Name: "mcp_invoke_x", Arguments: `{"tool":"paint","arguments":{"colour":"mauve"}}`}}},
		llmtest.Turn{Text: "done"}))
	conv := NewConversation()
	conv.AddUser("Paint it mauve.")
	if err := NewAgent(model, rt, Options{}).Run(context.Background(), conv, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	res := srv.Requests()[1].ToolResults()
	if len(res) != 1 {
		t.Fatalf("results: %+v", res)
	}
	msg := res[0].Content
	t.Logf("%d bytes: %s", len(msg), msg)
	if len(msg) > render.MaxMessageBytes {
		t.Fatalf("the model read %d bytes, over MaxMessageBytes (%d)", len(msg), render.MaxMessageBytes)
	}
	if !strings.Contains(msg, `argument colour: value must be one of "c000000", "c000001", "c000002" … (200000 values)`) {
		t.Errorf("the message does not quote a few values and the count: %s", msg)
	}
}
