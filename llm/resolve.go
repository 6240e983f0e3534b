package llm

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// ResolveOptions are the inputs of Resolve, highest precedence first.
type ResolveOptions struct {
	// Flags are --model, --base-url and --max-steps (zero when not given).
	Flags Settings
	// Config is the file's model section (ParseSettings); ConfigSource
	// names the file in messages.
	Config       Settings
	ConfigSource string
	// Getenv reads the environment (os.LookupEnv when nil): $HOWL_MODEL,
	// $HOWL_BASE_URL, $HOWL_API_KEY_ENV, the API keys, $OPENAI_BASE_URL,
	// $ANTHROPIC_BASE_URL, $OLLAMA_HOST and $HOWL_OLLAMA_URL.
	Getenv func(string) (string, bool)
	// OllamaURL is where auto-detection probes for Ollama. Empty means
	// $HOWL_OLLAMA_URL, else $OLLAMA_HOST, else DefaultOllamaURL; "off"
	// skips the probe (tests, and anyone who wants no probe).
	OllamaURL string
}

// layer is one source of settings.
type layer struct {
	s Settings
	// model, baseURL, keyEnv name where each field came from.
	model, baseURL, keyEnv string
}

// Resolve picks the model: flags, then $HOWL_* variables, then the config
// file, then auto-detection ($OPENAI_API_KEY, $ANTHROPIC_API_KEY, then a local
// Ollama, probed for at most OllamaProbeTimeout). With nothing anywhere it
// returns a KindNoModel *Error that says exactly how to configure one. Every
// other mistake is a KindConfig *Error naming the value and the fix.
func Resolve(ctx context.Context, o ResolveOptions) (Choice, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	env := func(k string) string { v, _ := getenv(k); return strings.TrimSpace(v) }
	src := o.ConfigSource
	if src == "" {
		src = "the config"
	}
	layers := []layer{
		{o.Flags, "--model", "--base-url", ""},
		{Settings{Model: env("HOWL_MODEL"), BaseURL: env("HOWL_BASE_URL"), APIKeyEnv: env("HOWL_API_KEY_ENV")}, "$HOWL_MODEL", "$HOWL_BASE_URL", "$HOWL_API_KEY_ENV"},
		{o.Config, `"model" in ` + src, `"base_url" in ` + src, `"api_key_env" in ` + src},
	}
	var c Choice
	modelAt, baseAt, keyAt := -1, -1, -1
	for i, l := range layers {
		if modelAt < 0 && l.s.Model != "" {
			modelAt = i
		}
		if baseAt < 0 && l.s.BaseURL != "" {
			baseAt = i
		}
		if keyAt < 0 && l.s.APIKeyEnv != "" {
			keyAt = i
		}
	}
	c.MaxSteps = DefaultMaxSteps
	switch {
	case o.Flags.MaxSteps != 0:
		if err := checkMaxSteps(o.Flags.MaxSteps, "--max-steps"); err != nil {
			return c, err
		}
		c.MaxSteps = o.Flags.MaxSteps
	case o.Config.MaxSteps != 0:
		c.MaxSteps = o.Config.MaxSteps
	}
	if o.Config.Model == "" || o.Config.Model == c.Name() {
		c.ContextWindow = o.Config.ContextWindow // the config's window is its own model's
	}

	baseURL := ""
	if baseAt >= 0 {
		baseURL = strings.TrimRight(layers[baseAt].s.BaseURL, "/")
		if err := checkBaseURL(baseURL, layers[baseAt].baseURL); err != nil {
			return c, err
		}
	}
	if modelAt < 0 {
		if baseURL != "" {
			return c, configError(fmt.Sprintf("a base URL is set (%s, from %s) but no model", baseURL, layers[baseAt].baseURL),
				fmt.Sprintf("name the model too, e.g. --model openai-compat/NAME (the server lists its models at %s/models)", baseURL))
		}
		return autoDetect(ctx, o, env, c)
	}

	model := layers[modelAt].s.Model
	prov, name, err := parseModel(model, baseURL != "", layers[modelAt].model)
	if err != nil {
		return c, err
	}
	// A base_url from a lower layer belongs to that layer's model: drop it
	// when a higher layer picks a model of another provider.
	if baseAt > modelAt && layers[baseAt].s.Model != "" {
		if lower, _, err := parseModel(layers[baseAt].s.Model, true, ""); err == nil && lower.name != prov.name {
			baseURL = ""
			if prov.name == "openai-compat" {
				prov, name, err = parseModel(model, false, layers[modelAt].model)
				if err != nil {
					return c, err
				}
			}
		}
	}
	c.Provider, c.Model = prov.name, name
	c.Source = "from " + layers[modelAt].model
	keyEnv := ""
	if keyAt >= 0 {
		keyEnv = layers[keyAt].s.APIKeyEnv
	}
	switch {
	case baseURL != "":
		c.API, c.BaseURL = APIChatCompletions, baseURL
		c.EndpointFrom = layers[baseAt].baseURL
	case prov.api == APIOpenAI:
		c.API, c.BaseURL = APIOpenAI, strings.TrimRight(env("OPENAI_BASE_URL"), "/")
		c.EndpointFrom = fromEnv(c.BaseURL, "OPENAI_BASE_URL")
	case prov.api == APIAnthropic:
		c.API, c.BaseURL = APIAnthropic, strings.TrimRight(env("ANTHROPIC_BASE_URL"), "/")
		c.EndpointFrom = fromEnv(c.BaseURL, "ANTHROPIC_BASE_URL")
	case prov.url == "":
		return c, configError(fmt.Sprintf("model %q (from %s) names the openai-compat provider but no base URL is set", model, layers[modelAt].model),
			"set --base-url or \"base_url\" to the server's OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
	default:
		c.API, c.BaseURL = APIChatCompletions, prov.url
		c.EndpointFrom = "the " + prov.name + " default"
		if prov.name == "ollama" {
			c.BaseURL = ollamaURL(o, env) + "/v1"
		}
		if keyEnv == "" {
			keyEnv = prov.keyEnv
		}
	}
	if c.API != APIChatCompletions && keyEnv == "" {
		keyEnv = prov.keyEnv
	}
	if keyEnv != "" {
		c.APIKeyEnv = keyEnv
		c.APIKey = env(keyEnv)
		if c.APIKey == "" {
			from := "the default for " + prov.name
			if keyAt >= 0 && keyEnv == layers[keyAt].s.APIKeyEnv {
				from = layers[keyAt].keyEnv
			}
			return c, configError(fmt.Sprintf("model %s needs an API key in $%s (%s), which is not set", c.Name(), keyEnv, from),
				fmt.Sprintf("export %s=<your key>, or name the variable that holds it with \"api_key_env\" in the config", keyEnv))
		}
	}
	return c, nil
}

// fromEnv names the variable a native endpoint came from ("" when unset:
// the provider's own).
func fromEnv(value, name string) string {
	if value == "" {
		return ""
	}
	return "$" + name
}

// parseModel splits "provider/name". With a base URL, an unknown prefix is
// part of the name ("qwen/qwen3-8b" on LM Studio); without one, a bare name
// is matched by its family.
func parseModel(model string, haveBaseURL bool, from string) (provider, string, error) {
	prefix, rest, ok := strings.Cut(model, "/")
	if p, known := providers[prefix]; ok && known && rest != "" {
		return p, rest, nil
	}
	if haveBaseURL {
		return providers["openai-compat"], model, nil
	}
	if !ok {
		low := strings.ToLower(model)
		switch {
		case strings.HasPrefix(low, "claude"):
			return providers["anthropic"], model, nil
		case strings.HasPrefix(low, "gpt-") || strings.HasPrefix(low, "chatgpt") || len(low) > 1 && low[0] == 'o' && low[1] >= '1' && low[1] <= '9':
			return providers["openai"], model, nil
		}
	}
	return provider{}, "", configError(fmt.Sprintf("model %q (from %s) does not start with a known provider", model, from),
		fmt.Sprintf("write it as provider/name with provider one of %s (e.g. anthropic/%s), or set a base URL for any other OpenAI-compatible server",
			strings.Join(ProviderNames(), ", "), DefaultAnthropicModel))
}

func checkBaseURL(u, from string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return configError(fmt.Sprintf("base URL %q (from %s) is not an http(s) URL", u, from),
			"write the whole endpoint, e.g. http://127.0.0.1:11434/v1")
	}
	return nil
}
