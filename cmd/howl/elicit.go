package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

// elicitor picks how headless verbs answer a server's questions.
func elicitor(g *globalFlags) (mcp.Elicitor, error) {
	switch g.questionMode(g.elicit) {
	case "defaults":
		return mcp.ElicitWithDefaults, nil
	case "decline":
		return mcp.ElicitDeclineAll, nil
	case "ask":
		return g.term.elicit, nil
	}
	return nil, usagef("--elicit %q: use ask, defaults or decline", g.elicit)
}

// questionMode is how a --elicit or --sample flag answers: as given, else
// ask when stdin is a terminal, else decline.
func (g *globalFlags) questionMode(flag string) string {
	switch {
	case flag != "":
		return flag
	case g.term != nil && g.term.interactive:
		return "ask"
	}
	return "decline"
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
		if err := mcp.CheckBrowserURL(req.URL); err != nil {
			fmt.Fprintf(t.out, "%s; declining.\n", clean(err.Error()))
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
		Properties map[string]askProp `json:"properties"`
		Required   []string           `json:"required"`
	}
	_ = json.Unmarshal(req.Schema, &schema)
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	// Required first, in the schema's order of them; then the rest by name.
	names := make([]string, 0, len(schema.Properties))
	for _, r := range schema.Required {
		if _, ok := schema.Properties[r]; ok && !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	var rest []string
	for k := range schema.Properties {
		if !required[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)
	content := map[string]any{}
	for _, k := range names {
		p := schema.Properties[k]
		mark := ""
		if required[k] {
			mark = " *"
		}
		about := cmp.Or(clean(p.Description), clean(p.Title)) // a title when nothing more is said
		if about != "" {
			about = " " + about
		}
		for attempt := 0; ; attempt++ {
			fmt.Fprintf(t.out, "  %s%s (%s)%s: ", clean(k), mark, clean(p.hint()), about)
			line, err := t.readLine(ctx)
			if err != nil && line == "" {
				return mcp.ElicitResponse{Action: mcp.ElicitCancel}, nil
			}
			v, set, problem := p.parse(strings.TrimSpace(line), required[k])
			if problem == "" {
				if set {
					content[k] = v
				}
				break
			}
			fmt.Fprintf(t.out, "  ✗ %s\n", clean(problem))
			if attempt == 2 {
				fmt.Fprintln(t.out, "  three answers did not fit: cancelling the question")
				return mcp.ElicitResponse{Action: mcp.ElicitCancel}, nil
			}
		}
	}
	if !t.confirm(ctx, "send these answers? [Y/n] ", true) {
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	return mcp.ElicitResponse{Action: mcp.ElicitAccept, Content: content}, ctx.Err()
}

// askProp is one property of an elicitation's requested schema, as the
// terminal asks it.
type askProp struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Default     any      `json:"default"`
	Enum        []any    `json:"enum"`
	Format      string   `json:"format"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Items *struct {
		Enum  []any `json:"enum"`
		AnyOf []struct {
			Const any    `json:"const"`
			Title string `json:"title"`
		} `json:"anyOf"`
	} `json:"items"`
}

// choices are the values a choice property takes (nil: free input).
func (p askProp) choices() []any {
	switch {
	case len(p.Enum) > 0:
		return p.Enum
	case len(p.OneOf) > 0:
		out := make([]any, len(p.OneOf))
		for i, o := range p.OneOf {
			out[i] = o.Const
		}
		return out
	case p.Items != nil && len(p.Items.Enum) > 0:
		return p.Items.Enum
	case p.Items != nil && len(p.Items.AnyOf) > 0:
		out := make([]any, len(p.Items.AnyOf))
		for i, o := range p.Items.AnyOf {
			out[i] = o.Const
		}
		return out
	}
	return nil
}

// titles are the shown names of a titled choice's values (oneOf or
// items.anyOf of {const, title}), by value as text; nil for plain enums.
func (p askProp) titles() map[string]string {
	type titled = struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	}
	var list []titled
	switch {
	case len(p.OneOf) > 0:
		list = p.OneOf
	case p.Items != nil && len(p.Items.AnyOf) > 0:
		list = p.Items.AnyOf
	}
	if list == nil {
		return nil
	}
	out := map[string]string{}
	for _, o := range list {
		if v := fmt.Sprint(o.Const); o.Title != "" && o.Title != v {
			out[v] = o.Title
		}
	}
	return out
}

// choiceList is the choices as the hint shows them: each value, with its
// title when it has one ("[indoor (Indoors) bar (At the bar)]").
func (p askProp) choiceList() string {
	titles := p.titles()
	var parts []string
	for _, c := range p.choices() {
		v := fmt.Sprint(c)
		if t, ok := titles[v]; ok {
			v += " (" + t + ")"
		}
		parts = append(parts, v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// hint says what to type.
func (p askProp) hint() string {
	h := p.Type
	if p.Format != "" {
		h += ", " + p.Format
	}
	if c := p.choices(); c != nil {
		h = "one of " + p.choiceList()
		if p.Type == "array" {
			h = "any of " + p.choiceList() + ", comma-separated"
		}
	}
	if p.Minimum != nil || p.Maximum != nil {
		h += fmt.Sprintf(", %s to %s", bound(p.Minimum, "-∞"), bound(p.Maximum, "∞"))
	}
	if p.Default != nil {
		h += fmt.Sprintf(", default %v", p.Default)
	}
	return h
}

func bound(f *float64, none string) string {
	if f == nil {
		return none
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

// parse checks one typed answer: the value to send, whether to send one
// (an empty answer sends the default, or nothing), and what is wrong.
func (p askProp) parse(s string, required bool) (any, bool, string) {
	if s == "" {
		if p.Default != nil {
			return p.Default, true, ""
		}
		if required {
			return nil, false, "required: type a value"
		}
		return nil, false, ""
	}
	choices := p.choices()
	titles := p.titles()
	pick := func(w string) (any, bool) { // a value, or its title in any case
		for _, c := range choices {
			if v := fmt.Sprint(c); v == w || titles[v] != "" && strings.EqualFold(titles[v], w) {
				return c, true
			}
		}
		return nil, false
	}
	switch {
	case p.Type == "array" && choices != nil:
		var out []any
		for _, w := range strings.Split(s, ",") {
			c, ok := pick(strings.TrimSpace(w))
			if !ok {
				return nil, false, fmt.Sprintf("%q is not one of %s", strings.TrimSpace(w), p.choiceList())
			}
			out = append(out, c)
		}
		return out, true, ""
	case choices != nil:
		c, ok := pick(s)
		if !ok {
			return nil, false, fmt.Sprintf("%q is not one of %s", s, p.choiceList())
		}
		return c, true, ""
	case p.Type == "integer" || p.Type == "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || (p.Type == "integer" && f != float64(int64(f))) {
			return nil, false, fmt.Sprintf("%q is not %s", s, map[bool]string{true: "an integer", false: "a number"}[p.Type == "integer"])
		}
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return nil, false, fmt.Sprintf("%s is outside %s to %s", s, bound(p.Minimum, "-∞"), bound(p.Maximum, "∞"))
		}
		if p.Type == "integer" {
			return int64(f), true, ""
		}
		return f, true, ""
	case p.Type == "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not true or false", s)
		}
		return b, true, ""
	case p.Format == "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return nil, false, fmt.Sprintf("%q is not an email address: write it like name@example.com", s)
		}
	case p.Format == "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return nil, false, fmt.Sprintf("%q is not a URI: write it like https://example.com/page", s)
		}
	case p.Format == "date":
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return nil, false, fmt.Sprintf("%q is not a date: write it like 2026-01-31", s)
		}
	case p.Format == "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, false, fmt.Sprintf("%q is not a date-time: write it like 2026-01-31T14:30:00Z", s)
		}
	}
	return s, true, ""
}
