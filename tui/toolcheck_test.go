package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
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
	if _, ok := hs.m.dialogs.Top().(*formDialog); !ok {
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

// exponentialSchema is an inputSchema whose definitions d0…dn each say
// allOf [d(k+1), d(k+1)]: validating "a" applies dn 2^n times.
func exponentialSchema(n int) json.RawMessage {
	defs := map[string]any{fmt.Sprintf("d%d", n): map[string]any{"type": "integer"}}
	for k := 0; k < n; k++ {
		ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", k+1)}
		defs[fmt.Sprintf("d%d", k)] = map[string]any{"allOf": []any{ref, ref}}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs,
		"properties": map[string]any{"a": map[string]any{"type": "string", "$ref": "#/$defs/d0"}}})
	return b
}

func TestAToolWhoseSchemaHowlWillNotCheckIsStillCalledAndThePersonIsWarned(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("mem", mcp.CatalogItem{Kind: mcp.KindTool, ID: "echo", Name: "echo", Schema: exponentialSchema(22)})
	hs := newHarness(t, rt, []string{"mem"}, 120, 40)
	t.Cleanup(hs.dumpOnFailure)
	hs.keys("enter")
	hs.typeText("x")
	hs.keys("ctrl+s")
	if rt.callCount(`mcp_invoke_mem {"arguments":{"a":"x"},"tool":"echo"}`) != 1 {
		t.Fatalf("the tool was not called: %v", rt.calls)
	}
	if v := hs.view(); !strings.Contains(v, `arguments sent unchecked: tool "echo"'s inputSchema expands to more than`) {
		t.Fatalf("the person was not told the arguments went unchecked:\n%s", v)
	}
}
