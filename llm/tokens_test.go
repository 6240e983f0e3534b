package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// TestTokenizerCountsOpenAIExactlyAndLabelsTheRestAnEstimate: the counts
// come from the embedded encodings (no network), exact for OpenAI models.
func TestTokenizerCountsOpenAIExactlyAndLabelsTheRestAnEstimate(t *testing.T) {
	cases := []struct {
		model, enc string
		exact      bool
	}{
		{"openai/gpt-4o-mini", "o200k_base", true},
		{"openai/gpt-5", "o200k_base", true},
		{"openai/gpt-4-turbo", "cl100k_base", true},
		{"anthropic/claude-sonnet-4-5", "o200k_base", false},
		{"ollama/llama3.2", "o200k_base", false},
	}
	for _, c := range cases {
		tk := TokenizerFor(c.model)
		if tk.Name != c.enc || tk.Exact != c.exact {
			t.Errorf("%s: %s exact=%v, want %s exact=%v", c.model, tk.Name, tk.Exact, c.enc, c.exact)
		}
		if !c.exact && !strings.HasPrefix(tk.Label(), "estimate") {
			t.Errorf("%s: label %q does not say it is an estimate", c.model, tk.Label())
		}
	}
	// tiktoken's o200k_base: "hello world" is 2 tokens.
	if n := TokenizerFor("openai/gpt-4o").Count("hello world"); n != 2 {
		t.Errorf("hello world = %d tokens, want 2", n)
	}
}

// BenchmarkDeclarationTokens counts the tokens of 20 servers'
// declarations in each shape, as `howl tools` and the context view do
// on every change of the servers (the bytes: b.ReportMetric).
func BenchmarkDeclarationTokens(b *testing.B) {
	fs := make([]mcp.Features, 20)
	for i := range fs {
		fs[i] = mcp.Features{Name: fmt.Sprintf("server-%02d", i), Tools: true, Resources: true, Prompts: true, PeerInfoKnown: true}
	}
	tk := TokenizerFor("openai/gpt-4o")
	for _, shape := range []mcp.FunctionShape{mcp.FunctionsPerServer, mcp.FunctionsShared} {
		js := string(mcp.DeclarationJSON(mcp.DeclarationsOf(shape, fs)))
		b.Run(string(shape), func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = tk.Count(js)
			}
			b.ReportMetric(float64(len(js)), "bytes")
			b.ReportMetric(float64(n), "tokens")
		})
	}
}

// TestContextReportRanksThePartsAndWarnsNearTheWindow: the parts come
// largest first, a bounded result carries its unbounded size, and a
// total past ContextWarnAt of the window is a warning with the fix.
func TestContextReportRanksThePartsAndWarnsNearTheWindow(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Text: "read the log"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "mcp_read_demo", Arguments: `{"uri":"demo://logs/app.log"}`}}},
		{Role: RoleTool, ToolResults: []ToolResult{{CallID: "1", Name: "mcp_read_demo", Content: `{"uri":"demo://logs/app.log","truncated":true,"total_bytes":2097152,"next_offset":51200,"text":"` + strings.Repeat("ERROR x ", 400) + `"}`}}},
	}
	tk := TokenizerFor("openai/gpt-4o")
	rep := MeasureContext("You are howl's assistant.", nil, msgs, tk, 1000, "configured")
	if rep.Parts[0].What != "mcp_read_demo result" || rep.Parts[0].UnboundedBytes != 2097152 || rep.SavedBytes != 2097152-rep.Parts[0].Bytes {
		t.Errorf("parts: %+v, saved %d", rep.Parts, rep.SavedBytes)
	}
	sum := 0
	for _, p := range rep.Parts {
		sum += p.Tokens
	}
	if sum != rep.TotalTokens || rep.TotalTokens < 800 || !strings.Contains(rep.Warning, "of the model's 1000 tokens") || !strings.Contains(rep.Warning, ".clear") {
		t.Errorf("total %d (parts %d), warning %q", rep.TotalTokens, sum, rep.Warning)
	}
	if rep := MeasureContext("x", nil, nil, tk, 1_000_000, "configured"); rep.Warning != "" {
		t.Errorf("warned far from the window: %s", rep.Warning)
	}
}
