package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"charm.land/fantasy"

	"github.com/howl-mcp/howl/render"
)

// Kind classifies an Error by what the person can do about it.
type Kind string

// The kinds of Error.
const (
	// KindConfig: the model settings are incomplete or wrong.
	KindConfig Kind = "config"
	// KindNoModel: nothing is configured and nothing was detected.
	KindNoModel Kind = "no_model"
	// KindAuth: the provider rejected the API key (401, 403).
	KindAuth Kind = "auth"
	// KindUnknownModel: the provider does not serve the model named.
	KindUnknownModel Kind = "unknown_model"
	// KindContextWindow: the conversation exceeds the model's context window.
	KindContextWindow Kind = "context_window"
	// KindRateLimit: the provider is rate limiting (429); retried first.
	KindRateLimit Kind = "rate_limit"
	// KindNetwork: the endpoint could not be reached; retried first.
	KindNetwork Kind = "network"
	// KindProvider: the provider failed (5xx, overloaded); retried first.
	KindProvider Kind = "provider"
	// KindRequest: the provider refused the request for another reason.
	KindRequest Kind = "request"
	// KindStepLimit: the run reached its step limit without an answer.
	KindStepLimit Kind = "step_limit"
	// KindCancelled: the context was cancelled.
	KindCancelled Kind = "cancelled"
)

// MaxProviderMessage bounds the provider's own error text quoted in an Error.
const MaxProviderMessage = 400

// Error is a model-side failure that says what was wrong and how to fix it.
// The conversation is left as it was before the failed request, so the same
// run can simply be tried again.
type Error struct {
	Kind Kind
	// Model is "provider/model", when known.
	Model string
	// Status is the HTTP status the provider answered, when there was one.
	Status int
	// RetryAfter is the wait the provider asked for, if any.
	RetryAfter time.Duration
	// Retries is how many times howl retried before giving up.
	Retries int
	// Cause says what was wrong, with the values involved.
	Cause string
	// Fix says what to do.
	Fix string
	// Err is the underlying error.
	Err error
}

// Error is the cause, then the fix.
func (e *Error) Error() string {
	if e.Fix == "" {
		return e.Cause
	}
	return e.Cause + ": " + e.Fix
}

// Unwrap returns the underlying error (context.Canceled for a cancelled run).
func (e *Error) Unwrap() error { return e.Err }

// retryable reports whether the request may succeed if sent again.
func (e *Error) retryable() bool {
	return e.Kind == KindRateLimit || e.Kind == KindNetwork || e.Kind == KindProvider
}

// classify turns whatever a provider or transport returned into an Error.
func classify(err error, c Choice) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	name := c.Name()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindCancelled, Model: name, Cause: "cancelled while waiting for " + name, Err: err}
	}
	var pe *fantasy.ProviderError
	if errors.As(err, &pe) && (pe.StatusCode != 0 || pe.ResponseBody != nil || pe.IsContextTooLarge()) {
		return classifyProvider(pe, c)
	}
	if isNetwork(err) {
		return &Error{Kind: KindNetwork, Model: name, Err: err,
			Cause: fmt.Sprintf("cannot reach %s at %s (%s)", name, c.endpoint(), clampMessage(rootMessage(err))),
			Fix:   c.networkFix()}
	}
	return &Error{Kind: KindRequest, Model: name, Err: err,
		Cause: fmt.Sprintf("%s failed: %s", name, clampMessage(err.Error())),
		Fix:   "try again; if it persists, check the model settings with `howl ask --help`"}
}

