package chat

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// maxPopup is how many completions the popup shows at once.
const maxPopup = 8

// completion is one suggestion: insert replaces the word being typed.
type Completion struct {
	insert string
	label  string
	desc   string
	// required marks a required argument key.
	required bool
	// template, for an @-mention of a resource template: accepting it
	// opens the template's form instead of inserting.
	template *mcp.CatalogItem
}

// compContext is where the cursor is in a command line: the finished
// words before it and the word being typed (from byte start).
type CompContext struct {
	words   []string
	partial string
	start   int
}

// parseCompContext splits line for completion. A line with an unterminated
// quote before the word being typed has no context (ok false).
func ParseCompContext(line string) (CompContext, bool) {
	start, quote := 0, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '"' || c == '\'':
			quote = c
		case c == ' ' || c == '\t' || c == '\n':
			start = i + 1
		}
	}
	if start > len(line) {
		start = len(line)
	}
	words, err := mcp.SplitArgs(line[:start])
	if err != nil {
		return CompContext{}, false
	}
	return CompContext{words: words, partial: line[start:], start: start}, true
}

// serverInfo is a server's name, state and capabilities, as the catalog
// last saw them.
type ServerInfo struct {
	Name                      string
	Ready                     bool
	Tools, Resources, Prompts bool
	Logging                   bool
}

// completionsMsg is the answer to a completion request.
type Completions struct {
	line  string
	start int
	items []Completion
	// tooLong counts the server's values left out for their length.
	tooLong int
}

// staticCompletions answers the stages that need no request: command
// names, server names, .list kinds, .mcp actions and model providers. ok
// false means the stage needs the server (completeLive).
func StaticCompletions(cc CompContext, servers []ServerInfo) ([]Completion, bool) {
	if len(cc.words) == 0 {
		var out []Completion
		for _, c := range Commands() {
			out = append(out, Completion{insert: c.Name + " ", label: c.Name, desc: c.Desc})
		}
		return out, true
	}
	serversWith := func(ok func(ServerInfo) bool) []Completion {
		var out []Completion
		for _, s := range servers {
			if s.Ready && ok(s) {
				out = append(out, Completion{insert: mcp.QuoteArg(s.Name) + " ", label: s.Name})
			}
		}
		return out
	}
	n := len(cc.words)
	switch cc.words[0] {
	case ".prompt":
		if n == 1 {
			// Stage 1: local state only, no request.
			return serversWith(func(s ServerInfo) bool { return s.Prompts }), true
		}
		return nil, n >= 2 && !hasServer(servers, cc.words[1], func(s ServerInfo) bool { return s.Prompts })
	case ".read":
		if n == 1 {
			return serversWith(func(s ServerInfo) bool { return s.Resources }), true
		}
		return nil, !hasServer(servers, cc.words[1], func(s ServerInfo) bool { return s.Resources })
	case ".call":
		if n == 1 {
			return serversWith(func(s ServerInfo) bool { return s.Tools }), true
		}
		return nil, !hasServer(servers, cc.words[1], func(s ServerInfo) bool { return s.Tools })
	case ".list":
		if n == 1 {
			return words(ListKinds, ""), true
		}
	case ".mcp":
		switch n {
		case 1:
			return words(MCPActions, ""), true
		case 2:
			var out []Completion
			for _, s := range servers {
				out = append(out, Completion{insert: mcp.QuoteArg(s.Name) + " ", label: s.Name})
			}
			return out, true
		}
	case ".loglevel":
		switch n {
		case 1:
			return serversWith(func(s ServerInfo) bool { return s.Logging }), true
		case 2:
			return words(mcp.LogLevels, ""), true
		}
	case ".roots":
		if n == 1 {
			return words([]string{"add", "remove"}, "a directory offered to servers that ask for roots"), true
		}
	case ".tasks":
		if n == 1 {
			return words([]string{"cancel"}, "cancel a task by its id (.tasks lists them)"), true
		}
	case ".model":
		if n == 1 {
			var out []Completion
			for _, p := range llm.ProviderNames() {
				out = append(out, Completion{insert: p + "/", label: p + "/"})
			}
			return out, true
		}
	}
	return nil, true
}

