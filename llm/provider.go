package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/anthropic"
	"charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"
	"github.com/openai/openai-go/v3/option"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// MaxReplyBytes bounds one model reply as howl reads it: its text,
// reasoning and tool calls (ids, names and arguments) together. 4 MiB is
// about a million tokens of text: far above any real answer (the largest
// output limits are 64k-128k tokens, well under 1 MiB) and far below memory
// trouble, since the reply is kept in the conversation, the session
// database and every later request. It stops a model stuck repeating
// itself with no max_tokens. Past it howl stops reading the stream
// (cancelling the request), keeps what came up to the bound, drops the
// reply's tool calls unrun, and ends the turn (Reply.OverMaxBytes).
const MaxReplyBytes = 4 << 20

// OverMaxBytesText is what the person reads under a reply cut at
// MaxReplyBytes (the chat and howl ask show the same words).
func OverMaxBytesText() string {
	return fmt.Sprintf("howl stopped reading the reply at MaxReplyBytes (%d bytes): what came before is kept, and any tool calls in it were not run; ask for a shorter answer, or for it in parts", MaxReplyBytes)
}

// userAgent identifies howl to providers.
const userAgent = "howl (+https://github.com/howl-mcp/howl)"

// NewModel returns the Model for c, built on charm.land/fantasy's providers:
// OpenAI's and Anthropic's native streaming APIs, and fantasy's
// OpenAI-compatible provider for any base URL (it also reads the
// reasoning_content some servers stream). The SDKs' own retries are off:
// Agent.Run retries, so it can tell the person and never replay text.
func NewModel(c Choice) (Model, error) { return newModel(c, nil) }

// newModel is NewModel; wrap, when set, wraps the transport the SDK
// reads through (tests count the events it hands over).
func newModel(c Choice, wrap func(http.RoundTripper) http.RoundTripper) (Model, error) {
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		tr = &http.Transport{}
	}
	// Streamed deltas that arrive together reach the SDK as one
	// (coalescingTransport): its accumulator copies the reply per chunk.
	var rt http.RoundTripper = coalescingTransport{tr.Clone()}
	if wrap != nil {
		rt = wrap(rt)
	}
	hc := &http.Client{Transport: rt}
	var (
		p   fantasy.Provider
		err error
	)
	switch c.API {
	case APIAnthropic:
		opts := []anthropic.Option{anthropic.WithAPIKey(c.APIKey), anthropic.WithHTTPClient(hc), anthropic.WithUserAgent(userAgent)}
		if c.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(c.BaseURL))
		}
		p, err = anthropic.New(opts...)
	case APIOpenAI:
		opts := []openai.Option{openai.WithAPIKey(c.APIKey), openai.WithHTTPClient(hc), openai.WithUserAgent(userAgent)}
		if c.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(c.BaseURL))
		}
		p, err = openai.New(opts...)
	case APIChatCompletions:
		// The OpenAI SDK adds $OPENAI_API_KEY, $OPENAI_ORG_ID and
		// $OPENAI_PROJECT_ID to every request by default: clear them, so
		// only the key Choice names reaches a third-party endpoint.
		sdk := []option.RequestOption{option.WithOrganization(""), option.WithProject("")}
		if c.APIKey == "" {
			sdk = append(sdk, option.WithAPIKey(""), option.WithHeaderDel("Authorization"))
		}
		opts := []openaicompat.Option{openaicompat.WithBaseURL(c.BaseURL), openaicompat.WithHTTPClient(hc),
			openaicompat.WithUserAgent(userAgent), openaicompat.WithName(c.Provider), openaicompat.WithSDKOptions(sdk...)}
		if c.APIKey != "" {
			opts = append(opts, openaicompat.WithAPIKey(c.APIKey))
		}
		p, err = openaicompat.New(opts...)
	default:
		return nil, configError(fmt.Sprintf("model %s has no API (%q)", c.Name(), c.API), "resolve the model with llm.Resolve")
	}
	if err != nil {
		return nil, configError(fmt.Sprintf("cannot set up %s: %v", c.Name(), err), "check the model settings")
	}
	lm, err := p.LanguageModel(context.Background(), c.Model)
	if err != nil {
		return nil, configError(fmt.Sprintf("cannot set up %s: %v", c.Name(), err), "check the model settings")
	}
	return &fantasyModel{choice: c, lm: lm}, nil
}

