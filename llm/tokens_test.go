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
