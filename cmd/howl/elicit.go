package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

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
	case "park":
		if g.parked != nil {
			return g.parked.elicit, nil
		}
		return nil, usagef("--elicit park holds questions for howl answer: only howl serve-session takes it")
	}
	return nil, usagef("--elicit %q: use ask, defaults or decline (or park, for howl serve-session)", g.elicit)
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
	// Required first, in the schema's order of them; then the rest by
	// name (mcp-go hands the schema over as a map: its order is gone).
	props := mcp.SchemaProps(req.Schema)
	slices.SortStableFunc(props, func(a, b mcp.SchemaProp) int { return strings.Compare(a.Name, b.Name) })
	props = mcp.RequiredFirst(req.Schema, props)
	content := map[string]any{}
	for _, sp := range props {
		p, k := askProp{sp}, sp.Name
		mark := ""
		if p.Required {
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
			v, set, problem := p.parse(strings.TrimSpace(line))
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
// terminal asks it (read by mcp.SchemaProps, the one schema reader).
type askProp struct{ mcp.SchemaProp }

// options are the choices of a choice property, or of an array's items
// (nil: free input).
func (p askProp) options() []mcp.SchemaOption {
	if len(p.Options) > 0 {
		return p.Options
	}
	return p.ItemOptions
}

// value is an option's value as sent.
func value(o mcp.SchemaOption) any {
	var v any
	_ = json.Unmarshal(o.Value, &v)
	return v
}

// choiceList is the choices as the hint shows them: each value, with its
// title when it has one ("[indoor (Indoors) bar (At the bar)]").
func (p askProp) choiceList() string {
	var parts []string
	for _, o := range p.options() {
		v := fmt.Sprint(value(o))
		if o.Title != "" && o.Title != v {
			v += " (" + o.Title + ")"
		}
		parts = append(parts, v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// isArray: the property takes a list.
func (p askProp) isArray() bool { return strings.HasPrefix(p.Type, "array") }

// hint says what to type.
func (p askProp) hint() string {
	h := p.Type
	if p.Format != "" {
		h += ", " + p.Format
	}
	if p.options() != nil {
		h = "one of " + p.choiceList()
		if p.isArray() {
			h = "any of " + p.choiceList() + ", comma-separated"
		}
	}
	if p.Minimum != nil || p.Maximum != nil {
		h += fmt.Sprintf(", %s to %s", bound(p.Minimum, "-∞"), bound(p.Maximum, "∞"))
	}
	if p.DefaultRaw != nil {
		h += fmt.Sprintf(", default %v", p.defaultValue())
	}
	return h
}

func (p askProp) defaultValue() any {
	var v any
	_ = json.Unmarshal(p.DefaultRaw, &v)
	return v
}

func bound(f *float64, none string) string {
	if f == nil {
		return none
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

// parse reads one typed answer: the value to send, whether to send one
// (an empty answer sends the default, or nothing), and what is wrong. The
// value is checked against the property's schema by mcp.CheckValue, as the
// TUI's dialog checks it.
func (p askProp) parse(s string) (any, bool, string) {
	if s == "" {
		if p.DefaultRaw != nil {
			return p.defaultValue(), true, ""
		}
		if p.Required {
			return nil, false, "required: type a value"
		}
		return nil, false, ""
	}
	pick := func(w string) (any, bool) { // a value, or its title in any case
		for _, o := range p.options() {
			if v := fmt.Sprint(value(o)); v == w || o.Title != v && strings.EqualFold(o.Title, w) {
				return value(o), true
			}
		}
		return nil, false
	}
	var v any = s
	switch {
	case p.isArray() && p.options() != nil:
		var out []any
		for _, w := range strings.Split(s, ",") {
			c, ok := pick(strings.TrimSpace(w))
			if !ok {
				return nil, false, fmt.Sprintf("%q is not one of %s", strings.TrimSpace(w), p.choiceList())
			}
			out = append(out, c)
		}
		v = out
	case p.options() != nil:
		c, ok := pick(s)
		if !ok {
			return nil, false, fmt.Sprintf("%q is not one of %s", s, p.choiceList())
		}
		v = c
	case p.Type == "integer" || p.Type == "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || (p.Type == "integer" && f != float64(int64(f))) {
			return nil, false, fmt.Sprintf("%q is not %s", s, map[bool]string{true: "an integer", false: "a number"}[p.Type == "integer"])
		}
		v = f
		if p.Type == "integer" {
			v = int64(f)
		}
	case p.Type == "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, false, fmt.Sprintf("%q is not true or false", s)
		}
		v = b
	}
	if problem := mcp.CheckValue(p.SchemaProp, v); problem != "" {
		return nil, false, problem
	}
	return v, true, ""
}
