package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/howl-mcp/howl/mcp"
)

// elicitor picks how headless verbs answer a server's questions.
func elicitor(g *globalFlags) (mcp.Elicitor, error) {
	mode := g.elicit
	if mode == "" {
		mode = "decline"
		if g.term != nil && g.term.interactive {
			mode = "ask"
		}
	}
	switch mode {
	case "defaults":
		return mcp.ElicitWithDefaults, nil
	case "decline":
		return mcp.ElicitDeclineAll, nil
	case "ask":
		return g.term.elicit, nil
	}
	return nil, usagef("--elicit %q: use ask, defaults or decline", g.elicit)
}

// terminal asks the person a server's questions on the command line: one
// at a time, reading answers from one buffered stdin so no typed-ahead
// line is lost between questions.
type terminal struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
	// interactive: stdin is a terminal (asking is the default then).
	interactive bool
	// open opens a URL the person agreed to visit (mcp.OpenBrowser).
	open func(ctx context.Context, url string) error

	// The lines read so far: one goroutine reads stdin (started by the
	// first question, ending at EOF), so a question whose server gave up
	// stops waiting without losing the line the next one gets.
	readOnce sync.Once
	lmu      sync.Mutex
	lines    []string
	readErr  error
	more     chan struct{}
}

func newTerminal(stdin io.Reader, stderr io.Writer) *terminal {
	return &terminal{in: bufio.NewReader(stdin), out: stderr, interactive: isTerminal(stdin), open: mcp.OpenBrowser, more: make(chan struct{}, 1)}
}

// readLoop reads stdin line by line until it ends.
func (t *terminal) readLoop() {
	for {
		line, err := t.in.ReadString('\n')
		t.lmu.Lock()
		if line != "" {
			t.lines = append(t.lines, line)
		}
		if err != nil {
			t.readErr = err
		}
		t.lmu.Unlock()
		select {
		case t.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// readLine is the next line the person typed; an error when stdin ended
// or ctx did (the server stopped waiting).
func (t *terminal) readLine(ctx context.Context) (string, error) {
	t.readOnce.Do(func() { go t.readLoop() })
	for {
		t.lmu.Lock()
		if len(t.lines) > 0 {
			line := t.lines[0]
			t.lines = t.lines[1:]
			t.lmu.Unlock()
			return line, nil
		}
		err := t.readErr
		t.lmu.Unlock()
		if err != nil {
			return "", err
		}
		select {
		case <-t.more:
		case <-ctx.Done():
			fmt.Fprintln(t.out, "\n(the server stopped waiting for this answer)")
			return "", ctx.Err()
		}
	}
}

// confirm asks a yes/no question; def is the answer to an empty line. An
// unreadable stdin (closed, at EOF) or a question the server withdrew
// answers no.
func (t *terminal) confirm(ctx context.Context, question string, def bool) bool {
	fmt.Fprint(t.out, question)
	line, err := t.readLine(ctx)
	if err != nil && line == "" {
		fmt.Fprintln(t.out)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return def
	case "y", "yes":
		return true
	}
	return false
}

// elicit asks the person on the terminal, field by field; a URL request
// shows the URL and opens it only when the person says so.
func (t *terminal) elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\nserver %s asks: %s\n", clean(server), cleanText(req.Message))
	if req.Mode == "url" {
		fmt.Fprintf(t.out, "it wants you to visit: %s\n", clean(req.URL))
		if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			fmt.Fprintln(t.out, "howl opens only http and https URLs; declining.")
			return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
		}
		if !t.confirm(ctx, "open it in the browser ($BROWSER)? [y/N] ", false) {
			return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
		}
		if err := t.open(ctx, req.URL); err != nil {
			fmt.Fprintf(t.out, "howl: %v\n", err)
			return mcp.ElicitResponse{Action: mcp.ElicitCancel}, nil
		}
		return mcp.ElicitResponse{Action: mcp.ElicitAccept}, nil
	}
	var schema struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
			Default     any    `json:"default"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(req.Schema, &schema)
	names := make([]string, 0, len(schema.Properties))
	for k := range schema.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	content := map[string]any{}
	for _, k := range names {
		p := schema.Properties[k]
		hint := p.Type
		if len(p.Enum) > 0 {
			hint = fmt.Sprintf("one of %v", p.Enum)
		}
		if p.Default != nil {
			hint += fmt.Sprintf(", default %v", p.Default)
		}
		fmt.Fprintf(t.out, "  %s (%s) %s: ", clean(k), clean(hint), clean(p.Description))
		line, err := t.readLine(ctx)
		if err != nil && line == "" {
			return mcp.ElicitResponse{Action: mcp.ElicitCancel}, nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if p.Default != nil {
				content[k] = p.Default
			}
			continue
		}
		content[k] = typed(p.Type, line)
	}
	if !t.confirm(ctx, "send these answers? [Y/n] ", true) {
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	return mcp.ElicitResponse{Action: mcp.ElicitAccept, Content: content}, ctx.Err()
}

func typed(kind, s string) any {
	switch kind {
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return s
}
