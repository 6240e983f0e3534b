package tui

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
type completion struct {
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
type compContext struct {
	words   []string
	partial string
	start   int
}

// parseCompContext splits line for completion. A line with an unterminated
// quote before the word being typed has no context (ok false).
func parseCompContext(line string) (compContext, bool) {
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
		return compContext{}, false
	}
	return compContext{words: words, partial: line[start:], start: start}, true
}

// serverInfo is a server's name, state and capabilities, as the catalog
// last saw them.
type serverInfo struct {
	name                      string
	ready                     bool
	tools, resources, prompts bool
	logging                   bool
}

// completionsMsg is the answer to a completion request.
type completionsMsg struct {
	line  string
	start int
	items []completion
}

// servers is what completion may know about the servers: enabled (not
// hidden), with their state and capabilities from the live handshake.
func (m *Model) serverInfos() []serverInfo {
	var out []serverInfo
	for _, sv := range m.catalog.Servers() {
		if m.com.Hidden[sv.Name()] {
			continue
		}
		si := serverInfo{name: sv.Name(), ready: sv.Status().State == mcp.StateReady}
		if f := sv.Status().Features; f != nil {
			si.tools, si.resources, si.prompts, si.logging = f.Tools, f.Resources, f.Prompts, f.Logging
		}
		out = append(out, si)
	}
	return out
}

// staticCompletions answers the stages that need no request: command
// names, server names, .list kinds, .mcp actions and model providers. ok
// false means the stage needs the server (completeLive).
func staticCompletions(cc compContext, servers []serverInfo) ([]completion, bool) {
	if len(cc.words) == 0 {
		var out []completion
		for _, c := range commands() {
			out = append(out, completion{insert: c.name + " ", label: c.name, desc: c.desc})
		}
		return out, true
	}
	serversWith := func(ok func(serverInfo) bool) []completion {
		var out []completion
		for _, s := range servers {
			if s.ready && ok(s) {
				out = append(out, completion{insert: mcp.QuoteArg(s.name) + " ", label: s.name})
			}
		}
		return out
	}
	n := len(cc.words)
	switch cc.words[0] {
	case ".prompt":
		if n == 1 {
			// Stage 1: local state only, no request.
			return serversWith(func(s serverInfo) bool { return s.prompts }), true
		}
		return nil, n >= 2 && !hasServer(servers, cc.words[1], func(s serverInfo) bool { return s.prompts })
	case ".read":
		if n == 1 {
			return serversWith(func(s serverInfo) bool { return s.resources }), true
		}
		return nil, !hasServer(servers, cc.words[1], func(s serverInfo) bool { return s.resources })
	case ".call":
		if n == 1 {
			return serversWith(func(s serverInfo) bool { return s.tools }), true
		}
		return nil, !hasServer(servers, cc.words[1], func(s serverInfo) bool { return s.tools })
	case ".list":
		if n == 1 {
			return words(listKinds, ""), true
		}
	case ".mcp":
		switch n {
		case 1:
			return words(mcpActions, ""), true
		case 2:
			var out []completion
			for _, s := range servers {
				out = append(out, completion{insert: mcp.QuoteArg(s.name) + " ", label: s.name})
			}
			return out, true
		}
	case ".loglevel":
		switch n {
		case 1:
			return serversWith(func(s serverInfo) bool { return s.logging }), true
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
			var out []completion
			for _, p := range llm.ProviderNames() {
				out = append(out, completion{insert: p + "/", label: p + "/"})
			}
			return out, true
		}
	}
	return nil, true
}

func words(list []string, desc string) []completion {
	out := make([]completion, len(list))
	for i, w := range list {
		out[i] = completion{insert: w + " ", label: w, desc: desc}
	}
	return out
}