func words(list []string, desc string) []Completion {
	out := make([]Completion, len(list))
	for i, w := range list {
		out[i] = Completion{insert: w + " ", label: w, desc: desc}
	}
	return out
}

// hasServer reports whether name is a ready server passing ok.
func hasServer(servers []ServerInfo, name string, ok func(ServerInfo) bool) bool {
	for _, s := range servers {
		if s.Name == name {
			return s.Ready && ok(s)
		}
	}
	return false
}

// completeLiveCmd answers the stages that ask the server: a server's
// prompts (listed live), a prompt's argument keys, their values (the
// server's completion/complete), resource URIs, tool names and argument
// keys. Every request is bounded by timeout; an error, a timeout or an
// unknown name is an empty list, silently. The server was checked to be
// ready: completion never starts one.
func CompleteLiveCmd(ctx context.Context, rt Runtime, id common.RequestID, line string, cc CompContext, timeout time.Duration) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		msg := Completions{line: line, start: cc.start}
		msg.items, msg.tooLong = liveCompletions(ctx, rt, cc)
		return msg
	})
}

// liveCompletions is completeLiveCmd's work, without the message: the
// items, and how many of the server's values were left out for their
// length.
func liveCompletions(ctx context.Context, rt Runtime, cc CompContext) ([]Completion, int) {
	server := cc.words[1]
	refresh := cc.words[0] == ".prompt" // prompts are listed live on each tab
	cat, err := rt.Catalog(ctx, server, refresh)
	if err != nil || ctx.Err() != nil {
		return nil, 0
	}
	n := len(cc.words)
	switch cc.words[0] {
	case ".prompt":
		if n == 2 {
			return itemCompletions(cat, mcp.KindPrompt), 0
		}
		it, ok := cat.Lookup(mcp.KindPrompt, cc.words[2])
		if !ok {
			return nil, 0
		}
		keys := make([]Completion, len(it.Arguments))
		for i, a := range it.Arguments {
			keys[i] = keyCompletion(a.Name, common.FirstLine(a.Description), a.Required)
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, true)
	case ".read":
		if n == 2 {
			return itemCompletions(cat, mcp.KindResource, mcp.KindTemplate), 0
		}
		// A template's variables, then their values from the server.
		it, ok := cat.Lookup(mcp.KindTemplate, cc.words[2])
		if !ok {
			return nil, 0
		}
		keys := make([]Completion, len(it.Variables))
		for i, v := range it.Variables {
			keys[i] = keyCompletion(v, "{"+v+"} in "+it.URI, true)
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, true)
	case ".call":
		if n == 2 {
			return itemCompletions(cat, mcp.KindTool), 0
		}
		it, ok := cat.Lookup(mcp.KindTool, cc.words[2])
		if !ok {
			return nil, 0
		}
		var keys []Completion
		for _, p := range mcp.SchemaProps(it.Schema) {
			keys = append(keys, keyCompletion(p.Name, common.FirstLine(p.Description), p.Required))
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, false)
	}
	return nil, 0
}

// itemCompletions lists a catalog's items of the given kinds: resources
// and templates by URI, the others by name.
func itemCompletions(cat *mcp.Catalog, kinds ...mcp.Kind) []Completion {
	var out []Completion
	for _, it := range cat.Items {
		if !slices.Contains(kinds, it.Kind) {
			continue
		}
		if it.Kind == mcp.KindResource || it.Kind == mcp.KindTemplate {
			out = append(out, Completion{insert: mcp.QuoteArg(it.URI) + " ", label: render.SanitizeLine(it.URI), desc: render.SanitizeLine(it.Name)})
		} else {
			out = append(out, Completion{insert: mcp.QuoteArg(it.Name) + " ", label: render.SanitizeLine(it.Name), desc: render.SanitizeLine(common.FirstLine(it.Description))})
		}
	}
	return out
}

