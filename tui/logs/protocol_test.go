package logs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
)

// traced is a traced call whose result is a body of n bytes.
func traced(n int, text string) mcp.RPCTrace {
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text + strings.Repeat("x", n)}}})
	req := json.RawMessage(`{"name":"echo"}`)
	return mcp.RPCTrace{Method: "tools/call", Target: "echo", Duration: 1200 * time.Microsecond, Bytes: len(res),
		At: logTime, Request: req, RequestBytes: len(req), Response: res, ResponseBytes: len(res)}
}

func TestTraceBodiesStayWithinTheirByteBoundAndADroppedOneSaysSo(t *testing.T) {
	b := newBench(t, "mem")
	b.run(b.p.Toggle())
	b.p.SetTracing(true)
	const each = 1 << 20
	n := MaxTraceBodiesBytes/each + 3
	for i := range n {
		b.p.AddEvent(mcp.Event{Kind: mcp.EventTrace, Server: "mem", Trace: &[]mcp.RPCTrace{traced(each, "call")}[0]})
		_ = i
	}
	if b.p.bodies.bytes > MaxTraceBodiesBytes || b.p.bodies.dropped < 3 {
		t.Fatalf("bodies hold %d bytes (bound %d), %d dropped", b.p.bodies.bytes, MaxTraceBodiesBytes, b.p.bodies.dropped)
	}
	// The newest is at the bottom and opens.
	if _, text, warn, ok := b.p.SelectedTrace(); !ok || warn != nil || !json.Valid([]byte(text)) {
		t.Fatalf("the newest call does not open: ok %v warn %v", ok, warn != nil)
	}
	// The oldest was let go: opening it says why, naming the bound.
	b.p.Scroll(-(n - 1))
	_, _, warn, ok := b.p.SelectedTrace()
	if !ok || warn == nil {
		t.Fatalf("a dropped body: ok %v, warn %v", ok, warn != nil)
	}
	if msg := warn(); !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(toString(msg), "\n", " "), "  ", " "), "MaxTraceBodiesBytes") {
		t.Errorf("the warning does not name the bound: %v", msg)
	}
}

func toString(m tea.Msg) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func TestProtocolViewEscapesWhatATerminalWouldActOnAndSavesTheRawBytes(t *testing.T) {
	b := newBench(t, "mem")
	b.run(b.p.Toggle())
	b.p.SetTracing(true)
	tr := traced(0, "right-to-left \u202e override")
	b.p.AddEvent(mcp.Event{Kind: mcp.EventTrace, Server: "mem", Trace: &tr})
	title, text, _, ok := b.p.SelectedTrace()
	if !ok || !strings.HasPrefix(title, "mem → tools/call echo · 1.2ms · ") {
		t.Fatalf("title %q", title)
	}
	if strings.ContainsRune(text, '\u202e') || !strings.Contains(text, `\u202e`) {
		t.Errorf("the shown record must escape the override, keeping it visible: %.300s", text)
	}
	sel, _ := b.p.selected()
	if raw := recordJSON(sel.rec, true); !strings.ContainsRune(string(raw), '\u202e') {
		t.Errorf("the saved record must keep the server's bytes: %.300s", raw)
	}
	// A line that is no traced message: the keys say how to get one.
	b.p.AddStderr("mem", "plain", logTime)
	if _, _, _, ok := b.p.SelectedTrace(); ok {
		t.Error("a stderr line opened as a message")
	}
	if cmd, used := b.p.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("w")}); !used || !strings.Contains(toString(cmd()), "not a traced message") {
		t.Error("w on a plain line does not say what it needs")
	}
}
