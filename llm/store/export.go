package store

import (
	"context"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/render"
)

// Export writes a session as Markdown: the person's and the model's turns
// as sections, each tool call as a collapsible <details> block with its
// arguments and the bounded result the model saw.
func (s *Store) Export(ctx context.Context, id string, w io.Writer) error {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	conv, err := s.Load(ctx, id)
	if err != nil {
		return err
	}
	return ExportMarkdown(w, sess, conv)
}

// ExportMarkdown renders a conversation (see Store.Export).
func ExportMarkdown(w io.Writer, sess Session, conv *llm.Conversation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", sess.Title)
	fmt.Fprintf(&b, "- session: `%s`\n- created: %s\n- updated: %s\n", sess.ID, sess.Created.Format(time.RFC3339), sess.Updated.Format(time.RFC3339))
	if sess.Model != "" {
		fmt.Fprintf(&b, "- model: %s\n", sess.Model)
	}
	if len(sess.Servers) > 0 {
		fmt.Fprintf(&b, "- servers: %s\n", strings.Join(sess.Servers, ", "))
	}
	results := map[string]llm.ToolResult{}
	for _, m := range conv.Messages {
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
	}
	for _, m := range conv.Messages {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(&b, "\n## You\n\n%s\n", m.Text)
		case llm.RoleAssistant:
			fmt.Fprintf(&b, "\n## %s\n", orDefault(m.Model, "Assistant"))
			if m.Text != "" {
				fmt.Fprintf(&b, "\n%s\n", m.Text)
			}
			for _, c := range m.ToolCalls {
				r, ok := results[c.ID]
				status := "no result"
				if ok {
					status = fmt.Sprintf("%s, %s", map[bool]string{false: "ok", true: "error"}[r.IsError], r.Duration.Round(time.Millisecond))
					if r.Decision != "" {
						status += ", " + r.Decision
					}
				}
				// The name and the decision are the model's and the person's
				// words inside HTML: escaped, a name like "</summary><script>"
				// stays text in a viewer that renders the export.
				fmt.Fprintf(&b, "\n<details>\n<summary>tool call <code>%s</code> (%s)</summary>\n\n", html.EscapeString(c.Name), html.EscapeString(status))
				fmt.Fprintf(&b, "Arguments:\n\n%s\n", fence(c.Arguments, "json"))
				if ok {
					fmt.Fprintf(&b, "\nResult:\n\n%s\n", fence(r.Content, "json"))
				}
				b.WriteString("\n</details>\n")
			}
		}
	}
	// Whatever a server or a model put in the text, the export (printed,
	// or opened later in a pager) carries no escape sequence.
	_, err := io.WriteString(w, render.Sanitize(b.String()))
	return err
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text, lang string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
