package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/howl-mcp/howl/mcp"
)

// ContextWarnAt is the share of the model's window past which the context
// view warns (the next turns may no longer fit).
const ContextWarnAt = 0.8

// ContextPart is one thing the model is sent on the next request, and
// what it costs.
type ContextPart struct {
	// What names it: "system prompt", "declarations", "conversation",
	// or a tool result ("mcp_read_demo result").
	What   string `json:"what"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
	// UnboundedBytes is what a bounded or spilled result would have cost
	// as the server sent it (0: the result was not cut): the saving is
	// UnboundedBytes - Bytes.
	UnboundedBytes int `json:"unbounded_bytes,omitempty"`
}

// ContextReport is what the model's context holds, largest part first.
type ContextReport struct {
	// Tokenizer says how tokens were counted (Tokenizer.Label).
	Tokenizer string `json:"tokenizer"`
	// Window is the model's context window in tokens (0: unknown);
	// WindowFrom says where it came from.
	Window      int    `json:"window,omitempty"`
	WindowFrom  string `json:"window_from,omitempty"`
	TotalBytes  int    `json:"total_bytes"`
	TotalTokens int    `json:"total_tokens"`
	// SavedBytes is what howl's content policy kept out of the context:
	// the sum of the results' UnboundedBytes - Bytes.
	SavedBytes int           `json:"saved_bytes"`
	Warning    string        `json:"warning,omitempty"`
	Parts      []ContextPart `json:"parts"`
}

// MeasureContext accounts for the next request of a conversation: the
// system prompt and declarations as sent, the messages' text and tool
// calls as one part, and each tool result as its own part, its bytes the
// content the model received. window is the model's context window in
// tokens (0: unknown).
func MeasureContext(system string, decls []mcp.FunctionDecl, msgs []Message, tk Tokenizer, window int, windowFrom string) ContextReport {
	rep := ContextReport{Tokenizer: tk.Label(), Window: window, WindowFrom: windowFrom}
	add := func(p ContextPart) {
		rep.Parts = append(rep.Parts, p)
		rep.TotalBytes += p.Bytes
		rep.TotalTokens += p.Tokens
		if p.UnboundedBytes > p.Bytes {
			rep.SavedBytes += p.UnboundedBytes - p.Bytes
		}
	}
	measure := func(what, s string) ContextPart { return ContextPart{What: what, Bytes: len(s), Tokens: tk.Count(s)} }
	add(measure("system prompt", system))
	add(measure(fmt.Sprintf("declarations (%d functions)", len(decls)), string(mcp.DeclarationJSON(decls))))
	var conv strings.Builder
	turns := 0
	for _, m := range msgs {
		if m.Role == RoleUser || m.Role == RoleAssistant {
			turns++
		}
		conv.WriteString(m.Text)
		for _, c := range m.ToolCalls {
			conv.WriteString(c.Name)
			conv.WriteString(c.Arguments)
		}
		for _, r := range m.ToolResults {
			p := measure(r.Name+" result", r.Content)
			p.UnboundedBytes = unboundedBytes(r.Content)
			add(p)
		}
	}
	add(measure(fmt.Sprintf("conversation (%d messages, tool calls included)", turns), conv.String()))
	slices.SortStableFunc(rep.Parts, func(a, b ContextPart) int { return b.Tokens - a.Tokens })
	if window > 0 && float64(rep.TotalTokens) >= ContextWarnAt*float64(window) {
		rep.Warning = fmt.Sprintf("the context holds %d of the model's %d tokens (%.0f%%): start a new conversation (.clear), or read with a pattern or a lower max_bytes",
			rep.TotalTokens, window, 100*float64(rep.TotalTokens)/float64(window))
	}
	return rep
}

// unboundedBytes is what a result howl cut would have cost as the server
// sent it: a bounded tool result's original_bytes, a paged or filtered
// read's total_bytes, a spilled binary's size in base64; 0 when the
// result was not cut.
func unboundedBytes(content string) int {
	var h struct {
		HowlCoverage *struct {
			OriginalBytes int `json:"original_bytes"`
			ItemsChanged  int `json:"items_changed"`
			ItemsShown    int `json:"items_shown"`
			ContentItems  int `json:"content_items"`
		} `json:"howl_coverage"`
		TotalBytes int   `json:"total_bytes"`
		Truncated  bool  `json:"truncated"`
		NextOffset *int  `json:"next_offset"`
		Spilled    bool  `json:"spilled"`
		SizeBytes  int64 `json:"size_bytes"`
	}
	if !strings.HasPrefix(content, "{") || json.Unmarshal([]byte(content), &h) != nil {
		return 0
	}
	switch {
	case h.HowlCoverage != nil && (h.HowlCoverage.ItemsChanged > 0 || h.HowlCoverage.ItemsShown < h.HowlCoverage.ContentItems):
		return h.HowlCoverage.OriginalBytes
	case h.Spilled:
		return int((h.SizeBytes + 2) / 3 * 4)
	case h.Truncated || h.NextOffset != nil:
		return h.TotalBytes
	}
	return 0
}

// Windows of models whose providers publish them, for the context view
// when the config does not say ("context_window"). A model not listed has
// an unknown window.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"claude-", 200_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-5", 400_000},
	{"gpt-4o", 128_000},
	{"o1", 200_000}, {"o3", 200_000}, {"o4", 200_000},
}

// WindowOf is model m's context window: the configured one (a Model with
// a ContextWindow method, set from "context_window"), else a known
// model's, else 0; and where it came from.
func WindowOf(m Model) (int, string) {
	if m == nil {
		return 0, ""
	}
	if w, ok := m.(interface{ ContextWindow() int }); ok && w.ContextWindow() > 0 {
		return w.ContextWindow(), "configured"
	}
	name := m.Name()
	if _, after, ok := strings.Cut(name, "/"); ok {
		name = after
	}
	for _, k := range knownWindows {
		if strings.HasPrefix(name, k.prefix) {
			return k.tokens, "known for " + k.prefix + "*"
		}
	}
	return 0, ""
}
