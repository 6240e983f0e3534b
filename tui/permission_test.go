package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

// testClock is an injectable clock the tests step past the grace period.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// invokeScript calls one demo tool, then answers.
func invokeScript(tool, args string) llmtest.Script {
	return llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_invoke_demo", Arguments: fmt.Sprintf(`{"tool":%q,"arguments":%s}`, tool, args)}}},
		llmtest.Turn{Text: "Done."},
	)
}

// permissionHarness opens the chat with rules and a clock, and sends a
// message that makes the model call tool.
func permissionHarness(t *testing.T, perms llm.Permissions, configPath, tool, args string) (*harness, *llmtest.Server, *testClock) {
	t.Helper()
	srv, model := scriptedModel(t, invokeScript(tool, args))
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model, Permissions: &perms, ConfigPath: configPath, Now: clock.Now})
	hs.line("please do it")
	return hs, srv, clock
}

// toolResult is the result of call_1 the scripted model received.
func toolResult(t *testing.T, srv *llmtest.Server) llmtest.ToolResult {
	t.Helper()
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			for _, tr := range m.ToolResults {
				if tr.CallID == "call_1" {
					return tr
				}
			}
		}
	}
	t.Fatal("the model received no result for call_1")
	return llmtest.ToolResult{}
}

func requirePermissionDialog(t *testing.T, hs *harness) *dialog.PermissionDialog {
	t.Helper()
	d, ok := hs.m.dialogs.Top().(*dialog.PermissionDialog)
	if !ok {
		t.Fatalf("no permission dialog is open:\n%s", hs.view())
	}
	return d
}

func TestEachPermissionAnswerReachesTheModel(t *testing.T) {
	cases := []struct {
		key, decision string
		denied        bool
	}{
		{"y", "allowed once by you", false},
		{"s", "allowed by you for this session", false},
		{"n", "denied by you", true},
		{"esc", "denied by you", true},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			hs, srv, clock := permissionHarness(t, llm.Permissions{}, "", "echo", `{"message":"hi"}`)
			defer hs.dumpOnFailure()
			requirePermissionDialog(t, hs)
			clock.advance(common.PermissionGrace)
			hs.keys(c.key)
			if hs.m.dialogs.Has("permission") {
				t.Fatal("the dialog stayed open after the answer")
			}
			if hs.m.chat.Running() {
				t.Fatal("the turn did not finish after the answer")
			}
			res := toolResult(t, srv)
			if c.denied {
				if !strings.Contains(res.Content, "not run: the user denied this call") {
					t.Errorf("the model received %+v, want the denial", res)
				}
			} else if strings.Contains(res.Content, "not run") || !strings.Contains(res.Content, "hi") {
				t.Errorf("the model received %+v, want echo's result", res)
			}
			if v := hs.view(); !strings.Contains(v, c.decision[:min(len(c.decision), 25)]) {
				t.Errorf("the tool block does not say %q:\n%s", c.decision, v)
			}
			if got := hs.m.chat.Messages(); !strings.Contains(fmt.Sprint(decisions(got)), c.decision) {
				t.Errorf("ToolResult.Decision = %v, want %q", decisions(got), c.decision)
			}
		})
	}
}

func decisions(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, r := range m.ToolResults {
			out = append(out, r.Decision)
		}
	}
	return out
}

func TestSessionAllowSkipsTheDialogForTheNextCall(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"one"}}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_2", Name: "mcp_invoke_demo", Arguments: `{"tool":"echo","arguments":{"message":"two"}}`}}},
		llmtest.Turn{Text: "Done."},
	))
	clock := &testClock{t: time.Now()}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model, Permissions: &llm.Permissions{}, Now: clock.Now})
	defer hs.dumpOnFailure()
	hs.line("twice")
	requirePermissionDialog(t, hs)
	clock.advance(time.Second)
	hs.keys("s")
	if hs.m.dialogs.Has("permission") || hs.m.chat.Running() {
		t.Fatal("the second call of a session-allowed tool asked again")
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the model received %d requests, want 3", n)
	}
}

func TestDestructiveToolIsAskedUnderAReadOnlyRule(t *testing.T) {
	perms := llm.Permissions{ReadOnlyServers: []string{"demo"}, Allow: []string{"demo:*"}}
	hs, _, _ := permissionHarness(t, perms, "", "delete_note", `{"id":"note-007"}`)
	defer hs.dumpOnFailure()
	d := requirePermissionDialog(t, hs)
	if d.Req().Tool != "delete_note" {
		t.Errorf("the dialog asks about %q", d.Req().Tool)
	}
	if v := hs.view(); !strings.Contains(v, "DESTRUCTIVE") || !strings.Contains(v, "note-007") {
		t.Errorf("the dialog does not show the destructive hint and the arguments:\n%s", v)
	}
	hs.m.chat.Cancel()
	// echo under the same rules runs without asking.
	hs2, srv2, _ := permissionHarness(t, perms, "", "echo", `{"message":"hi"}`)
	if hs2.m.dialogs.Has("permission") {
		t.Fatal("a read-only tool under a read-only rule was asked about")
	}
	if res := toolResult(t, srv2); strings.Contains(res.Content, "not run") {
		t.Errorf("echo was refused: %+v", res)
	}
	if v := hs2.view(); !strings.Contains(v, "allowed by rule demo:*") {
		t.Errorf("the tool block does not name the rule:\n%s", v)
	}
}

