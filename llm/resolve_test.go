package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
)

func TestParseSettingsReadsTheModelSectionAndTeachesOnBadValues(t *testing.T) {
	extra := map[string]json.RawMessage{
		"model": json.RawMessage(`"anthropic/claude-sonnet-4-5"`), "base_url": json.RawMessage(`"http://127.0.0.1:8080/v1"`),
		"api_key_env": json.RawMessage(`"MY_KEY"`), "max_steps": json.RawMessage(`40`), "theme": json.RawMessage(`{}`),
		"context_window": json.RawMessage(`200000`),
	}
	s, err := ParseSettings("/home/p/.mcp.json", extra)
	if err != nil || s != (Settings{"anthropic/claude-sonnet-4-5", "http://127.0.0.1:8080/v1", "MY_KEY", 40, 200000}) {
		t.Fatalf("settings %+v, %v", s, err)
	}
	bad := []struct {
		key, raw string
		want     []string
	}{
		{"model", `42`, []string{`"model" in /home/p/.mcp.json must be a string, not 42`, `write "model": "anthropic/claude-sonnet-4-5"`}},
		{"max_steps", `"lots"`, []string{`"max_steps" in /home/p/.mcp.json must be a whole number, not "lots"`, `write "max_steps": 25`}},
		{"max_steps", `0`, []string{`is 0`, "from 1 to 1000"}},
		{"max_steps", `2.5`, []string{"whole number"}},
		{"api_key_env", `"${MY_KEY}"`, []string{"not a variable name", "give the name only"}},
		{"context_window", `"big"`, []string{`"context_window" in /home/p/.mcp.json must be a whole number of tokens, not "big"`, `write "context_window": 200000`}},
	}
	for _, b := range bad {
		_, err := ParseSettings("/home/p/.mcp.json", map[string]json.RawMessage{b.key: json.RawMessage(b.raw)})
		var le *Error
		if !errors.As(err, &le) || le.Kind != KindConfig {
			t.Errorf("%s=%s: %v", b.key, b.raw, err)
			continue
		}
		for _, w := range b.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s=%s: message lacks %q: %s", b.key, b.raw, w, err)
			}
		}
	}
}

