package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestMCPDisableAToolWritesTheEntrysFileAndSaysWhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	sc := demoServer("mine")
	sc.File, sc.Origin = path, mcp.OriginUser
	os.WriteFile(path, []byte(`{"mcpServers": {"mine": {"command": "x"}}}`), 0o600)
	rt := newRuntime(t, nil, sc)
	defer rt.Close()
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
