package tui

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/tui/dialog"
)

// TestToolFormChecksArgumentsOffTheUpdatePathSoKeysAreDrawnAtOnce pins
// that submitting a tool form does not validate inside Update (a server's
// schema can make validation slow): Update returns a command and the form
// says it is checking; a key typed meanwhile is drawn at once and makes
// the pending answer stale, so it is dropped and nothing is called with
// the old arguments.
func TestToolFormChecksArgumentsOffTheUpdatePathSoKeysAreDrawnAtOnce(t *testing.T) {
	hs, rt := fakeHarness(t, 120, 40)
	hs.keys("enter")
	if _, ok := hs.m.dialogs.Top().(*dialog.FormDialog); !ok {
		t.Fatalf("no tool form: %v", hs.m.dialogs.Top())
	}
	hs.typeText("hi")
	pending := hs.update(keyMsg("ctrl+s"))
	if pending == nil || hs.m.dialogs.Len() != 1 || rt.callCount("mcp_invoke_mem") != 0 {
		t.Fatalf("submitting did not leave the check to a command: cmd %v, dialogs %d, calls %v", pending != nil, hs.m.dialogs.Len(), rt.calls)
	}
	if v := hs.view(); !strings.Contains(v, "checking the arguments against the tool's input schema") {
		t.Fatalf("the form does not say it is checking:\n%s", v)
	}
	hs.update(keyMsg("!"))
	if v := hs.view(); !strings.Contains(v, "hi!") || strings.Contains(v, "checking the arguments") {
		t.Fatalf("the key typed while checking is not drawn, or the stale check still shows:\n%s", v)
	}
	hs.run(pending)
	if hs.m.dialogs.Len() != 1 || rt.callCount("mcp_invoke_mem") != 0 {
		t.Fatalf("a stale check called the tool: dialogs %d, calls %v", hs.m.dialogs.Len(), rt.calls)
	}
	hs.keys("ctrl+s")
	if hs.m.dialogs.Len() != 0 || rt.callCount(`mcp_invoke_mem {"arguments":{"message":"hi!"},"tool":"echo"}`) != 1 {
		t.Fatalf("the checked call was not made: dialogs %d, calls %v", hs.m.dialogs.Len(), rt.calls)
	}
}

func TestAToolWhoseSchemaHowlWillNotCheckIsStillCalledAndThePersonIsWarned(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("mem", mcp.CatalogItem{Kind: mcp.KindTool, ID: "echo", Name: "echo", Schema: mcptest.ExponentialSchema(22)})
	hs := newHarness(t, rt, []string{"mem"}, 120, 40)
	t.Cleanup(hs.dumpOnFailure)
	hs.keys("enter")
	hs.typeText("7") // a JSON field: the schema gives "a" no type
	hs.keys("ctrl+s")
	if rt.callCount(`mcp_invoke_mem {"arguments":{"a":7},"tool":"echo"}`) != 1 {
		t.Fatalf("the tool was not called: %v", rt.calls)
	}
	if v := hs.view(); !strings.Contains(v, `arguments sent unchecked: tool "echo"'s inputSchema expands to more than`) {
		t.Fatalf("the person was not told the arguments went unchecked:\n%s", v)
	}
}
