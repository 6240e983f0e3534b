package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// MaxSummary bounds the one-line summary of a tool result.
const MaxSummary = 160

// resultHead is the coverage-first head of any meta-function result.
type resultHead struct {
	Coverage     string `json:"coverage"`
	Note         string `json:"note"`
	HowlCoverage *struct {
		Note string `json:"note"`
	} `json:"howl_coverage"`
	Spilled   bool   `json:"spilled"`
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
	Error     string `json:"error"`
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	IsError   bool   `json:"isError"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// summarize makes one sanitized line for a person from a result the model
// receives, and reports whether a tool said its call failed (isError).
func summarize(name, content string, isErr bool) (string, bool) {
	if isErr {
		return oneLine(content), false
	}
	var h resultHead
	if json.Unmarshal([]byte(content), &h) != nil {
		return oneLine(content), false
	}
	invoke := mcp.MetaPrefixOf(name) == mcp.PrefixInvoke
	switch {
	case h.Coverage != "":
		return oneLine(h.Coverage), false
	case h.Error != "":
		return oneLine("error: " + h.Error), false
	case h.Spilled:
		return oneLine(fmt.Sprintf("binary, %d bytes, saved to %s", h.SizeBytes, h.Path)), false
	case h.HowlCoverage != nil && h.HowlCoverage.Note != "":
		return oneLine(h.HowlCoverage.Note), invoke && h.IsError
	case h.Note != "":
		return oneLine(h.Note), false
	case invoke:
		for _, c := range h.Content {
			if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
				prefix := ""
				if h.IsError {
					prefix = "tool error: "
				}
				return oneLine(prefix + c.Text), h.IsError
			}
		}
		return fmt.Sprintf("%d content items", len(h.Content)), h.IsError
	case h.Kind != "" && h.ID != "":
		return oneLine(h.Kind + " " + h.ID), false
	}
	return fmt.Sprintf("%d bytes", len(content)), false
}

// oneLine is the first line of s, sanitized and clamped to MaxSummary.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	s = render.SanitizeLine(s)
	return render.Ellipsize(s, MaxSummary)
}

// FormatCost is what a finished tool call cost, for a person: its result's
// size and its duration ("202 B, 1.3ms"), as the TUI and howl ask show it.
func FormatCost(bytes int, d time.Duration) string {
	if d < time.Millisecond {
		d = d.Round(time.Microsecond)
	} else {
		d = d.Round(time.Millisecond)
	}
	return render.HumanBytes(int64(bytes)) + ", " + d.String()
}