func classifyProvider(pe *fantasy.ProviderError, c Choice) *Error {
	name := c.Name()
	msg := clampMessage(providerMessage(pe))
	status := ""
	if pe.StatusCode != 0 {
		status = fmt.Sprintf("%d %s", pe.StatusCode, http.StatusText(pe.StatusCode))
	} else {
		status = "stream error"
	}
	e := &Error{Model: name, Status: pe.StatusCode, Err: pe, RetryAfter: retryAfter(pe.ResponseHeaders)}
	lower := strings.ToLower(pe.Title + " " + pe.Message)
	switch {
	case pe.IsContextTooLarge() || contextTooLong(lower):
		e.Kind = KindContextWindow
		size := ""
		if pe.ContextUsedTokens > 0 && pe.ContextMaxTokens > 0 {
			size = fmt.Sprintf(": %d tokens, the limit is %d", pe.ContextUsedTokens, pe.ContextMaxTokens)
		}
		e.Cause = fmt.Sprintf("the conversation no longer fits %s's context window%s (%s: %s)", name, size, status, msg)
		e.Fix = "start a new conversation, ask for smaller reads (a pattern, or a lower max_bytes), or pick a model with a larger context window"
	case pe.StatusCode == http.StatusUnauthorized || pe.StatusCode == http.StatusForbidden || pe.AuthError || strings.Contains(lower, "authentication_error"):
		e.Kind = KindAuth
		if c.APIKeyEnv == "" {
			e.Cause = fmt.Sprintf("%s wants an API key and howl sent none (%s: %s)", c.endpointName(), status, msg)
		} else {
			e.Cause = fmt.Sprintf("%s rejected the API key from $%s (%s: %s)", c.endpointName(), c.APIKeyEnv, status, msg)
		}
		e.Fix = c.authFix()
	case pe.StatusCode == http.StatusTooManyRequests || strings.Contains(lower, "rate limit") || strings.Contains(lower, "rate_limit"):
		e.Kind = KindRateLimit
		e.Cause = fmt.Sprintf("%s is rate limiting requests (%s: %s)", c.endpointName(), status, msg)
		e.Fix = "wait a little and ask again, or check the rate limits of your plan"
	case unknownModel(pe.StatusCode, lower):
		e.Kind = KindUnknownModel
		e.Cause = fmt.Sprintf("%s does not serve the model %q (%s: %s)", c.endpointName(), c.Model, status, msg)
		e.Fix = c.unknownModelFix()
	case pe.StatusCode == http.StatusNotFound:
		e.Kind = KindRequest
		e.Cause = fmt.Sprintf("%s has no %s endpoint (%s: %s)", c.endpoint(), c.API.wireName(), status, msg)
		e.Fix = "check the base URL: an OpenAI-compatible server usually wants it to end in /v1 (http://127.0.0.1:11434/v1 for Ollama)"
	case pe.StatusCode >= 500 || pe.StatusCode == http.StatusRequestTimeout || pe.IsRetryable():
		e.Kind = KindProvider
		e.Cause = fmt.Sprintf("%s failed to answer (%s: %s)", c.endpointName(), status, msg)
		e.Fix = "the provider is having trouble: wait a little and ask again"
	default:
		e.Kind = KindRequest
		e.Cause = fmt.Sprintf("%s refused the request (%s: %s)", c.endpointName(), status, msg)
		e.Fix = "check the model settings (--model, --base-url) against what the provider accepts"
	}
	return e
}

// providerMessage is the provider's own explanation: the message of the
// JSON error envelope when there is one, not the SDK's request dump.
func providerMessage(pe *fantasy.ProviderError) string {
	for _, src := range []string{string(pe.ResponseBody), pe.Message} {
		if _, body, ok := strings.Cut(src, "\r\n\r\n"); ok {
			src = body
		}
		i := strings.IndexByte(src, '{')
		if i < 0 {
			continue
		}
		var env struct {
			Error   json.RawMessage `json:"error"`
			Message string          `json:"message"`
		}
		if json.NewDecoder(strings.NewReader(src[i:])).Decode(&env) != nil {
			continue
		}
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(env.Error, &s) == nil && s != "":
			return s
		case env.Message != "":
			return env.Message
		}
	}
	return pe.Message
}

func contextTooLong(lower string) bool {
	for _, s := range []string{"context_length_exceeded", "context length", "context window", "prompt is too long", "maximum context", "too many tokens", "exceeds the context"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

func unknownModel(status int, lower string) bool {
	if !strings.Contains(lower, "model") {
		return false
	}
	if status == http.StatusNotFound || strings.Contains(lower, "model_not_found") {
		return true
	}
	for _, s := range []string{"not found", "does not exist", "unknown model", "invalid model", "no such model", "not supported"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// retryAfter reads retry-after-ms or retry-after (seconds or an HTTP date),
// whatever the case of the header names.
func retryAfter(h map[string]string) time.Duration {
	get := func(name string) string {
		for k, v := range h {
			if strings.EqualFold(k, name) {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	if v := get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := get("retry-after"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0)
		}
	}
	return 0
}

func isNetwork(err error) bool {
	var ne net.Error
	var ue *url.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de) || errors.As(err, &ne) || errors.As(err, &ue) ||
		errors.Is(err, io.ErrUnexpectedEOF) || fantasy.IsTransportError(err)
}

// rootMessage is the innermost error's text: "connection refused", not the
// whole chain of wrappers around it.
func rootMessage(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Op + ": " + oe.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}

// clampMessage makes a provider's message safe and short enough to quote.
func clampMessage(s string) string {
	s = strings.TrimSpace(render.SanitizeLine(s))
	return render.Ellipsize(s, MaxProviderMessage)
}

// brokenEndpoint is the error of a reply howl stops reading because the
// endpoint broke the provider's streaming format or a bound no model
// reaches; model is "" where it is not known.
func brokenEndpoint(model, cause string) *Error {
	return &Error{Kind: KindRequest, Model: model, Cause: cause,
		Fix: "the endpoint is broken or hostile: check base_url and the provider (openai-compat, anthropic), or try another model"}
}
