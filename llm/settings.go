package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Step limits.
const (
	// DefaultMaxSteps is how many model requests one run may make when
	// nothing sets max_steps.
	DefaultMaxSteps = 25
	// MaxMaxSteps is the largest max_steps howl accepts.
	MaxMaxSteps = 1000
)

// Settings is the model section of howl's config file: top-level keys beside
// mcpServers, all optional.
//
//	{
//	  "mcpServers": { ... },
//	  "model": "anthropic/claude-sonnet-4-5",
//	  "base_url": "http://127.0.0.1:11434/v1",
//	  "api_key_env": "MY_KEY",
//	  "max_steps": 25
//	}
//
// model is "provider/name". The providers are openai and anthropic (their
// native APIs), and over the Chat Completions API: ollama, lmstudio,
// llamacpp, vllm, openrouter, and openai-compat (any server, base_url
// required). A name with slashes keeps them: "openrouter/anthropic/claude-sonnet-4.5".
//
// base_url, when set, always means an OpenAI-compatible Chat Completions
// endpoint (POST {base_url}/chat/completions, streamed), whatever the
// provider prefix: that is what local servers implement. To move the native
// OpenAI or Anthropic endpoint instead (a proxy), set $OPENAI_BASE_URL or
// $ANTHROPIC_BASE_URL, the variables their SDKs define.
//
// api_key_env names the environment variable holding the API key; the key
// itself never goes in the file. Without it howl reads $OPENAI_API_KEY,
// $ANTHROPIC_API_KEY or $OPENROUTER_API_KEY for those providers, and sends no
// key to other endpoints (so an OpenAI key never reaches a local server).
//
// max_steps bounds the model requests of one question (DefaultMaxSteps,
// at most MaxMaxSteps). context_window is the model's window in tokens,
// for the TUI's context view.
//
// Flags (--model, --base-url, --max-steps) win over $HOWL_MODEL,
// $HOWL_BASE_URL and $HOWL_API_KEY_ENV, which win over the file, which wins
// over auto-detection. A base_url from a lower layer is dropped when a higher
// layer names a model of another provider.
type Settings struct {
	Model     string `json:"model,omitempty"`
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	MaxSteps  int    `json:"max_steps,omitempty"`
	// ContextWindow is the model's context window in tokens, for the
	// context view (fantasy carries no model metadata): it applies to the
	// config's own model.
	ContextWindow int `json:"context_window,omitempty"`
}

// ParseSettings reads the model section from the raw top-level keys of a
// config file (mcp.Config.Extra). source names the file in errors.
func ParseSettings(source string, extra map[string]json.RawMessage) (Settings, error) {
	var s Settings
	if source == "" {
		source = "the config"
	}
	str := func(key string, dst *string, example string) error {
		raw, ok := extra[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return configError(fmt.Sprintf("%q in %s must be a string, not %s", key, source, clampMessage(string(raw))), fmt.Sprintf("write \"%s\": %q", key, example))
		}
		*dst = strings.TrimSpace(*dst)
		return nil
	}
	if err := str("model", &s.Model, "anthropic/claude-sonnet-4-5"); err != nil {
		return s, err
	}
	if err := str("base_url", &s.BaseURL, "http://127.0.0.1:11434/v1"); err != nil {
		return s, err
	}
	if err := str("api_key_env", &s.APIKeyEnv, "MY_KEY"); err != nil {
		return s, err
	}
	if s.APIKeyEnv != "" && strings.ContainsAny(s.APIKeyEnv, "$={} ") {
		return s, configError(fmt.Sprintf("\"api_key_env\" in %s is %q, which is not a variable name", source, s.APIKeyEnv), "give the name only, e.g. \"api_key_env\": \"MY_KEY\" (the key itself stays in the environment)")
	}
	if raw, ok := extra["max_steps"]; ok {
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil || n != float64(int(n)) {
			return s, configError(fmt.Sprintf("\"max_steps\" in %s must be a whole number, not %s", source, clampMessage(string(raw))), fmt.Sprintf("write \"max_steps\": %d", DefaultMaxSteps))
		}
		if err := checkMaxSteps(int(n), fmt.Sprintf("\"max_steps\" in %s", source)); err != nil {
			return s, err
		}
		s.MaxSteps = int(n)
	}
	if raw, ok := extra["context_window"]; ok {
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil || n != float64(int(n)) || n < 1 {
			return s, configError(fmt.Sprintf("\"context_window\" in %s must be a whole number of tokens, not %s", source, clampMessage(string(raw))), "write \"context_window\": 200000")
		}
		s.ContextWindow = int(n)
	}
	return s, nil
}

func checkMaxSteps(n int, what string) error {
	if n < 1 || n > MaxMaxSteps {
		return configError(fmt.Sprintf("%s is %d", what, n), fmt.Sprintf("it must be from 1 to %d (default %d)", MaxMaxSteps, DefaultMaxSteps))
	}
	return nil
}

func configError(cause, fix string) *Error {
	return &Error{Kind: KindConfig, Cause: cause, Fix: fix}
}
