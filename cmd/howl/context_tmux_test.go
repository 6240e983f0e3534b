package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp/demo"
)

// TestContextViewInTmuxMatchesWhatTheModelReceived runs the real binary
// in tmux against a scripted model: a turn reads the demo's log (bounded
// by max_bytes), then .context lists the system prompt, the declarations
// and the read's result with the bytes the model received, byte for
// byte, and the read's unbounded size; the status bar carries the
// context the provider counted.
func TestContextViewInTmuxMatchesWhatTheModelReceived(t *testing.T) {
	bin := buildHowl(t)
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r", Name: "mcp_read_demo", Arguments: `{"uri":"` + demo.LogURI + `","max_bytes":3000}`}}, InputTokens: 1800, OutputTokens: 20},
		llmtest.Turn{Text: "The log has errors.", InputTokens: 2600, OutputTokens: 12},
	))
	defer srv.Close()
	s := startTmux(t, isolate(t), 140, 45)
	s.run("send-keys", "-t", "smoke", bin+" --model openai-compat/scripted --base-url "+srv.URL+"; echo howl-exited-$?", "Enter")
	s.waitFor("ask anything") // with a model, howl opens on the chat
	s.run("send-keys", "-t", "smoke", "-l", "what is in the log?")
	s.run("send-keys", "-t", "smoke", "Enter")
	s.waitFor("The log has errors.")
	s.waitFor("ctx 2.6k") // the status bar: the last request's 2600 + 12 tokens
	s.run("send-keys", "-t", "smoke", "-l", ".context")
	s.run("send-keys", "-t", "smoke", "Enter")
	scr := s.waitFor("tokens by ")
	t.Logf(".context in tmux:\n%s", scr)

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	result := last.ToolResults()[0].Content
	var read struct {
		TotalBytes int `json:"total_bytes"`
	}
	_ = json.Unmarshal([]byte(result), &read)
	for part, bytes := range map[string]int{
		"system prompt":              len(last.System),
		"declarations (5 functions)": len(last.FunctionsJSON()),
		"mcp_read_demo result":       len(result),
	} {
		m := regexp.MustCompile(`(\d+)\s+(\d+)\s+` + regexp.QuoteMeta(part)).FindStringSubmatch(scr)
		if m == nil || m[2] != fmt.Sprint(bytes) {
			t.Errorf("%s: the screen shows %v, the model received %d bytes", part, m, bytes)
		}
	}
	if saved := fmt.Sprintf("%d bytes (saved %d)", read.TotalBytes, read.TotalBytes-len(result)); !strings.Contains(scr, saved) {
		t.Errorf("the screen lacks the read's unbounded size %q", saved)
	}
	s.run("send-keys", "-t", "smoke", "-l", ".quit")
	s.run("send-keys", "-t", "smoke", "Enter")
	s.waitFor("howl-exited-0")
}