// keyCompletion offers "name=".
func keyCompletion(name, desc string, required bool) Completion {
	return Completion{insert: name + "=", label: render.SanitizeLine(name) + "=", desc: render.SanitizeLine(desc), required: required}
}

// keyValueCompletions is the key=value stage: the server's values for the
// key being typed (when the server completes them, with how many it left
// out for their length), else the keys not typed yet.
func keyValueCompletions(ctx context.Context, rt Runtime, it mcp.CatalogItem, cc CompContext, keys []Completion, serverValues bool) ([]Completion, int) {
	typed, _ := mcp.ParseKeyValues(cc.words[3:])
	if key, value, ok := strings.Cut(cc.partial, "="); ok && serverValues {
		return valueCompletions(ctx, rt, it, key, value, typed)
	}
	var out []Completion
	for _, k := range keys {
		if _, done := typed[strings.TrimSuffix(k.insert, "=")]; !done {
			out = append(out, k)
		}
	}
	return out, 0
}

// valueCompletions asks the server to complete one prompt argument's or
// template variable's value, the other typed ones as context: the values,
// and how many it left out for their length (mcp.Completion.TooLong).
func valueCompletions(ctx context.Context, rt Runtime, it mcp.CatalogItem, key, value string, typed map[string]string) ([]Completion, int) {
	kind, ref := CompletionRef(it)
	c, err := rt.Complete(ctx, it.Server, kind, ref, key, value, typed)
	if err != nil || ctx.Err() != nil {
		return nil, 0
	}
	var out []Completion
	for _, v := range c.Values {
		out = append(out, Completion{insert: key + "=" + mcp.QuoteArg(v) + " ", label: render.SanitizeLine(v)})
	}
	return out, c.TooLong
}

// filterCompletions keeps the items whose label starts with the partial
// word (case-insensitively), sorted required first, then as given.
func filterCompletions(items []Completion, partial string) []Completion {
	p := strings.ToLower(strings.Trim(partial, `"'`))
	var out []Completion
	for _, c := range items {
		if strings.HasPrefix(strings.ToLower(c.label), p) || strings.HasPrefix(strings.ToLower(c.insert), p) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].required && !out[j].required })
	return out
}

// completer is the command line's completion popup.
type Completer struct {
	com *common.Common
	// pending is the request in flight; answers with another id are stale.
	pending common.RequestID
	open    bool
	line    string
	start   int
	all     []Completion
	items   []Completion
	sel     int
	// title says what the popup lists ("prompts of demo").
	title string
	// filter narrows the items to the typed word (filterCompletions when nil).
	filter func(items []Completion, partial string) []Completion
	// mentions, for the mention popup, narrows them key by key.
	mentions *mentionIndex
	// stopRanking cancels the mention ranking in flight, if any.
	stopRanking context.CancelFunc
	// tooLong counts the server's values left out for their length: the
	// popup says so under the rest.
	tooLong int
}

// stopRank cancels the mention ranking in flight: it stops within a
// chunk of items and answers nothing.
func (c *Completer) stopRank() {
	if c.stopRanking != nil {
		c.stopRanking()
		c.stopRanking = nil
	}
}

// Close hides the popup and drops any answer in flight (a mention
// ranking stops).
func (c *Completer) Close() {
	c.stopRank()
	c.open = false
	c.pending = 0
	c.items, c.all = nil, nil
	c.filter, c.mentions = nil, nil
	c.tooLong = 0
}

// Show opens the popup on items for line (an empty list shows nothing).
func (c *Completer) Show(line string, start int, items []Completion) {
	c.line, c.start, c.all = line, start, items
	if cc, ok := ParseCompContext(line); ok {
		c.title = stageTitle(cc)
	}
	c.items = c.narrow(items, line[start:])
	c.sel = 0
	c.open = len(c.items) > 0
}