func TestKeysInTheGracePeriodAreIgnored(t *testing.T) {
	hs, srv, clock := permissionHarness(t, llm.Permissions{}, "", "delete_note", `{"id":"note-007"}`)
	defer hs.dumpOnFailure()
	requirePermissionDialog(t, hs)
	clock.advance(common.PermissionGrace / 4)
	hs.keys("y")
	requirePermissionDialog(t, hs)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a key in the grace period answered: %d requests", n)
	}
	clock.advance(common.PermissionGrace)
	hs.keys("n")
	if res := toolResult(t, srv); !strings.Contains(res.Content, chat.DeniedByUser) {
		t.Errorf("the model received %+v", res)
	}
}

func TestAlwaysAllowIsSavedAndSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	orig := `{"mcpServers": {"demo": {"command": "howl", "args": ["demo"]}}, "theme": "dark", "permissions": {"read_only": ["demo"]}}`
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	hs, srv, clock := permissionHarness(t, llm.Permissions{ReadOnlyServers: []string{"demo"}}, path, "delete_note", `{"id":"note-007"}`)
	defer hs.dumpOnFailure()
	requirePermissionDialog(t, hs)
	clock.advance(common.PermissionGrace)
	hs.keys("a")
	if res := toolResult(t, srv); strings.Contains(res.Content, "not run") {
		t.Fatalf("the always-allowed call was refused: %+v", res)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mcpServers", "theme"} {
		if _, ok := top[k]; !ok {
			t.Errorf("the rewrite lost %q:\n%s", k, data)
		}
	}
	perms, err := llm.ParsePermissions(path, top)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(perms.Allow) != "[demo:delete_note]" || fmt.Sprint(perms.ReadOnlyServers) != "[demo]" {
		t.Errorf("the saved permissions are %+v", perms)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("the mode changed to %v", info.Mode().Perm())
	}
	// A new program with the saved rules runs the call without asking.
	hs2, srv2, _ := permissionHarness(t, perms, path, "delete_note", `{"id":"note-007"}`)
	if hs2.m.dialogs.Has("permission") {
		t.Fatal("the restarted chat asked about a saved rule")
	}
	if res := toolResult(t, srv2); strings.Contains(res.Content, "not run") {
		t.Errorf("the saved rule did not allow the call: %+v", res)
	}
	if got := decisions(hs2.m.chat.Messages()); fmt.Sprint(got) != "[allowed by rule demo:delete_note]" {
		t.Errorf("the decisions are %q, want the saved rule", got)
	}
}

func TestLongArgumentsScroll(t *testing.T) {
	var keys []string
	for i := range 80 {
		keys = append(keys, fmt.Sprintf(`"k%02d":%d`, i, i))
	}
	hs, _, clock := permissionHarness(t, llm.Permissions{}, "", "echo", "{"+strings.Join(keys, ",")+"}")
	defer hs.dumpOnFailure()
	d := requirePermissionDialog(t, hs)
	clock.advance(common.PermissionGrace)
	hs.view()
	hs.keys("pgdown")
	hs.view()
	if !d.Scrolled() {
		t.Error("pgdown did not scroll the arguments")
	}
	hs.keys("n")
}

// TestGoldenPermission draws the dialog for the demo's destructive tool.
func TestGoldenPermission(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			srv, model := scriptedModel(t, invokeScript("delete_note", `{"id":"note-007"}`))
			_ = srv
			clock := &testClock{t: time.Now()}
			hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, size.w, size.h, Options{Model: model, Permissions: &llm.Permissions{}, ConfigPath: "/tmp/mcp.json", Now: clock.Now})
			hs.line("delete note 7")
			requirePermissionDialog(t, hs)
			requireGolden(t, hs.view())
			clock.advance(common.PermissionGrace)
			hs.keys("n")
		})
	}
}

func TestCancellingWhileAskingEndsTheTurn(t *testing.T) {
	hs, srv, _ := permissionHarness(t, llm.Permissions{}, "", "delete_note", `{"id":"note-007"}`)
	defer hs.dumpOnFailure()
	requirePermissionDialog(t, hs)
	c := hs.m.chat
	c.Cancel() // what quitting does: the asking goroutine returns on ctx
	hs.run(c.ReadOn())
	if hs.m.dialogs.Len() != 1 || c.Running() {
		t.Fatalf("a cancelled turn asked again, or ran on: %d dialogs, running %v", hs.m.dialogs.Len(), c.Running())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model received %d requests after the cancel, want 1", n)
	}
}

func TestADeniedCallsBlockShowsItsArguments(t *testing.T) {
	hs, _, clock := permissionHarness(t, llm.Permissions{}, "", "delete_note", `{"id":"note-007"}`)
	defer hs.dumpOnFailure()
	clock.advance(common.PermissionGrace)
	hs.keys("n")
	if v := hs.view(); !strings.Contains(v, "[denied by you]") || !strings.Contains(v, "note-007") {
		t.Errorf("the denied block lacks its decision or arguments:\n%s", v)
	}
}