// hasServer reports whether name is a ready server passing ok.
func hasServer(servers []serverInfo, name string, ok func(serverInfo) bool) bool {
	for _, s := range servers {
		if s.name == name {
			return s.ready && ok(s)
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
func completeLiveCmd(ctx context.Context, rt common.Runtime, id common.RequestID, line string, cc compContext, timeout time.Duration) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		msg := completionsMsg{line: line, start: cc.start}
		msg.items = liveCompletions(ctx, rt, cc)
		return msg
	})
}

// liveCompletions is completeLiveCmd's work, without the message.
func liveCompletions(ctx context.Context, rt common.Runtime, cc compContext) []completion {
	server := cc.words[1]
	refresh := cc.words[0] == ".prompt" // prompts are listed live on each tab
	cat, err := rt.Catalog(ctx, server, refresh)
	if err != nil || ctx.Err() != nil {
		return nil
	}
	n := len(cc.words)
	switch cc.words[0] {
	case ".prompt":
		if n == 2 {
			return itemCompletions(cat, mcp.KindPrompt)
		}
		it, ok := cat.Lookup(mcp.KindPrompt, cc.words[2])
		if !ok {
			return nil
		}
		keys := make([]completion, len(it.Arguments))
		for i, a := range it.Arguments {
			keys[i] = keyCompletion(a.Name, common.FirstLine(a.Description), a.Required)
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, true)
	case ".read":
		if n == 2 {
			return itemCompletions(cat, mcp.KindResource, mcp.KindTemplate)
		}
		// A template's variables, then their values from the server.
		it, ok := cat.Lookup(mcp.KindTemplate, cc.words[2])
		if !ok {
			return nil
		}
		keys := make([]completion, len(it.Variables))
		for i, v := range it.Variables {
			keys[i] = keyCompletion(v, "{"+v+"} in "+it.URI, true)
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, true)
	case ".call":
		if n == 2 {
			return itemCompletions(cat, mcp.KindTool)
		}
		it, ok := cat.Lookup(mcp.KindTool, cc.words[2])
		if !ok {
			return nil
		}
		var keys []completion
		for _, p := range mcp.SchemaProps(it.Schema) {
			keys = append(keys, keyCompletion(p.Name, common.FirstLine(p.Description), p.Required))
		}
		return keyValueCompletions(ctx, rt, it, cc, keys, false)
	}
	return nil
}

// itemCompletions lists a catalog's items of the given kinds: resources
// and templates by URI, the others by name.
func itemCompletions(cat *mcp.Catalog, kinds ...mcp.Kind) []completion {
	var out []completion
	for _, it := range cat.Items {
		if !slices.Contains(kinds, it.Kind) {
			continue
		}
		if it.Kind == mcp.KindResource || it.Kind == mcp.KindTemplate {
			out = append(out, completion{insert: mcp.QuoteArg(it.URI) + " ", label: render.SanitizeLine(it.URI), desc: render.SanitizeLine(it.Name)})
		} else {
			out = append(out, completion{insert: mcp.QuoteArg(it.Name) + " ", label: render.SanitizeLine(it.Name), desc: render.SanitizeLine(common.FirstLine(it.Description))})
		}
	}
	return out
}

// keyCompletion offers "name=".
func keyCompletion(name, desc string, required bool) completion {
	return completion{insert: name + "=", label: render.SanitizeLine(name) + "=", desc: render.SanitizeLine(desc), required: required}
}

// keyValueCompletions is the key=value stage: the server's values for the
// key being typed (when the server completes them), else the keys not
// typed yet.
func keyValueCompletions(ctx context.Context, rt common.Runtime, it mcp.CatalogItem, cc compContext, keys []completion, serverValues bool) []completion {
	typed, _ := mcp.ParseKeyValues(cc.words[3:])
	if key, value, ok := strings.Cut(cc.partial, "="); ok && serverValues {
		return valueCompletions(ctx, rt, it, key, value, typed)
	}
	var out []completion
	for _, k := range keys {
		if _, done := typed[strings.TrimSuffix(k.insert, "=")]; !done {
			out = append(out, k)
		}
	}
	return out
}