// Refilter narrows the open popup to the word typed since it opened; a
// change before the word closes it. A mention popup of AsyncMentions
// items or more is ranked off the update path (the command, answered
// with MentionsNarrowed), showing what it showed until then: at 100,000
// resources the first key after @ searched them all for 43-55 ms before
// its echo. Each key cancels the ranking of the key before, so on two
// cores the superseded ones do not compete with the update path.
func (c *Completer) Refilter(line string) tea.Cmd {
	if !c.open || len(line) < c.start || line[:c.start] != c.line[:c.start] || strings.ContainsAny(line[c.start:], " \t\n") {
		c.Close()
		return nil
	}
	c.line = line
	c.stopRank()
	if c.mentions != nil && len(c.all) >= AsyncMentions {
		ctx, cancel := context.WithCancel(c.com.Ctx)
		c.stopRanking = cancel
		c.pending = c.com.NewID()
		return rankMentionsCmd(ctx, c.pending, *c.mentions, c.all, line, line[c.start:])
	}
	c.items = c.narrow(c.all, line[c.start:])
	c.sel = 0
	c.open = len(c.items) > 0
	return nil
}

// rankMentionsCmd ranks all for partial, the word of line, off the
// update path, narrowing from x; a ranking cancelled by ctx answers
// nothing.
func rankMentionsCmd(ctx context.Context, id common.RequestID, x mentionIndex, all []Completion, line, partial string) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		items, ok := x.narrow(ctx, all, partial)
		if !ok {
			return nil
		}
		return MentionsNarrowed{line: line, items: items, index: x}
	})
}

// AsyncMentions is how many items make a mention popup rank each key off
// the update path (fewer take well under a millisecond).
const AsyncMentions = 5000

// MentionsNarrowed is a mention popup's items ranked for line, off the
// update path, with the index that ranked them (for the next key).
type MentionsNarrowed struct {
	line  string
	items []Completion
	index mentionIndex
}

// HandleNarrowed shows a ranking unless it is stale (another key since,
// or the popup closed).
func (c *Completer) HandleNarrowed(id common.RequestID, msg MentionsNarrowed, line string) {
	if id != c.pending || msg.line != line || c.mentions == nil {
		return
	}
	c.pending = 0
	c.stopRank() // it is done: this releases its context
	*c.mentions = msg.index
	c.items = msg.items
	c.sel = 0
	c.open = len(c.items) > 0
}

// narrow filters items to the word typed.
func (c *Completer) narrow(items []Completion, partial string) []Completion {
	if c.mentions != nil {
		out, _ := c.mentions.narrow(context.Background(), items, partial)
		return out
	}
	if c.filter != nil {
		return c.filter(items, partial)
	}
	return filterCompletions(items, partial)
}

// settle ranks a mention popup's word now when its ranking is still off
// the update path: the items shown are an older word's, and the person
// is choosing one (the ranking in flight is cancelled).
func (c *Completer) settle() {
	if c.pending == 0 || c.mentions == nil || len(c.all) < AsyncMentions {
		return
	}
	c.stopRank()
	c.pending = 0
	c.items = c.narrow(c.all, c.line[c.start:])
	c.sel = 0
	c.open = len(c.items) > 0
}

// Selected is the chosen item, if the popup is open. A mention popup
// whose ranking is in flight is ranked first, so the item is the typed
// word's: call it for a key that chooses, not on every key.
func (c *Completer) Selected() (Completion, bool) {
	c.settle()
	if !c.open || c.sel >= len(c.items) {
		return Completion{}, false
	}
	return c.items[c.sel], true
}

// Move changes the chosen item.
func (c *Completer) Move(d int) {
	if n := len(c.items); n > 0 {
		c.sel = (c.sel + d + n) % n
	}
}