// fantasyModel adapts a fantasy.LanguageModel to Model.
type fantasyModel struct {
	choice Choice
	lm     fantasy.LanguageModel

	// The declarations of one run repeat on every step: convert them once.
	mu       sync.Mutex
	toolsKey string
	tools    []fantasy.Tool
}

// Name implements Model.
func (m *fantasyModel) Name() string { return m.choice.Name() }

// ContextWindow is the configured window (see WindowOf).
func (m *fantasyModel) ContextWindow() int { return m.choice.ContextWindow }

// Stream implements Model.
func (m *fantasyModel) Stream(ctx context.Context, req Request, emit func(Event)) (reply *Reply, err error) {
	defer func() {
		// The provider libraries index their accumulators with the
		// endpoint's numbers (a choice or tool-call index of -1 panics
		// inside them): a panic there is the endpoint's broken reply, not
		// a crash of howl, whose terminal would be left in raw mode.
		if p := recover(); p != nil {
			reply, err = nil, brokenEndpoint(m.choice.Name(), fmt.Sprintf("the endpoint of %s sent a reply its provider library could not read (%s)", m.choice.Name(), render.Ellipsize(fmt.Sprint(p), 200)))
		}
	}()
	return m.stream(ctx, req, emit)
}

// stream is Stream without its guard against the libraries' panics.
func (m *fantasyModel) stream(ctx context.Context, req Request, emit func(Event)) (*Reply, error) {
	call := fantasy.Call{Prompt: toPrompt(req), Tools: m.toolsFor(req.Tools)}
	if req.MaxOutputTokens > 0 {
		call.MaxOutputTokens = &req.MaxOutputTokens
	}
	// sctx ends the request when the reply passes MaxReplyBytes.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := m.lm.Stream(sctx, call)
	if err != nil {
		return nil, classify(err, m.choice)
	}
	reply := &Reply{}
	var text, reasoning strings.Builder
	var streamErr error
	sawError := false
	room := MaxReplyBytes
	streamedArgs := map[string]int{} // argument bytes counted per call id
	starts := 0                      // tool calls the reply has opened
	// keep is the part of s that fits in what is left of MaxReplyBytes,
	// cut at a character boundary; a cut marks the reply.
	keep := func(s string) string {
		if len(s) <= room {
			room -= len(s)
			return s
		}
		n := render.RuneBoundary(s, room)
		room, reply.OverMaxBytes = 0, true
		return s[:n]
	}
	for part := range stream {
		switch part.Type {
		case fantasy.StreamPartTypeTextDelta:
			if d := keep(part.Delta); d != "" {
				text.WriteString(d)
				emit(TextDelta{Text: d})
			}
		case fantasy.StreamPartTypeReasoningDelta:
			if d := keep(part.Delta); d != "" {
				reasoning.WriteString(d)
				emit(ReasoningDelta{Text: d})
			}
		case fantasy.StreamPartTypeToolInputDelta:
			// Arguments count as they stream: the provider gathers them
			// before it hands over the whole call. fantasy's Anthropic
			// provider carries them in ToolCallInput, its OpenAI one in Delta.
			if d := keep(cmp.Or(part.Delta, part.ToolCallInput)); d != "" { // an empty one holds no entry
				streamedArgs[part.ID] += len(d)
			}
		case fantasy.StreamPartTypeToolInputStart:
			// Each call the reply opens costs the libraries work over every
			// call before it (fantasy sorts their indices, openai-go grows
			// its slice by one), so 100,000 empty ones in 8 MB cost minutes
			// of CPU: a reply opening more than MaxToolCallStarts is refused.
			if starts++; starts > MaxToolCallStarts {
				stop()
				return nil, brokenEndpoint(m.choice.Name(), fmt.Sprintf("the reply of %s opened more than %d tool calls (howl runs %d a step)", m.choice.Name(), MaxToolCallStarts, MaxToolCallsPerStep))
			}
		case fantasy.StreamPartTypeToolCall:
			if part.ProviderExecuted {
				break
			}
			if size := len(part.ID) + len(part.ToolCallName) + max(len(part.ToolCallInput)-streamedArgs[part.ID], 0); size > room {
				room, reply.OverMaxBytes = 0, true
			} else {
				room -= size
				reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: part.ID, Name: part.ToolCallName, Arguments: part.ToolCallInput})
			}
		case fantasy.StreamPartTypeFinish:
			reply.Usage = Usage{InputTokens: part.Usage.InputTokens, OutputTokens: part.Usage.OutputTokens}
			reply.Truncated = part.FinishReason == fantasy.FinishReasonLength
		case fantasy.StreamPartTypeError:
			sawError, streamErr = true, part.Error
		}
		if reply.OverMaxBytes {
			// Stop reading: the request ends, and a half-read reply's
			// calls are not run (none of them gets a result to answer).
			stop()
			reply.ToolCalls = nil
			break
		}
	}
	reply.Text, reply.Reasoning = text.String(), reasoning.String()
	if sawError && streamErr == nil {
		streamErr = errors.New("the stream reported an error without saying which")
	}
	if streamErr == nil && ctx.Err() != nil {
		streamErr = ctx.Err()
	}
	if streamErr != nil {
		return reply, classify(streamErr, m.choice)
	}
	return reply, nil
}