func TestResolvePrecedenceFlagsThenEnvironmentThenConfigThenDetection(t *testing.T) {
	cfg := Settings{Model: "ollama/qwen3", BaseURL: "http://gpu-box:11434/v1", MaxSteps: 9}
	keys := []string{"OPENAI_API_KEY", "sk-o", "ANTHROPIC_API_KEY", "sk-a"}
	cases := []struct {
		name  string
		flags Settings
		env   []string
		want  Choice
	}{
		{"config alone keeps its base URL", Settings{}, keys,
			Choice{Provider: "ollama", Model: "qwen3", API: APIChatCompletions, BaseURL: "http://gpu-box:11434/v1", MaxSteps: 9, Source: `from "model" in cfg.json`, EndpointFrom: `"base_url" in cfg.json`}},
		{"a flag of the same provider keeps the config's base URL", Settings{Model: "ollama/llama3.2"}, keys,
			Choice{Provider: "ollama", Model: "llama3.2", API: APIChatCompletions, BaseURL: "http://gpu-box:11434/v1", MaxSteps: 9, Source: "from --model", EndpointFrom: `"base_url" in cfg.json`}},
		{"a flag of another provider drops it", Settings{Model: "anthropic/claude-opus-4-1", MaxSteps: 3}, keys,
			Choice{Provider: "anthropic", Model: "claude-opus-4-1", API: APIAnthropic, APIKeyEnv: "ANTHROPIC_API_KEY", APIKey: "sk-a", MaxSteps: 3, Source: "from --model"}},
		{"the environment beats the config", Settings{}, append([]string{"HOWL_MODEL", "openai/gpt-4.1-mini"}, keys...),
			Choice{Provider: "openai", Model: "gpt-4.1-mini", API: APIOpenAI, APIKeyEnv: "OPENAI_API_KEY", APIKey: "sk-o", MaxSteps: 9, Source: "from $HOWL_MODEL"}},
		{"a base URL flag makes any prefix Chat Completions", Settings{Model: "anthropic/claude-x", BaseURL: "http://127.0.0.1:4000/v1/"}, keys,
			Choice{Provider: "anthropic", Model: "claude-x", API: APIChatCompletions, BaseURL: "http://127.0.0.1:4000/v1", MaxSteps: 9, Source: "from --model", EndpointFrom: "--base-url"}},
		{"an unknown prefix with a base URL is part of the name", Settings{Model: "qwen/qwen3-8b", BaseURL: "http://127.0.0.1:1234/v1"}, nil,
			Choice{Provider: "openai-compat", Model: "qwen/qwen3-8b", API: APIChatCompletions, BaseURL: "http://127.0.0.1:1234/v1", MaxSteps: 9, Source: "from --model", EndpointFrom: "--base-url"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), ResolveOptions{Flags: c.flags, Config: cfg, ConfigSource: "cfg.json", Getenv: envOf(c.env...), OllamaURL: "off"})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestResolveSendsKeysOnlyWhereTheyBelong(t *testing.T) {
	env := envOf("OPENAI_API_KEY", "sk-secret", "MY_KEY", "sk-mine", "OPENROUTER_API_KEY", "sk-or")
	resolve := func(f Settings, cfg Settings) Choice {
		t.Helper()
		c, err := Resolve(context.Background(), ResolveOptions{Flags: f, Config: cfg, Getenv: env, OllamaURL: "off"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := resolve(Settings{Model: "openai/gpt-4.1", BaseURL: "http://127.0.0.1:8080/v1"}, Settings{}); c.APIKey != "" || c.APIKeyEnv != "" {
		t.Errorf("an OpenAI key went to a custom base URL: %+v", c)
	}
	if c := resolve(Settings{Model: "openai/gpt-4.1", BaseURL: "http://127.0.0.1:8080/v1"}, Settings{APIKeyEnv: "MY_KEY"}); c.APIKey != "sk-mine" {
		t.Errorf("api_key_env was ignored: %+v", c)
	}
	if c := resolve(Settings{Model: "openrouter/anthropic/claude-sonnet-4.5"}, Settings{}); c.APIKey != "sk-or" || c.BaseURL != "https://openrouter.ai/api/v1" || c.Model != "anthropic/claude-sonnet-4.5" {
		t.Errorf("openrouter: %+v", c)
	}
	if c := resolve(Settings{Model: "ollama/llama3.2"}, Settings{}); c.APIKey != "" || c.BaseURL != DefaultOllamaURL+"/v1" {
		t.Errorf("ollama: %+v", c)
	}
	_, err := Resolve(context.Background(), ResolveOptions{Flags: Settings{Model: "anthropic/claude-sonnet-4-5"}, Getenv: noEnv, OllamaURL: "off"})
	if err == nil || !strings.Contains(err.Error(), "needs an API key in $ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "export ANTHROPIC_API_KEY=") {
		t.Errorf("missing key: %v", err)
	}
	_, err = Resolve(context.Background(), ResolveOptions{Flags: Settings{Model: "openai/gpt-4.1"}, Config: Settings{APIKeyEnv: "NOPE"}, ConfigSource: "c.json", Getenv: noEnv, OllamaURL: "off"})
	if err == nil || !strings.Contains(err.Error(), `$NOPE ("api_key_env" in c.json), which is not set`) {
		t.Errorf("unset api_key_env: %v", err)
	}
}

func TestResolveTeachesOnModelsItCannotPlace(t *testing.T) {
	cases := []struct {
		flags Settings
		want  []string
	}{
		{Settings{Model: "mistral/large"}, []string{`model "mistral/large" (from --model) does not start with a known provider`, "anthropic, llamacpp, lmstudio, ollama, openai, openai-compat, openrouter, vllm", "base URL"}},
		{Settings{Model: "openai-compat/x"}, []string{"no base URL is set", "--base-url"}},
		{Settings{BaseURL: "http://127.0.0.1:8080/v1"}, []string{"a base URL is set (http://127.0.0.1:8080/v1, from --base-url) but no model", "http://127.0.0.1:8080/v1/models"}},
		{Settings{Model: "ollama/x", BaseURL: "127.0.0.1:11434"}, []string{`base URL "127.0.0.1:11434" (from --base-url) is not an http(s) URL`}},
		{Settings{Model: "ollama/x", MaxSteps: 5000}, []string{"--max-steps is 5000", "from 1 to 1000"}},
	}
	for _, c := range cases {
		_, err := Resolve(context.Background(), ResolveOptions{Flags: c.flags, Getenv: noEnv, OllamaURL: "off"})
		if err == nil {
			t.Errorf("%+v resolved", c.flags)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: message lacks %q: %s", c.flags, w, err)
			}
		}
	}
	if c, err := Resolve(context.Background(), ResolveOptions{Flags: Settings{Model: "claude-sonnet-4-5"}, Getenv: envOf("ANTHROPIC_API_KEY", "k"), OllamaURL: "off"}); err != nil || c.Provider != "anthropic" {
		t.Errorf("a bare claude name: %+v %v", c, err)
	}
}

func TestAutoDetectionPrefersOpenAIThenAnthropicThenOllama(t *testing.T) {
	ctx := context.Background()
	c, _ := Resolve(ctx, ResolveOptions{Getenv: envOf("OPENAI_API_KEY", "a", "ANTHROPIC_API_KEY", "b"), OllamaURL: "off"})
	if c.Name() != "openai/"+DefaultOpenAIModel || c.Source != "auto-detected: $OPENAI_API_KEY is set" {
		t.Errorf("both keys: %+v", c)
	}
	c, _ = Resolve(ctx, ResolveOptions{Getenv: envOf("OPENAI_API_KEY", "", "ANTHROPIC_API_KEY", "b"), OllamaURL: "off"})
	if c.Name() != "anthropic/"+DefaultAnthropicModel || c.APIKey != "b" {
		t.Errorf("anthropic key: %+v", c)
	}
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"models":[{"name":"qwen3:8b","model":"qwen3:8b"},{"name":"llama3.2:latest"}]}`))
	}))
	defer ollama.Close()
	c, err := Resolve(ctx, ResolveOptions{Getenv: envOf("HOWL_OLLAMA_URL", ollama.URL)})
	if err != nil || c.Name() != "ollama/qwen3:8b" || c.BaseURL != ollama.URL+"/v1" || c.API != APIChatCompletions ||
		!strings.Contains(c.Source, "Ollama at "+ollama.URL+" (the first of its 2 models)") {
		t.Errorf("ollama: %+v %v", c, err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"models":[]}`)) }))
	defer empty.Close()
	_, err = Resolve(ctx, ResolveOptions{Getenv: noEnv, OllamaURL: empty.URL})
	if err == nil || !strings.Contains(err.Error(), "has no models") || !strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("empty ollama: %v", err)
	}
}

