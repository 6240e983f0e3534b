package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSwitchWritesTheEntrysFileAndAppliesAtOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	entry := fmt.Sprintf(`{"command": %q, "args": ["-test.run=^$"], "env": {%q: "demo"}, "protocol": "legacy", "disabled": true}`, os.Args[0], fixtureEnv)
	os.WriteFile(path, []byte("{\n  \"mcpServers\": {\n    \"demo\": "+entry+"\n  }\n}\n"), 0o600)
	cfg, err := LoadConfig(LoadOptions{Path: path, UserConfigDir: dir, WorkDir: t.TempDir(), Trust: NewTrustStore(filepath.Join(dir, "trust.json"))})
	if err != nil {
		t.Fatal(err)
	}
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	if st, _ := rt.ServerStatus("demo"); st.State != StateStopped {
		t.Fatalf("a disabled server must not start: %+v", st)
	}
	file, err := rt.Switch("demo", nil, false)
	if err != nil || file != realPath(path) {
		t.Fatalf("switch on: %q %v", file, err)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "disabled") {
		t.Errorf("switched on, the file must lose \"disabled\":\n%s", data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := rt.ServerStatus("demo"); st.State != StateReady {
		t.Fatalf("switched on, the server starts: %+v", st)
	}
	if _, err := rt.Switch("demo", []string{"echo"}, true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"disabledTools": ["echo"]`) {
		t.Errorf("the tool must be written off in the entry:\n%s", data)
	}
	_, err = rt.CallMeta(ctx, "mcp_invoke_demo", json.RawMessage(`{"tool":"echo","arguments":{"message":"x"}}`))
	if err == nil || !strings.Contains(err.Error(), "switched off by the person") {
		t.Errorf("the switch applies at once: %v", err)
	}
	if !rt.ToolOff("demo", "echo") || rt.ToolOff("demo", "add") {
		t.Errorf("ToolOff = %v", rt.ToolsOff("demo"))
	}
}

func TestSwitchOfAServerFromNoFileLastsThisRun(t *testing.T) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{{Name: "x", Transport: TransportStdio, Command: "x", Disabled: true}}}, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	file, err := rt.Switch("x", []string{"t"}, true)
	if err != nil || file != "" || !rt.ToolOff("x", "t") {
		t.Errorf("%q %v", file, err)
	}
	if _, err := rt.Switch("nope", nil, true); err == nil {
		t.Error("an unknown server must be refused")
	}
}
