package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/howl-mcp/howl/render"
)

// PromptResult is a prompt flattened into one user-role block: every message
// labelled [user] or [assistant] (even a single one), text as the server
// wrote it, embedded text bounded, binary spilled. It is what
// mcp_prompt_<server> returns and what `.prompt` submits as the person's
// chat turn. howl never turns it into an assistant turn, and never executes
// it, whatever it starts with. Coverage fields come first.
type PromptResult struct {
	Note        string `json:"note"`
	Prompt      string `json:"prompt"`
	Description string `json:"description,omitempty"`
	Messages    int    `json:"messages"`
	// Role is always "user": the whole block is one user message.
	Role      string `json:"role"`
	Truncated bool   `json:"truncated"`
	// TotalBytes is the size of the flattened text before any cut.
	TotalBytes int    `json:"total_bytes"`
	Text       string `json:"text"`
}

// MissingArgumentsError lists required prompt arguments that were not given.
type MissingArgumentsError struct {
	Prompt  string
	Missing []PromptArgument
}

// Error names a few of the missing arguments (the server declares them,
// so there may be any number, with descriptions of any length).
func (e *MissingArgumentsError) Error() string {
	var parts []string
	for _, a := range e.Missing[:min(len(e.Missing), render.MaxQuotedValues)] {
		p := fmt.Sprintf("%q", render.Ellipsize(a.Name, render.MaxQuotedValueBytes))
		if a.Description != "" {
			p += " (" + render.Ellipsize(a.Description, render.MaxQuotedValueBytes) + ")"
		}
		parts = append(parts, p)
	}
	return render.BoundMessage(fmt.Sprintf("prompt %q is missing required arguments: %s; pass each as a string",
		render.Ellipsize(e.Prompt, render.MaxQuotedValueBytes), render.ListSome(parts, len(e.Missing))))
}

// GetPrompt gets a prompt from the server and flattens it. Its arguments
// are checked against the declaration howl already holds (the catalog, or
// what an earlier lookup listed). Without one it asks the server first,
// which is what a one-off `howl prompt` does on a server of 100k items: a
// listing is made only when the server refuses, to say why (an unknown
// name with the nearest ones, or the missing required arguments with their
// descriptions). A server that renders a prompt without a required
// argument, rather than refusing, is taken at its word.
func (r *Runtime) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*PromptResult, error) {
	if it, ok := r.cachedItem(server, KindPrompt, name); ok {
		if missing := MissingArguments(it, args); len(missing) > 0 {
			return nil, &MissingArgumentsError{Prompt: name, Missing: missing}
		}
	}
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	raw, err := tracked(r, ctx, server, "prompts/get", "prompts/get", func(ctx context.Context) (json.RawMessage, error) {
		return conn.GetPromptRaw(ctx, name, args)
	})
	if err != nil {
		return nil, r.explainPromptError(ctx, server, name, args, err)
	}
	store, err := r.spillStore()
	if err != nil {
		return nil, err
	}
	return FlattenPrompt(store, server, name, raw)
}

// explainPromptError turns a server's refusal of prompts/get into howl's
// own teaching error where the prompt's declaration explains it: listing
// prompts only, as far as this one (see Runtime.Item). Otherwise, or when
// the lookup fails too, the server's own error stands.
func (r *Runtime) explainPromptError(ctx context.Context, server, name string, args map[string]string, getErr error) error {
	var se *ServerError
	if !errors.As(getErr, &se) || ctx.Err() != nil {
		return getErr
	}
	it, ok, cat, err := r.Item(ctx, server, KindPrompt, name)
	switch {
	case err != nil:
		return getErr
	case !ok:
		return callErrorf("%v", notFound(cat, KindPrompt, name))
	}
	if missing := MissingArguments(it, args); len(missing) > 0 {
		return &MissingArgumentsError{Prompt: name, Missing: missing}
	}
	return getErr
}

// MissingArguments returns the prompt's required arguments absent from args.
func MissingArguments(prompt CatalogItem, args map[string]string) []PromptArgument {
	var out []PromptArgument
	for _, a := range prompt.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			out = append(out, a)
		}
	}
	return out
}

