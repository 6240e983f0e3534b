package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// The protocol view: with tracing on, enter on a traced call in the log
// opens its full record (direction, timing, sizes, the params sent and the
// raw result) pretty-printed in the viewer; w saves it raw, y copies it.
func TestProtocolViewOpensSavesAndCopiesATracedCallsFullJSON(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HOWL_CACHE_DIR", cache)
	pump := &eventPump{}
	rt := newRuntime(t, pump.push, demoServer("demo"))
	t.Cleanup(func() { rt.Close() })
	rt.SetTraceBodies(true)
	hs := newChatHarness(t, rt, []string{"demo"}, 120, 40, Options{})
	t.Cleanup(hs.dumpOnFailure)
	pump.deliver(hs)

	hs.send(ctrlL)
	hs.keys("t", "esc")
	hs.line(".call demo " + demo.EchoTool + " message=protocol-view")
	log := func() string { return hs.m.logs.Text("demo") }
	pump.waitFor(hs, "the traced call", func() bool { return strings.Contains(log(), "→ tools/call echo") })
	hs.keys("esc")
	hs.send(ctrlL)
	// Up until the bottom line is the call (later lines may follow it).
	for range 20 {
		if title, _, _, ok := hs.m.logs.SelectedTrace(); ok && strings.Contains(title, "tools/call echo") {
			break
		}
		hs.keys("up")
	}
	title, text, _, ok := hs.m.logs.SelectedTrace()
	if !ok || !strings.HasPrefix(title, "demo → tools/call echo · ") || !strings.Contains(title, " out, ") || !strings.HasSuffix(title, " · ok") {
		t.Fatalf("the bottom line is not the call: %q", title)
	}
	var rec mcp.TraceRecord
	if err := json.Unmarshal([]byte(text), &rec); err != nil || rec.Direction != mcp.TraceSent ||
		!strings.Contains(string(rec.Request), "protocol-view") || !strings.Contains(string(rec.Response), "protocol-view") {
		t.Fatalf("the record (%v): %.600s", err, text)
	}
	if v := hs.view(); !strings.Contains(v, "enter opens the message, w saves, y copies") {
		t.Errorf("the pane does not say what the keys do:\n%s", v)
	}

	hs.keys("w")
	saved, _ := filepath.Glob(filepath.Join(cache, "traces", "*-demo-tools.call.json"))
	if len(saved) != 1 {
		t.Fatalf("saved files: %v", saved)
	}
	data, _ := os.ReadFile(saved[0])
	if st, _ := os.Stat(saved[0]); st.Mode().Perm() != 0o600 || !strings.Contains(string(data), `"message": "protocol-view"`) && !strings.Contains(string(data), `"message":"protocol-view"`) {
		t.Errorf("saved %v: %.400s", st.Mode(), data)
	}
	if !strings.Contains(hs.view(), "saved the message, raw, to $HOWL_CACHE_DIR") && !strings.Contains(hs.view(), "saved the message, raw, to") {
		t.Errorf("no word of the save:\n%s", hs.view())
	}
	hs.keys("y")
	if n := len(hs.clip.copied); n != 1 || !strings.Contains(hs.clip.copied[0], `"direction": "sent"`) {
		t.Errorf("copied %d: %.200q", n, hs.clip.copied)
	}

	hs.keys("enter")
	v := hs.view()
	for _, want := range []string{"demo → tools/call echo", `"direction": "sent"`, `"method": "tools/call"`, `"duration_ms":`, `"request_bytes":`} {
		if !strings.Contains(v, want) {
			t.Errorf("the viewer does not show %q:\n%s", want, v)
		}
	}
}
