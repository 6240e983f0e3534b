package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp/demo"
)

// TestContextShowsWhatTheModelReceivedByteForByte: after a turn whose
// read howl bounded, .context lists the system prompt, the declarations
// and the read's result with exactly the bytes the scripted model
// received, the result's unbounded size and the saving, and the status
// bar carries the context the provider counted.
func TestContextShowsWhatTheModelReceivedByteForByte(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r", Name: "mcp_read_demo", Arguments: `{"uri":"` + demo.LogURI + `","max_bytes":3000}`}}, InputTokens: 1800, OutputTokens: 20},
		llmtest.Turn{Text: "The log has errors.", InputTokens: 2600, OutputTokens: 12},
	))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 150, 45, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("what is in the log?")
	if !strings.Contains(hs.view(), "ctx 2.6k") {
		t.Errorf("the status bar lacks the last request's context (2600 + 12 tokens):\n%s", hs.view())
	}
	hs.line(".context")
	v := hs.view()

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	result := last.ToolResults()[0].Content
	for part, bytes := range map[string]int{
		"system prompt":              len(last.System),
		"declarations (5 functions)": len(last.FunctionsJSON()),
		"mcp_read_demo result":       len(result),
	} {
		re := regexp.MustCompile(`(?m)^\S*\s*(\d+)\s+(\d+)\s+` + regexp.QuoteMeta(part))
		m := re.FindStringSubmatch(v)
		if m == nil || m[2] != fmt.Sprint(bytes) {
			t.Errorf("%s: .context shows %v, the model received %d bytes", part, m, bytes)
		}
	}
	var read struct {
		TotalBytes int `json:"total_bytes"`
	}
	_ = json.Unmarshal([]byte(result), &read)
	saved := fmt.Sprintf("%d bytes (saved %d)", read.TotalBytes, read.TotalBytes-len(result))
	if read.TotalBytes <= len(result) || !strings.Contains(v, saved) || !strings.Contains(v, "howl's content policy kept") {
		t.Errorf(".context lacks the read's unbounded size %q:\n%s", saved, v)
	}
	for _, want := range []string{"next request to openai-compat/scripted", "window unknown", "tokens by estimate (o200k_base"} {
		if !strings.Contains(v, want) {
			t.Errorf(".context lacks %q", want)
		}
	}
}
