package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/llm/store/storetest"
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
	// The export holds tool output: it is the person's alone, and a link
	// planted where it goes is refused, not written through.
	if fi, err := os.Stat(md); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the export's mode: %v %v, want 0600", fi.Mode().Perm(), err)
	}
	victim, link := filepath.Join(dir, "victim.txt"), filepath.Join(dir, "link.md")
	os.WriteFile(victim, []byte("keep me"), 0o600)
	if os.Symlink(victim, link) == nil {
		if _, errOut, code := howl(t, "sessions", "export", list[0].ID, "-o", link); code == 0 || !strings.Contains(errOut, "symbolic link") {
			t.Errorf("export through a link: exit %d %s", code, errOut)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep me" {
			t.Errorf("the link's target was written: %q", b)
		}
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

// TestAskOnAFullDiskLeavesNoEmptySession: when the first turn cannot be
// written, howl ask still answers, says the conversation was not saved and
// why, and stores no session; once writes work, an ask stores one session
// with its turn.
func TestAskOnAFullDiskLeavesNoEmptySession(t *testing.T) {
	isolate(t)
	isolateModel(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(llmtest.Turn{Text: "Four."}, llmtest.Turn{Text: "Four, again."}))
	defer srv.Close()
	st, err := openStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	restore := storetest.FailTurnWrites(t, st.Path())
	ask := []string{"ask", "--model", "openai-compat/scripted", "--base-url", srv.URL, "what is 2 + 2?"}
	out, errOut, code := howl(t, ask...)
	if code != 0 || !strings.Contains(out, "Four.") || !strings.Contains(errOut, "the conversation was not saved") || !strings.Contains(errOut, "disk is full") {
		t.Fatalf("ask on a full disk: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if out, _, _ := howl(t, "sessions", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("a turn that was not written left a session: %s", out)
	}
	restore()
	if _, errOut, code := howl(t, ask...); code != 0 || !strings.Contains(errOut, "saved as session") {
		t.Fatalf("ask once writes work: exit %d: %s", code, errOut)
	}
	out, _, _ = howl(t, "sessions", "list", "--json")
	var list []store.Session
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Messages != 2 || list[0].Title != "what is 2 + 2?" {
		t.Fatalf("sessions after a normal ask: %s", out)
	}
}
