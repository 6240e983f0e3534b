package llm

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// API is the wire protocol a Choice speaks.
type API string

// The APIs howl speaks.
const (
	// APIOpenAI is OpenAI's own streamed Chat Completions endpoint.
	APIOpenAI API = "openai"
	// APIAnthropic is Anthropic's streamed Messages API.
	APIAnthropic API = "anthropic"
	// APIChatCompletions is any OpenAI-compatible server at a base URL:
	// POST {base}/chat/completions, streamed.
	APIChatCompletions API = "chat_completions"
)

func (a API) wireName() string {
	if a == APIAnthropic {
		return "Messages API (/v1/messages)"
	}
	return "Chat Completions (/chat/completions)"
}

// The models auto-detection picks when only an API key is found. Set a
// model in the config or with --model to use another.
const (
	DefaultOpenAIModel    = "gpt-4.1"
	DefaultAnthropicModel = "claude-sonnet-4-5"
)

// Default endpoints.
const (
	DefaultOpenAIURL    = "https://api.openai.com/v1"
	DefaultAnthropicURL = "https://api.anthropic.com"
	DefaultOllamaURL    = "http://127.0.0.1:11434"
)

// provider is one row of the provider table.
type provider struct {
	name string
	// api is what the provider speaks without a base_url.
	api API
	// url is the default endpoint of a Chat Completions provider.
	url string
	// keyEnv is the variable read for the key when the endpoint is the
	// provider's own.
	keyEnv string
}

// providers is the table: the prefixes "provider/model" accepts.
var providers = map[string]provider{
	"openai":        {"openai", APIOpenAI, "", "OPENAI_API_KEY"},
	"anthropic":     {"anthropic", APIAnthropic, "", "ANTHROPIC_API_KEY"},
	"openrouter":    {"openrouter", APIChatCompletions, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
	"ollama":        {"ollama", APIChatCompletions, DefaultOllamaURL + "/v1", ""},
	"lmstudio":      {"lmstudio", APIChatCompletions, "http://127.0.0.1:1234/v1", ""},
	"llamacpp":      {"llamacpp", APIChatCompletions, "http://127.0.0.1:8080/v1", ""},
	"vllm":          {"vllm", APIChatCompletions, "http://127.0.0.1:8000/v1", ""},
	"openai-compat": {"openai-compat", APIChatCompletions, "", ""},
}

// ProviderNames lists the provider prefixes howl knows, sorted.
func ProviderNames() []string {
	out := make([]string, 0, len(providers))
	for n := range providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Choice is the model howl talks to, resolved from flags, environment,
// config and auto-detection, with where it came from.
type Choice struct {
	// Provider is the prefix of "provider/model".
	Provider string `json:"provider"`
	// Model is the provider's model name.
	Model string `json:"model"`
	API   API    `json:"api"`
	// BaseURL is the endpoint; "" means the provider's default.
	BaseURL string `json:"base_url,omitempty"`
	// APIKeyEnv names the variable the key came from; "" means no key is sent.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIKey is never serialized.
	APIKey   string `json:"-"`
	MaxSteps int    `json:"max_steps"`
	// ContextWindow is the configured window in tokens (0: not configured).
	ContextWindow int `json:"context_window,omitempty"`
	// Source says how the model was chosen, for a person.
	Source string `json:"source"`
	// EndpointFrom says where the endpoint came from ("--base-url",
	// "\"base_url\" in FILE", "$OPENAI_BASE_URL", "the provider's default").
	EndpointFrom string `json:"endpoint_from,omitempty"`
}

// Endpoint is the URL requests (and the API key, if any) go to.
func (c Choice) Endpoint() string { return c.endpoint() }

// Describe names the model, the endpoint its requests and key go to, and
// where each came from, for the line a person reads before anything is
// sent: "openai/gpt-4o at https://api.openai.com/v1 (from --model; key
// $OPENAI_API_KEY)".
func (c Choice) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s (%s", c.Name(), c.endpoint(), c.Source)
	if c.EndpointFrom != "" && c.BaseURL != "" {
		fmt.Fprintf(&b, "; endpoint from %s", c.EndpointFrom)
	}
	if c.APIKeyEnv != "" {
		fmt.Fprintf(&b, "; key $%s", c.APIKeyEnv)
	} else {
		b.WriteString("; no key sent")
	}
	b.WriteString(")")
	return b.String()
}

// Name is "provider/model".
func (c Choice) Name() string { return c.Provider + "/" + c.Model }

// endpoint is the URL requests go to.
func (c Choice) endpoint() string {
	switch {
	case c.BaseURL != "":
		return c.BaseURL
	case c.API == APIAnthropic:
		return DefaultAnthropicURL
	default:
		return DefaultOpenAIURL
	}
}

// endpointName names who answered, for error messages.
func (c Choice) endpointName() string {
	if c.API == APIChatCompletions {
		return fmt.Sprintf("%s at %s", c.Provider, c.endpoint())
	}
	return c.Provider
}

func (c Choice) authFix() string {
	if c.APIKeyEnv == "" {
		return "put the key in an environment variable and name that variable with \"api_key_env\" in the config (or $HOWL_API_KEY_ENV)"
	}
	return fmt.Sprintf("check that $%s holds a valid, active key for %s, or name the variable that does with \"api_key_env\"", c.APIKeyEnv, c.Provider)
}

func (c Choice) isLocal() bool {
	u, err := url.Parse(c.endpoint())
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "127.0.0.1" || h == "::1" || strings.HasPrefix(h, "127.")
}

func (c Choice) networkFix() string {
	if c.isLocal() {
		hint := "start it"
		if c.Provider == "ollama" {
			hint = "start it with `ollama serve`"
		}
		return fmt.Sprintf("is the server running? %s, or point --base-url (\"base_url\" in the config) at where it listens", hint)
	}
	return "check your network connection and the endpoint (--base-url, \"base_url\", $OPENAI_BASE_URL or $ANTHROPIC_BASE_URL)"
}

func (c Choice) unknownModelFix() string {
	fix := fmt.Sprintf("check the name after %q in --model or \"model\" in the config", c.Provider+"/")
	switch c.Provider {
	case "ollama":
		fix += fmt.Sprintf("; to fetch it, run `ollama pull %s`", c.Model)
	case "openai", "anthropic":
		fix += "; the provider's model list names the ones your key can use"
	default:
		fix += "; the server lists its models at " + strings.TrimRight(c.endpoint(), "/") + "/models"
	}
	return fix
}