// Accept is line with the chosen item in place of the word being typed.
func (c *Completer) Accept() string {
	if _, ok := c.Selected(); !ok {
		line := c.line
		c.Close()
		return line
	}
	it := c.items[c.sel]
	line := c.line[:c.start] + it.insert
	c.Close()
	return line
}

// stageTitle says what a completion lists, for the popup's first line.
func stageTitle(cc CompContext) string {
	n := len(cc.words)
	switch {
	case n == 0:
		return "commands"
	case cc.words[0] == ".prompt" && n == 1:
		return "servers with prompts"
	case cc.words[0] == ".prompt" && n == 2:
		return "prompts of " + render.SanitizeLine(cc.words[1])
	case cc.words[0] == ".prompt" && strings.Contains(cc.partial, "="):
		k, _, _ := strings.Cut(cc.partial, "=")
		return "values of " + render.SanitizeLine(k) + " (from the server)"
	case cc.words[0] == ".prompt":
		return "arguments of " + render.SanitizeLine(cc.words[2]) + " (* required)"
	case cc.words[0] == ".call" && n == 2:
		return "tools of " + render.SanitizeLine(cc.words[1])
	case cc.words[0] == ".call" && n > 2:
		return "arguments of " + render.SanitizeLine(cc.words[2]) + " (* required)"
	case cc.words[0] == ".read" && n == 2:
		return "resources and templates of " + render.SanitizeLine(cc.words[1])
	case cc.words[0] == ".read" && strings.Contains(cc.partial, "="):
		k, _, _ := strings.Cut(cc.partial, "=")
		return "values of {" + render.SanitizeLine(k) + "} (from the server)"
	case cc.words[0] == ".read" && n > 2:
		return "variables of " + render.SanitizeLine(cc.words[2])
	case cc.words[0] == ".loglevel" && n == 1:
		return "servers with logging"
	case cc.words[0] == ".loglevel" && n == 2:
		return "log levels (that level and above are sent)"
	case n == 1 && (cc.words[0] == ".read" || cc.words[0] == ".call"):
		return "servers"
	}
	return "completions"
}

// Render draws the popup, at most maxPopup rows, w wide.
func (c *Completer) Render(w int) []string {
	st := c.com.Styles
	first := 0
	if c.sel >= maxPopup {
		first = c.sel - maxPopup + 1
	}
	end := min(first+maxPopup, len(c.items))
	labelW := 0
	for _, it := range c.items[first:end] {
		labelW = max(labelW, common.WidthOf(it.label)+2)
	}
	labelW = min(labelW, w/2)
	head := "─ " + c.title + " "
	out := []string{st.Subtle.Render(head + strings.Repeat("─", max(w-common.WidthOf(head), 0)))}
	for i := first; i < end; i++ {
		it := c.items[i]
		mark := " "
		if i == c.sel {
			mark = "›"
		}
		if it.required {
			mark += "*"
		} else {
			mark += " "
		}
		desc := it.desc
		if it.required {
			desc = "(required) " + desc
		}
		if i == c.sel {
			out = append(out, st.List.Selected.Render(common.Fit(mark+common.Fit(it.label, labelW)+desc, w)))
		} else {
			out = append(out, common.Fit(mark+it.label, labelW+2)+st.List.Desc.Render(common.Truncate(desc, max(w-labelW-2, 0))))
		}
	}
	more := ""
	if len(c.items) > maxPopup {
		more = " · " + strconv.Itoa(c.sel+1) + "/" + strconv.Itoa(len(c.items))
	}
	if c.tooLong > 0 {
		out = append(out, st.Muted.Render(common.Fit("  "+common.LeftOutText(c.tooLong), w)))
	}
	hint := "tab/↓ next · enter accepts · esc closes" + more
	if len(c.items) == 0 { // only the note of values left out: nothing to choose
		hint = "esc closes"
	}
	out = append(out, st.Dialog.Hint.Render(common.Fit(hint, w)))
	return out
}

