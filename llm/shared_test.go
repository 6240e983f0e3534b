package llm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
)

// startSeveral runs three real servers over stdio: the demo as "demo" and
// as "mirror" (both have a tool "echo"), and the guard fixture as "x"
// (tools only, and its own "echo"), declared as the shared set.
func startSeveral(t testing.TB) *mcp.Runtime {
	t.Helper()
	rt := startServers(t, mcp.RuntimeOptions{Functions: mcp.FunctionsShared},
		fixtureServer("demo", map[string]string{fixtureEnv: "demo"}),
		fixtureServer("mirror", map[string]string{fixtureEnv: "demo"}),
		fixtureServer("x", map[string]string{fixtureEnv: "guard", guardMarkEnv: filepath.Join(t.TempDir(), "nuke.mark")}))
	if n := len(rt.ServerFeatures()); n != 3 {
		t.Fatalf("%d of 3 servers ready: %+v", n, rt.Status())
	}
	return rt
}

// serverEnums reads each declared function's server enum from what the
// model received.
func serverEnums(fns []llmtest.Function) map[string][]string {
	out := map[string][]string{}
	for _, fn := range fns {
		out[fn.Name] = mcp.ServerEnum(mcp.FunctionDecl{Name: fn.Name, Parameters: fn.Parameters})
	}
	return out
}

// TestSharedSetFindsAndInvokesAToolOnTheRightServerAmongSeveral: the
// model searches every server at once, reads which server the hit is on,
// and invokes the tool there; three servers have a tool named echo, and
// the call reaches the one the search found, under the same permission
// rule a per-server call meets ("x:echo").
func TestSharedSetFindsAndInvokesAToolOnTheRightServerAmongSeveral(t *testing.T) {
	rt := startSeveral(t)
	var hit mcp.SearchHit
	script := func(n int, req llmtest.Request) llmtest.Turn {
		switch n {
		case 0:
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "mcp_search", Arguments: `{"query":"harmless"}`}}}
		case 1:
			var res mcp.SearchAllResult
			if r := req.ToolResults(); len(r) == 1 && json.Unmarshal([]byte(r[0].Content), &res) == nil && len(res.Results) > 0 {
				hit = res.Results[0]
			}
			args, _ := json.Marshal(map[string]any{"server": hit.Server, "tool": hit.ID, "arguments": map[string]any{}})
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "i", Name: "mcp_invoke", Arguments: string(args)}}}
		}
		return llmtest.Turn{Text: "done"}
	}
	srv, model := scriptedOpenAI(t, script)
	conv := NewConversation()
	conv.AddUser("Run the harmless tool.")
	decide := Permissions{Allow: []string{"x:echo"}}.Decider(rt, nil)
	rec := newRecorder()
	if err := NewAgent(model, rt, Options{Decide: decide}).Run(context.Background(), conv, rec.on); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if want := []string{"mcp_search", "mcp_describe", "mcp_invoke", "mcp_read", "mcp_prompt"}; !slices.Equal(reqs[0].Tools, want) {
		t.Errorf("declared %v, want the shared set %v", reqs[0].Tools, want)
	}
	if !strings.Contains(reqs[0].System, "- x (") || !strings.Contains(reqs[0].System, "leave server out to search every server") {
		t.Errorf("system prompt does not teach the shared set: %.600s", reqs[0].System)
	}
	search := reqs[1].ToolResults()[0].Content
	if !strings.HasPrefix(search, `{"coverage":"showing `) || !strings.Contains(search, "across 3 servers") {
		t.Errorf("search of every server: %.300s", search)
	}
	if hit.Server != "x" || hit.ID != "echo" {
		t.Fatalf("the search's best hit is %+v, want echo on x", hit)
	}
	invoke := reqs[2].ToolResults()[0]
	if want, _ := callMeta(t, rt, "mcp_invoke_x", `{"tool":"echo","arguments":{}}`); invoke.Content != want || !strings.Contains(want, "ran echo") {
		t.Errorf("the model got %q, want x's answer %q", invoke.Content, want)
	}
	if d := conv.Messages[len(conv.Messages)-2].ToolResults[0].Decision; d != "allowed by rule x:echo" {
		t.Errorf("decision %q, want the per-server rule x:echo", d)
	}
}

// TestACapabilityGateRemovesAServerFromTheSharedEnum: x has tools but
// neither resources nor prompts, so the model is offered mcp_read and
// mcp_prompt without x in their server enums (and mcp_invoke with it); a
// read on x anyway is refused with the functions x does have.
func TestACapabilityGateRemovesAServerFromTheSharedEnum(t *testing.T) {
	rt := startSeveral(t)
	srv, model := scriptedOpenAI(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r", Name: "mcp_read", Arguments: `{"server":"x","uri":"x://anything"}`}}},
		llmtest.Turn{Text: "done"}))
	conv := NewConversation()
	conv.AddUser("Read something from x.")
	if err := NewAgent(model, rt, Options{}).Run(context.Background(), conv, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	enums := serverEnums(reqs[0].Functions)
	for fn, want := range map[string][]string{
		"mcp_search": {"demo", "mirror", "x"}, "mcp_invoke": {"demo", "mirror", "x"},
		"mcp_read": {"demo", "mirror"}, "mcp_prompt": {"demo", "mirror"},
	} {
		if got := enums[fn]; !slices.Equal(got, want) {
			t.Errorf("%s: server enum %v, want %v", fn, got, want)
		}
	}
	res := reqs[1].ToolResults()[0].Content
	if !strings.Contains(res, `mcp_read (server "x") is not available`) || !strings.Contains(res, `its functions are mcp_describe, mcp_invoke, mcp_search (with server "x")`) {
		t.Errorf("read on x: %s", res)
	}
}
