package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// OllamaProbeTimeout bounds the auto-detection probe of a local Ollama, so a
// machine without one pays at most this once.
const OllamaProbeTimeout = 300 * time.Millisecond

// ollamaURL is where Ollama is looked for: $HOWL_OLLAMA_URL, $OLLAMA_HOST,
// or DefaultOllamaURL, without a trailing slash.
func ollamaURL(o ResolveOptions, env func(string) string) string {
	u := o.OllamaURL
	if u == "" {
		u = env("HOWL_OLLAMA_URL")
	}
	if u == "" || u == "off" {
		if h := env("OLLAMA_HOST"); h != "" {
			u = h
			if !strings.Contains(u, "://") {
				u = "http://" + u
			}
			u = strings.Replace(u, "://0.0.0.0", "://127.0.0.1", 1)
		} else {
			u = DefaultOllamaURL
		}
	}
	return strings.TrimRight(u, "/")
}

// autoDetect is Resolve with no model anywhere.
func autoDetect(ctx context.Context, o ResolveOptions, env func(string) string, c Choice) (Choice, error) {
	switch {
	case env("OPENAI_API_KEY") != "":
		c.Provider, c.Model, c.API, c.APIKeyEnv = "openai", DefaultOpenAIModel, APIOpenAI, "OPENAI_API_KEY"
		c.BaseURL = strings.TrimRight(env("OPENAI_BASE_URL"), "/")
		c.EndpointFrom = fromEnv(c.BaseURL, "OPENAI_BASE_URL")
	case env("ANTHROPIC_API_KEY") != "":
		c.Provider, c.Model, c.API, c.APIKeyEnv = "anthropic", DefaultAnthropicModel, APIAnthropic, "ANTHROPIC_API_KEY"
		c.BaseURL = strings.TrimRight(env("ANTHROPIC_BASE_URL"), "/")
		c.EndpointFrom = fromEnv(c.BaseURL, "ANTHROPIC_BASE_URL")
	}
	if c.Provider != "" {
		c.APIKey = env(c.APIKeyEnv)
		c.Source = fmt.Sprintf("auto-detected: $%s is set", c.APIKeyEnv)
		return c, nil
	}
	off := o.OllamaURL == "off" || o.OllamaURL == "" && env("HOWL_OLLAMA_URL") == "off"
	base := ollamaURL(o, env)
	if !off {
		models, err := probeOllama(ctx, base)
		if err == nil && len(models) > 0 {
			c.Provider, c.Model, c.API, c.BaseURL = "ollama", models[0], APIChatCompletions, base+"/v1"
			c.Source = fmt.Sprintf("auto-detected: Ollama at %s (the first of its %d models)", base, len(models))
			return c, nil
		}
		if err == nil {
			return c, &Error{Kind: KindNoModel,
				Cause: fmt.Sprintf("no model is configured, and Ollama at %s has no models", base),
				Fix:   "fetch one with `ollama pull llama3.2` (any model that supports tools), or configure another model: see `howl ask --help`"}
		}
	}
	return c, noModel(o, base, off)
}

// noModel says exactly how to configure a model.
func noModel(o ResolveOptions, ollama string, probeOff bool) *Error {
	src := o.ConfigSource
	if src == "" {
		src = "a config file (--config, $HOWL_CONFIG, ./.mcp.json or <user config dir>/howl/mcp.json)"
	}
	looked := "--model, $HOWL_MODEL, \"model\" in the config, $OPENAI_API_KEY, $ANTHROPIC_API_KEY and a local Ollama at " + ollama
	if probeOff {
		looked = "--model, $HOWL_MODEL, \"model\" in the config, $OPENAI_API_KEY and $ANTHROPIC_API_KEY (the Ollama probe is off)"
	}
	return &Error{Kind: KindNoModel,
		Cause: "no model is configured: howl looked at " + looked + " and found none",
		Fix: "to use one, export ANTHROPIC_API_KEY=<key> (or OPENAI_API_KEY=<key>); or run Ollama (`ollama serve`, `ollama pull llama3.2`); " +
			"or add \"model\": \"provider/name\" (plus \"base_url\" and \"api_key_env\" as needed) to " + src +
			"; or pass --model, e.g. --model ollama/llama3.2 or --model openai-compat/NAME --base-url http://127.0.0.1:8080/v1. " +
			"Everything in howl that needs no model works without one"}
}

// probeOllama lists the models of the Ollama at base (GET /api/tags), within
// OllamaProbeTimeout.
func probeOllama(ctx context.Context, base string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, OllamaProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/api/tags: %s", base, resp.Status)
	}
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&tags); err != nil {
		return nil, errors.New("not an Ollama /api/tags answer")
	}
	var names []string
	for _, m := range tags.Models {
		if n := cmp.Or(m.Name, m.Model); n != "" {
			names = append(names, n)
		}
	}
	return names, nil
}
