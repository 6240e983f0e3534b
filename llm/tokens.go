package llm

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer counts the tokens of text as one model family does. OpenAI's
// own encodings (tiktoken's, embedded in the binary: nothing is fetched)
// count exactly for OpenAI models; for every other model the count is
// o200k_base's, an estimate, and Exact says so.
type Tokenizer struct {
	// Name is the encoding ("o200k_base", "cl100k_base").
	Name string
	// Exact is true when the encoding is the model's own.
	Exact bool
	codec tokenizer.Codec
}

// Label says what the counts are, for a person: "o200k_base" or
// "estimate (o200k_base; the model's own tokenizer is not available)".
func (t Tokenizer) Label() string {
	if t.Exact {
		return t.Name
	}
	return "estimate (" + t.Name + "; the model's own tokenizer is not available)"
}

// Count is the number of tokens of s (len(s)/4 if the encoding fails,
// which it does not for valid text).
func (t Tokenizer) Count(s string) int {
	if t.codec == nil || s == "" {
		return (len(s) + 3) / 4
	}
	n, err := t.codec.Count(s)
	if err != nil {
		return (len(s) + 3) / 4
	}
	return n
}

var (
	codecsMu sync.Mutex
	codecs   = map[tokenizer.Encoding]tokenizer.Codec{}
)

// codecOf loads an encoding once (its vocabulary is parsed on first use).
func codecOf(enc tokenizer.Encoding) tokenizer.Codec {
	codecsMu.Lock()
	defer codecsMu.Unlock()
	if c, ok := codecs[enc]; ok {
		return c
	}
	c, err := tokenizer.Get(enc)
	if err != nil {
		return nil
	}
	codecs[enc] = c
	return c
}

// TokenizerFor picks the tokenizer of a model given as provider/name (or
// a bare name): OpenAI's GPT-4o and later and the o-series count with
// o200k_base, GPT-4 and GPT-3.5 with cl100k_base, exactly; any other
// model (Anthropic's, Gemini's, a local one) with o200k_base as an
// estimate, since no Go library carries their tokenizers.
func TokenizerFor(model string) Tokenizer {
	provider, name, ok := strings.Cut(model, "/")
	if !ok {
		provider, name = "", model
	}
	name = strings.ToLower(name)
	openai := provider == "" || provider == "openai" || provider == "azure" || provider == "openrouter" && strings.HasPrefix(name, "openai/")
	name = strings.TrimPrefix(name, "openai/")
	enc, exact := tokenizer.O200kBase, false
	switch {
	case !openai:
	case strings.HasPrefix(name, "gpt-4o"), strings.HasPrefix(name, "gpt-4.1"), strings.HasPrefix(name, "gpt-5"),
		strings.HasPrefix(name, "o1"), strings.HasPrefix(name, "o3"), strings.HasPrefix(name, "o4"), strings.HasPrefix(name, "chatgpt-4o"):
		exact = true
	case strings.HasPrefix(name, "gpt-4"), strings.HasPrefix(name, "gpt-3.5"):
		enc, exact = tokenizer.Cl100kBase, true
	}
	return Tokenizer{Name: string(enc), Exact: exact, codec: codecOf(enc)}
}
