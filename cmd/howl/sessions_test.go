package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/llm/store"
)

func TestAskSavesTheSessionAndContinueResumesIt(t *testing.T) {
	dir := isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp_search_demo", Arguments: `{"query":"payments timeout"}`}}},
		llmtest.Turn{Text: "The payments service times out."},
		llmtest.Turn{Text: "Raise the retry budget."},
	))
	defer srv.Close()
	model := []string{"--model", "openai-compat/scripted", "--base-url", srv.URL}
	_, errOut, code := howl(t, append([]string{"ask"}, append(model, "Why do payments fail?")...)...)
	if code != 0 || !strings.Contains(errOut, "saved as session ") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, _, _ := howl(t, "sessions", "list", "--json")
	var list []store.Session
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Title != "Why do payments fail?" || list[0].Messages != 4 {
		t.Fatalf("sessions: %s", out)
	}
	// --continue sends the earlier turn, exactly, before the new question.
	_, errOut, code = howl(t, append([]string{"ask", "--continue"}, append(model, "And the fix?")...)...)
	if code != 0 {
		t.Fatalf("continue: exit %d: %s", code, errOut)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var texts []string
	for _, m := range last.Messages {
		texts = append(texts, m.Text)
	}
	if joined := strings.Join(texts, "|"); !strings.Contains(joined, "Why do payments fail?") || !strings.Contains(joined, "The payments service times out.") || !strings.HasSuffix(joined, "And the fix?") {
		t.Errorf("the resumed request lacks the earlier turn: %q", texts)
	}
	resumed := 0
	for _, m := range last.Messages {
		resumed += len(m.ToolResults)
	}
	if resumed != 1 {
		t.Errorf("the earlier tool result was not resumed (%d results sent)", resumed)
	}
	out, _, _ = howl(t, "sessions", "search", "retry", "--json")
	if !strings.Contains(out, `"coverage": "showing 1 of 1 matching messages"`) || !strings.Contains(out, "[retry]") {
		t.Errorf("search: %s", out)
	}
	md := filepath.Join(dir, "s.md")
	if _, errOut, code := howl(t, "sessions", "export", list[0].ID, "-o", md); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	b, _ := os.ReadFile(md)
	if !strings.Contains(string(b), "<summary>tool call <code>mcp_search_demo</code>") || !strings.Contains(string(b), "## You\n\nAnd the fix?") {
		t.Errorf("export:\n%s", b)
	}
	if _, errOut, code := howl(t, "sessions", "export", "nope"); code != exitUsage || !strings.Contains(errOut, "no such session") {
		t.Errorf("missing session: %d %s", code, errOut)
	}
	if _, _, code := howl(t, "sessions", "delete", list[0].ID); code != 0 {
		t.Error("delete failed")
	}
	if _, errOut, code := howl(t, append([]string{"ask", "--continue"}, append(model, "?")...)...); code != exitUsage || !strings.Contains(errOut, "no sessions yet") {
		t.Errorf("continue with nothing to continue: %d %s", code, errOut)
	}
}