// valueCompletions asks the server to complete one prompt argument's or
// template variable's value, the other typed ones as context.
func valueCompletions(ctx context.Context, rt common.Runtime, it mcp.CatalogItem, key, value string, typed map[string]string) []completion {
	kind, ref := completionRef(it)
	c, err := rt.Complete(ctx, it.Server, kind, ref, key, value, typed)
	if err != nil || ctx.Err() != nil {
		return nil
	}
	var out []completion
	for _, v := range c.Values {
		out = append(out, completion{insert: key + "=" + mcp.QuoteArg(v) + " ", label: render.SanitizeLine(v)})
	}
	return out
}

// filterCompletions keeps the items whose label starts with the partial
// word (case-insensitively), sorted required first, then as given.
func filterCompletions(items []completion, partial string) []completion {
	p := strings.ToLower(strings.Trim(partial, `"'`))
	var out []completion
	for _, c := range items {
		if strings.HasPrefix(strings.ToLower(c.label), p) || strings.HasPrefix(strings.ToLower(c.insert), p) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].required && !out[j].required })
	return out
}

// completer is the command line's completion popup.
type completer struct {
	com *common.Common
	// pending is the request in flight; answers with another id are stale.
	pending common.RequestID
	open    bool
	line    string
	start   int
	all     []completion
	items   []completion
	sel     int
	// title says what the popup lists ("prompts of demo").
	title string
	// filter narrows the items to the typed word (filterCompletions when nil).
	filter func(items []completion, partial string) []completion
}

// Close hides the popup and drops any answer in flight.
func (c *completer) Close() {
	c.open = false
	c.pending = 0
	c.items, c.all = nil, nil
	c.filter = nil
}

// Show opens the popup on items for line (an empty list shows nothing).
func (c *completer) Show(line string, start int, items []completion) {
	c.line, c.start, c.all = line, start, items
	if cc, ok := parseCompContext(line); ok {
		c.title = stageTitle(cc)
	}
	c.items = c.narrow(items, line[start:])
	c.sel = 0
	c.open = len(c.items) > 0
}

// Refilter narrows the open popup to the word typed since it opened; a
// change before the word closes it.
func (c *completer) Refilter(line string) {
	if !c.open || len(line) < c.start || line[:c.start] != c.line[:c.start] || strings.ContainsAny(line[c.start:], " \t\n") {
		c.Close()
		return
	}
	c.line = line
	c.items = c.narrow(c.all, line[c.start:])
	c.sel = 0
	c.open = len(c.items) > 0
}

// narrow filters items to the word typed.
func (c *completer) narrow(items []completion, partial string) []completion {
	if c.filter != nil {
		return c.filter(items, partial)
	}
	return filterCompletions(items, partial)
}

// Selected is the chosen item, if the popup is open.
func (c *completer) Selected() (completion, bool) {
	if !c.open || c.sel >= len(c.items) {
		return completion{}, false
	}
	return c.items[c.sel], true
}

// Move changes the chosen item.
func (c *completer) Move(d int) {
	if n := len(c.items); n > 0 {
		c.sel = (c.sel + d + n) % n
	}
}

// Accept is line with the chosen item in place of the word being typed.
func (c *completer) Accept() string {
	it := c.items[c.sel]
	line := c.line[:c.start] + it.insert
	c.Close()
	return line
}

// stageTitle says what a completion lists, for the popup's first line.
func stageTitle(cc compContext) string {
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
func (c *completer) Render(w int) []string {
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
	out = append(out, st.Dialog.Hint.Render(common.Fit("tab/↓ next · enter accepts · esc closes"+more, w)))
	return out
}

// handleKey handles a key while the popup is open; ok false passes it on.
func (c *completer) handleKey(msg tea.KeyMsg) (accepted string, ok bool) {
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
		return c.Accept(), true
	}
	return "", false
}