func TestTheOllamaProbeIsBounded(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	start := time.Now()
	_, err := Resolve(context.Background(), ResolveOptions{Getenv: noEnv, OllamaURL: hang.URL})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the probe took %s", took)
	}
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindNoModel {
		t.Errorf("a silent Ollama: %v", err)
	}
}

func TestWithNothingConfiguredTheErrorSaysExactlyHowToConfigureOne(t *testing.T) {
	_, err := Resolve(context.Background(), ResolveOptions{Getenv: noEnv, OllamaURL: "off", ConfigSource: "/home/p/.mcp.json"})
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindNoModel {
		t.Fatalf("Resolve: %v", err)
	}
	t.Logf("message: %s", err)
	for _, w := range []string{"no model is configured", "export ANTHROPIC_API_KEY=", "OPENAI_API_KEY", "ollama serve", "ollama pull",
		`"model": "provider/name"`, "/home/p/.mcp.json", "--model", "--base-url", "works without one"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q", w)
		}
	}
}

func TestAnOpenAIKeyInTheEnvironmentNeverReachesAnotherEndpoint(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak") // the OpenAI SDK reads it by itself
	t.Setenv("OPENAI_ORG_ID", "org-must-not-leak")
	srv, model := scriptedOpenAI(t, llmtest.Sequence(llmtest.Turn{Text: "hi"}))
	conv := NewConversation()
	conv.AddUser("hi")
	if err := NewAgent(model, noTools{}, Options{}).Run(context.Background(), conv, nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("sent to a third-party endpoint: Authorization %q, OpenAI-Organization %q", h.Get("Authorization"), h.Get("OpenAI-Organization"))
	}
}
