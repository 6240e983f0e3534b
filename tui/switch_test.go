package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// runtimeFromFile runs the demo as server "mine", whose entry comes from
// the user's config file holding content.
func runtimeFromFile(t *testing.T, content string) (*mcp.Runtime, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	sc := demoServer("mine")
	sc.File, sc.Origin = path, mcp.OriginUser
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, nil, sc)
	t.Cleanup(func() { rt.Close() })
	return rt, path
}

func TestMCPDisableAToolWritesTheEntrysFileAndSaysWhere(t *testing.T) {
	rt, path := runtimeFromFile(t, `{"mcpServers": {"mine": {"command": "x"}}}`)
	hs := newChatHarness(t, rt, []string{"mine"}, 160, 30, Options{})
	defer hs.dumpOnFailure()
	hs.line(".mcp disable mine echo")
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": {"mine": {"command": "x", "disabledTools": ["echo"]}}}` {
		t.Errorf("the file = %s", data)
	}
	if v := hs.view(); !strings.Contains(v, "tools echo of mine switched off, written to") || !strings.Contains(v, "mcp.json") {
		t.Errorf("the chat must say where it was written:\n%s", v)
	}
	if !rt.ToolOff("mine", "echo") {
		t.Error("the switch must apply at once")
	}
	hs.line(".mcp enable mine echo")
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": {"mine": {"command": "x"}}}` {
		t.Errorf("switched on again, the file = %s", data)
	}
}

func TestTheSwitchKeyTurnsAToolOffDimsItCountsItAndSavesIt(t *testing.T) {
	rt, path := runtimeFromFile(t, "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"x\"}\n  }\n}\n")
	h := newHarness(t, rt, []string{"mine"}, 140, 30)
	defer h.dumpOnFailure()
	h.selectItem("echo")
	h.keys("X")
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"mine": {"command": "x", "disabledTools": ["echo"]}`) {
		t.Errorf("the switch must be saved in the entry:\n%s", data)
	}
	v := h.view()
	if !strings.Contains(v, "(1 off)") || !strings.Contains(v, "(off)") || !strings.Contains(v, "written to") {
		t.Errorf("the tool must show off, counted in the tab, and the status say where it was written:\n%s", v)
	}
	if !rt.ToolOff("mine", "echo") {
		t.Error("the model must stop seeing it at once")
	}
	h.keys("X")
	if rt.ToolOff("mine", "echo") || strings.Contains(h.view(), "(1 off)") {
		t.Errorf("X again switches it back on:\n%s", h.view())
	}
}

func TestTheSwitchKeyInTheServersDialogSwitchesAServerOffAndSavesIt(t *testing.T) {
	rt, path := runtimeFromFile(t, `{"mcpServers": {"mine": {"command": "x"}}}`)
	h := newHarness(t, rt, []string{"mine"}, 140, 30)
	defer h.dumpOnFailure()
	h.keys("S", "X")
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": {"mine": {"command": "x", "disabled": true}}}` {
		t.Errorf("the file = %s", data)
	}
	if !h.m.com.Hidden["mine"] || !strings.Contains(h.view(), "mine switched off, written to") {
		t.Errorf("the server must be hidden from the chat and the status say where:\n%s", h.view())
	}
	h.keys("S", "X")
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": {"mine": {"command": "x"}}}` || h.m.com.Hidden["mine"] {
		t.Errorf("X again switches it on: %s", data)
	}
}