// FlattenPrompt turns a raw GetPromptResult into one labelled user block.
// A malformed message becomes a line saying so; the others still render.
func FlattenPrompt(store *render.SpillStore, server, name string, raw json.RawMessage) (*PromptResult, error) {
	var res struct {
		Description string            `json:"description"`
		Messages    []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("prompt %q: the server's result is not a GetPromptResult: %v", name, err)
	}
	var b strings.Builder
	for i, m := range res.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		flattenMessage(&b, store, server, i, m)
	}
	text := b.String()
	out := &PromptResult{Prompt: name, Description: render.Sanitize(res.Description), Messages: len(res.Messages), Role: "user", TotalBytes: len(text)}
	noun := "messages"
	if len(res.Messages) == 1 {
		noun = "message"
	}
	out.Note = fmt.Sprintf("prompt %q: %d %s flattened into one user block with [user]/[assistant] labels", name, len(res.Messages), noun)
	if len(text) > render.MaxSliceBytes {
		cut := render.RuneBoundary(text, render.MaxSliceBytes)
		text = text[:cut]
		out.Truncated = true
		out.Note += fmt.Sprintf("; showing bytes 0-%d of %d (MaxSliceBytes is %d): pass narrower arguments for a shorter prompt", cut, out.TotalBytes, render.MaxSliceBytes)
	}
	out.Text = text
	return out, nil
}

// promptMessage is one message of a GetPromptResult, loosely parsed.
type promptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type promptContent struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	Data     string          `json:"data"`
	MIMEType string          `json:"mimeType"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	Resource json.RawMessage `json:"resource"`
}

func flattenMessage(b *strings.Builder, store *render.SpillStore, server string, i int, raw json.RawMessage) {
	var m promptMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		fmt.Fprintf(b, "[user]\n(message %d could not be read: %v)", i+1, err)
		return
	}
	role := "user"
	if m.Role == "assistant" {
		role = "assistant"
	} else if m.Role != "user" {
		role = "user"
		fmt.Fprintf(b, "[%s]\n(message %d had role %q; shown as user)\n", role, i+1, render.Ellipsize(m.Role, 32))
		b.WriteString(renderContent(store, server, i, m.Content))
		return
	}
	fmt.Fprintf(b, "[%s]\n", role)
	// Content is one block, or (newer servers) an array of blocks.
	trimmed := strings.TrimSpace(string(m.Content))
	if strings.HasPrefix(trimmed, "[") {
		var blocks []json.RawMessage
		if err := json.Unmarshal(m.Content, &blocks); err == nil {
			for j, c := range blocks {
				if j > 0 {
					b.WriteString("\n")
				}
				b.WriteString(renderContent(store, server, i, c))
			}
			return
		}
	}
	b.WriteString(renderContent(store, server, i, m.Content))
}

// renderContent renders one content block as text: text as is, embedded
// text resources bounded, binary spilled with a line naming the path, links
// as a line with the URI.
func renderContent(store *render.SpillStore, server string, i int, raw json.RawMessage) string {
	var c promptContent
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Sprintf("(content of message %d could not be read: %v)", i+1, err)
	}
	switch c.Type {
	case "text":
		if c.Text == nil {
			return fmt.Sprintf("(text content of message %d has no text)", i+1)
		}
		return *c.Text
	case "image", "audio":
		item, err := render.RenderBlob(store, server, "", c.MIMEType, c.Data, render.PageOptions{})
		if err != nil {
			return fmt.Sprintf("(%s content of message %d could not be saved: %v)", c.Type, i+1, err)
		}
		return blobLine(c.Type, item)
	case "resource":
		rr, err := render.ReadContents(store, server, []json.RawMessage{c.Resource}, render.PageOptions{})
		if err != nil {
			return fmt.Sprintf("(embedded resource of message %d could not be rendered: %v)", i+1, err)
		}
		for _, it := range rr.Items {
			switch x := it.(type) {
			case *render.TextResult:
				head := fmt.Sprintf("[embedded resource %s (%s)", x.URI, x.MimeType)
				if x.Truncated {
					head += "; " + x.Note
				}
				return head + "]\n" + x.Text
			case *render.SpillResult:
				return blobLine("resource", x)
			case *render.ItemError:
				return fmt.Sprintf("(embedded resource of message %d: %s)", i+1, x.Message)
			}
		}
		return fmt.Sprintf("(embedded resource of message %d is empty)", i+1)
	case "resource_link":
		line := "[resource link: " + render.SanitizeLine(render.Ellipsize(c.URI, render.MaxMetaString))
		if c.Name != "" {
			line += " (" + render.SanitizeLine(render.Ellipsize(c.Name, 256)) + ")"
		}
		return line + "]"
	}
	return fmt.Sprintf("(content of type %q in message %d is not supported and was left out)", render.Ellipsize(c.Type, 32), i+1)
}

func blobLine(kind string, item render.Item) string {
	switch x := item.(type) {
	case *render.SpillResult:
		return fmt.Sprintf("[%s saved to %s (%s, %d bytes, sha256 %s)]", kind, x.Path, x.MimeType, x.SizeBytes, x.SHA256)
	case *render.TextResult:
		return x.Text
	}
	return fmt.Sprintf("[%s content]", kind)
}