// HandleKey handles a key while the popup is open; ok false passes it on.
func (c *Completer) HandleKey(msg tea.KeyMsg) (accepted string, ok bool) {
	k := c.com.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		c.Close()
		return "", true
	case key.Matches(msg, k.Complete), msg.Type == tea.KeyDown:
		c.Move(1)
		return "", true
	case msg.Type == tea.KeyShiftTab, msg.Type == tea.KeyUp:
		c.Move(-1)
		return "", true
	case key.Matches(msg, k.Accept):
		if len(c.items) == 0 {
			// A popup that only says values were left out has nothing
			// to accept: enter does what it does without it.
			c.Close()
			return "", false
		}
		return c.Accept(), true
	}
	return "", false
}

// IsOpen reports whether the popup shows.
func (c *Completer) IsOpen() bool { return c.open }

// Await makes id the request whose answer the popup waits for.
func (c *Completer) Await(id common.RequestID) { c.pending = id }

// Prefix is the line before the word the popup completes.
func (c *Completer) Prefix() string { return c.line[:c.start] }

// HandleResult shows a live answer unless it is stale (another request
// since, or the line is no longer what it answers).
func (c *Completer) HandleResult(id common.RequestID, msg Completions, line string) {
	if id != c.pending || msg.line != line {
		return
	}
	c.pending = 0
	c.Show(msg.line, msg.start, msg.items)
	// Values left out are worth saying even when none is left to offer.
	c.tooLong = msg.tooLong
	c.open = c.open || c.tooLong > 0
}

// ShowMentions opens the @-mention popup on the word line ends with.
func (c *Completer) ShowMentions(line string, start int, items []Completion) {
	c.Close()
	c.mentions = &mentionIndex{}
	c.Show(line, start, items)
	c.title = "resources and templates (@server:uri)"
}

// Template is the resource template a mention completion opens the form
// of (nil for any other completion).
func (it Completion) Template() *mcp.CatalogItem { return it.template }

// MentionCompletion offers a resource or template as an @-mention.
// it points into the runtime's listed catalog, which nothing changes.
func MentionCompletion(it *mcp.CatalogItem) Completion {
	c := Completion{
		insert: NewMention(it.Server, it.URI).String() + " ",
		label:  "@" + render.SanitizeLine(it.Server) + ":" + render.SanitizeLine(it.URI),
		desc:   strings.TrimSpace(render.SanitizeLine(it.Server) + " · " + common.OrDash(render.SanitizeLine(it.MIMEType)) + " · " + render.SanitizeLine(common.OrDash(it.Name))),
	}
	if it.Kind == mcp.KindTemplate {
		c.desc = render.SanitizeLine(it.Server) + " · template · " + render.SanitizeLine(it.Name) + " (enter fills its variables)"
		c.template = it
	}
	return c
}

// CompletionRef is what completion/complete names for the item: a
// prompt by name, a template by its URI template.
func CompletionRef(it mcp.CatalogItem) (mcp.Kind, string) {
	if it.Kind == mcp.KindTemplate {
		return mcp.KindTemplate, it.URI
	}
	return mcp.KindPrompt, it.Name
}

// Start completes the word before the cursor of a command line: the
// stages that need no request at once, the others in a command.
func (c *Completer) Start(line string, servers []ServerInfo) tea.Cmd {
	if !strings.HasPrefix(line, ".") || strings.Contains(line, "\n") {
		return nil
	}
	cc, ok := ParseCompContext(line)
	if !ok {
		return nil
	}
	items, static := StaticCompletions(cc, servers)
	c.Close()
	if static {
		c.Show(line, cc.start, items)
		return nil
	}
	c.pending = c.com.NewID()
	return CompleteLiveCmd(c.com.Ctx, c.com.RT, c.pending, line, cc, c.com.CompleteTimeout())
}
