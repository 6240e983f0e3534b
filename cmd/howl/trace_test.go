package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// traceRecords decodes --trace=full's JSON lines from stderr; other lines
// (howl's own messages) are returned apart.
func traceRecords(t *testing.T, stderr string) (recs []mcp.TraceRecord, other []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if !strings.HasPrefix(l, "{") {
			other = append(other, l)
			continue
		}
		var r mcp.TraceRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("a --trace=full line is not one JSON object: %v: %.300s", err, l)
		}
		recs = append(recs, r)
	}
	return recs, other
}

func findRecord(recs []mcp.TraceRecord, direction, method, target string) (mcp.TraceRecord, bool) {
	for _, r := range recs {
		if r.Direction == direction && r.Method == method && (target == "" || r.Target == target) {
			return r, true
		}
	}
	return mcp.TraceRecord{}, false
}

func TestTraceFullPrintsRequestsAnswersAndNotificationsAsJSONLines(t *testing.T) {
	isolate(t)
	plain, _, _ := howl(t, "call", "demo", "slow", "duration_ms=50", "steps=2")
	out, errOut, code := howl(t, "--trace=full", "call", "demo", "slow", "duration_ms=50", "steps=2")
	if code != exitOK || out != plain {
		t.Fatalf("exit %d; stdout must not change with --trace=full:\n%s\nvs\n%s", code, out, plain)
	}
	recs, other := traceRecords(t, errOut)
	if len(other) > 0 {
		t.Errorf("stderr has lines that are not trace records: %q", other)
	}
	call, ok := findRecord(recs, mcp.TraceSent, "tools/call", "slow")
	if !ok {
		t.Fatalf("no tools/call record in %d records", len(recs))
	}
	if !strings.Contains(string(call.Request), `"name":"slow"`) || !strings.Contains(string(call.Request), `"duration_ms":50`) ||
		!strings.Contains(string(call.Response), `"content"`) || call.ResponseBytes != len(call.Response) || call.Outcome != "ok" ||
		call.DurationMS <= 0 || call.At.IsZero() || len(call.ID) == 0 {
		t.Errorf("the call's record lacks its bodies, size, timing or id: %+v", call)
	}
	if p, ok := findRecord(recs, mcp.TraceNotification, "notifications/progress", ""); !ok || !strings.Contains(string(p.Request), `"progressToken"`) {
		t.Errorf("no progress notification with its params: %+v", p)
	}
	// Plain --trace still prints its one-line summaries.
	_, errOut, _ = howl(t, "--trace", "call", "demo", "echo", "message=hi")
	if !strings.Contains(errOut, "howl trace demo: → tools/call echo · ") {
		t.Errorf("--trace: %q", errOut)
	}
	if _, errOut, code := howl(t, "--trace=loud", "servers"); code != exitUsage || !strings.Contains(errOut, "--trace=full") {
		t.Errorf("a bad --trace value: exit %d %q", code, errOut)
	}
}

func TestTraceFullEscapesAServersTerminalSequencesAndKeepsTheirText(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"h": map[string]any{"command": exe, "args": []string{hostileServerArg}}}})
	path := filepath.Join(home, "hostile.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"ok", "fail"} {
		_, errOut, _ := howl(t, "--config", path, "--trace=full", "call", "h", tool)
		if bad := terminalUnsafe(errOut); bad != "" {
			t.Fatalf("--trace=full printed %s", bad)
		}
		recs, _ := traceRecords(t, errOut)
		call, ok := findRecord(recs, mcp.TraceSent, "tools/call", tool)
		if !ok {
			t.Fatalf("no tools/call %s record: %.2000s", tool, errOut)
		}
		if body := string(call.Response) + call.Error; !strings.Contains(body, `\u001b]52`) && !strings.Contains(body, "\x1b]52") {
			t.Errorf("the record must keep the server's bytes (escaped): %.400s", body)
		}
	}
}
