package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A 2026-07-28 server listing one good tool and one whose x-mcp-header
// annotation is empty.
func badHeaderToolServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		w.Header().Set("Content-Type", "application/json")
		switch msg.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, msg.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[
				{"name":"good","inputSchema":{"type":"object"}},
				{"name":"bad\u001b[31m","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}}]}}`, msg.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}`, msg.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// captureHandler keeps what reaches slog's default logger.
type captureHandler struct{ buf *bytes.Buffer }

func (h captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.buf.WriteString(r.Message + "\n")
	return nil
}
func (h captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h captureHandler) WithGroup(string) slog.Handler      { return h }

func TestALeftOutToolIsAListingWarningNotALibraryLogLine(t *testing.T) {
	isolate(t)
	url := badHeaderToolServer(t)
	var leaked bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(captureHandler{&leaked}))
	t.Cleanup(func() { slog.SetDefault(prev) })
	stdout, _, code := howl(t, "--url", url, "ls", "--kind", "tool")
	if code != 0 || !strings.Contains(stdout, "1 tool items") || !strings.Contains(stdout, "tool  url     good") {
		t.Fatalf("exit %d, stdout %q: want the good tool listed, alone", code, stdout)
	}
	if !strings.Contains(stdout, `left out: property "v"`) || strings.Contains(stdout, "\x1b[") {
		t.Fatalf("stdout %q: want the sanitized warning naming the left-out tool", stdout)
	}
	if leaked.Len() > 0 {
		t.Fatalf("mcp-go logged to the terminal through slog's default logger: %q", leaked.String())
	}
}

func TestSkillVerbsListDescribeAndLoadTheDemosSkills(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "ls", "--kind", "skill")
	if code != 0 || !strings.Contains(out, "2 skill items") || !strings.Contains(out, "skill://log-triage/SKILL.md") {
		t.Fatalf("ls --kind skill: exit %d\n%s", code, out)
	}
	out, _, code = howl(t, "describe", "demo", "--kind", "skill", "demo-tour")
	if code != 0 || !strings.Contains(out, "skill://demo-tour/references/KINDS.md") || !strings.Contains(out, `"license": "MIT"`) {
		t.Fatalf("describe --kind skill: exit %d\n%s", code, out)
	}
	out, errOut, code := howl(t, "skill", "demo", "demo-tour")
	if code != 0 || !strings.Contains(out, "# A tour of the demo server") || !strings.Contains(errOut, "its frontmatter matches field by field") ||
		!strings.Contains(errOut, "file of the skill: skill://demo-tour/references/KINDS.md") {
		t.Fatalf("skill: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, _, code = howl(t, "skill", "demo", "demo-tour", "references/KINDS.md", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"verified":"size `) {
		t.Fatalf("skill FILE --json: exit %d\n%s", code, out)
	}
	_, errOut, code = howl(t, "skill", "demo", "no-such-skill")
	if code != exitUsage || !strings.Contains(errOut, "no-such-skill") {
		t.Fatalf("unknown skill: exit %d, stderr %s", code, errOut)
	}
}