// MaxToolCallStarts bounds the tool calls one reply may open: 64 times
// MaxToolCallsPerStep, far past what a model sends (the calls past
// MaxToolCallsPerStep up to it are each answered, refused), and about a
// second of the libraries' work at its end.
const MaxToolCallStarts = 64 * MaxToolCallsPerStep

// toolsFor converts decls, reusing the last conversion when they are the same.
func (m *fantasyModel) toolsFor(decls []mcp.FunctionDecl) []fantasy.Tool {
	var key strings.Builder
	for _, d := range decls {
		key.WriteString(d.Name)
		key.WriteByte(0)
		key.WriteString(d.Description)
		key.WriteByte(0)
		key.Write(d.Parameters)
		key.WriteByte(0)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := key.String(); k != m.toolsKey || m.tools == nil {
		m.toolsKey, m.tools = k, toTools(decls)
	}
	return m.tools
}

// toPrompt turns the plain conversation into fantasy's prompt.
func toPrompt(req Request) fantasy.Prompt {
	prompt := make(fantasy.Prompt, 0, len(req.Messages)+1)
	if req.System != "" {
		prompt = append(prompt, fantasy.NewSystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			prompt = append(prompt, fantasy.NewUserMessage(m.Text))
		case RoleAssistant:
			var parts []fantasy.MessagePart
			if m.Text != "" {
				parts = append(parts, fantasy.TextPart{Text: m.Text})
			}
			for _, tc := range m.ToolCalls {
				parts = append(parts, fantasy.ToolCallPart{ToolCallID: tc.ID, ToolName: tc.Name, Input: validArgs(tc.Arguments)})
			}
			if len(parts) > 0 {
				prompt = append(prompt, fantasy.Message{Role: fantasy.MessageRoleAssistant, Content: parts})
			}
		case RoleTool:
			parts := make([]fantasy.MessagePart, 0, len(m.ToolResults))
			for _, r := range m.ToolResults {
				var out fantasy.ToolResultOutputContent = fantasy.ToolResultOutputContentText{Text: r.Content}
				if r.IsError {
					out = fantasy.ToolResultOutputContentError{Error: errors.New(r.Content)}
				}
				parts = append(parts, fantasy.ToolResultPart{ToolCallID: r.CallID, Output: out})
			}
			if len(parts) > 0 {
				prompt = append(prompt, fantasy.Message{Role: fantasy.MessageRoleTool, Content: parts})
			}
		}
	}
	return prompt
}

// validArgs is the arguments as sent back in history: a model's invalid
// JSON becomes {} there (its tool result already says what was wrong).
func validArgs(s string) string {
	if strings.TrimSpace(s) == "" || !json.Valid([]byte(s)) {
		return "{}"
	}
	return s
}

// toTools turns declarations into fantasy function tools.
func toTools(decls []mcp.FunctionDecl) []fantasy.Tool {
	tools := make([]fantasy.Tool, 0, len(decls))
	for _, d := range decls {
		schema := map[string]any{}
		_ = json.Unmarshal(d.Parameters, &schema)
		// fantasy's Anthropic provider reads "required" only as []string.
		if req, ok := schema["required"].([]any); ok {
			names := make([]string, 0, len(req))
			for _, r := range req {
				if s, ok := r.(string); ok {
					names = append(names, s)
				}
			}
			schema["required"] = names
		}
		tools = append(tools, fantasy.FunctionTool{Name: d.Name, Description: d.Description, InputSchema: schema})
	}
	return tools
}
