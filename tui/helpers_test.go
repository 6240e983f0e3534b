package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// guardRuntime fails the test when the model uses the runtime while Update
// or View runs: those must do no I/O, only commands may.
type guardRuntime struct {
	inner common.Runtime
	t     testing.TB
	busy  atomic.Bool
	uses  atomic.Int64
}

func (g *guardRuntime) check(name string) {
	g.uses.Add(1)
	if g.busy.Load() {
		g.t.Errorf("Runtime.%s was called inside Update or View: Update must do no I/O; return a tea.Cmd instead", name)
	}
}

func (g *guardRuntime) Status() []mcp.Status { g.check("Status"); return g.inner.Status() }
func (g *guardRuntime) Catalog(ctx context.Context, s string, r bool) (*mcp.Catalog, error) {
	g.check("Catalog")
	return g.inner.Catalog(ctx, s, r)
}
func (g *guardRuntime) CallMeta(ctx context.Context, n string, a json.RawMessage) ([]byte, error) {
	g.check("CallMeta")
	return g.inner.CallMeta(ctx, n, a)
}
func (g *guardRuntime) GetPrompt(ctx context.Context, s, n string, a map[string]string) (*mcp.PromptResult, error) {
	g.check("GetPrompt")
	return g.inner.GetPrompt(ctx, s, n, a)
}
func (g *guardRuntime) Reconnect(n string) error { g.check("Reconnect"); return g.inner.Reconnect(n) }
func (g *guardRuntime) HoldsSpill(p string) bool {
	g.check("HoldsSpill")
	return g.inner.HoldsSpill(p)
}
func (g *guardRuntime) Declarations() []mcp.FunctionDecl {
	g.check("Declarations")
	return g.inner.Declarations()
}
func (g *guardRuntime) Complete(ctx context.Context, s string, k mcp.Kind, ref, arg, v string, filled map[string]string) (mcp.Completion, error) {
	g.check("Complete")
	return g.inner.Complete(ctx, s, k, ref, arg, v, filled)
}
func (g *guardRuntime) Subscribe(ctx context.Context, s, uri string) error {
	g.check("Subscribe")
	return g.inner.Subscribe(ctx, s, uri)
}
func (g *guardRuntime) Unsubscribe(ctx context.Context, s, uri string) error {
	g.check("Unsubscribe")
	return g.inner.Unsubscribe(ctx, s, uri)
}
func (g *guardRuntime) SetLogLevel(ctx context.Context, s, level string) error {
	g.check("SetLogLevel")
	return g.inner.SetLogLevel(ctx, s, level)
}
func (g *guardRuntime) Login(n string) error     { g.check("Login"); return g.inner.Login(n) }
func (g *guardRuntime) Tasks() []mcp.RunningTask { g.check("Tasks"); return g.inner.Tasks() }
func (g *guardRuntime) Cancel(token string) bool { g.check("Cancel"); return g.inner.Cancel(token) }
func (g *guardRuntime) Stderr(n string) []byte   { g.check("Stderr"); return g.inner.Stderr(n) }
func (g *guardRuntime) Roots() []string          { g.check("Roots"); return g.inner.Roots() }
func (g *guardRuntime) SetTracing(on bool)       { g.check("SetTracing"); g.inner.SetTracing(on) }
func (g *guardRuntime) Switch(n string, tools []string, off bool) (string, error) {
	g.check("Switch")
	return g.inner.Switch(n, tools, off)
}

// ToolOff answers as the runtime does when it keeps switched-off tools
// (the catalog marks them), else false.
func (g *guardRuntime) ToolOff(server, tool string) bool {
	g.check("ToolOff")
	o, ok := g.inner.(interface {
		ToolOff(server, tool string) bool
	})
	return ok && o.ToolOff(server, tool)
}
func (g *guardRuntime) SetRoots(ctx context.Context, dirs []string) error {
	g.check("SetRoots")
	return g.inner.SetRoots(ctx, dirs)
}

// The MCP Apps side of the runtime (appRuntime), guarded the same way.
func (g *guardRuntime) ReadApp(ctx context.Context, s, uri string) (mcp.AppView, error) {
	g.check("ReadApp")
	return g.inner.(appRuntime).ReadApp(ctx, s, uri)
}
func (g *guardRuntime) AppCallTool(ctx context.Context, s, tool string, args map[string]any) (json.RawMessage, error) {
	g.check("AppCallTool")
	return g.inner.(appRuntime).AppCallTool(ctx, s, tool, args)
}
func (g *guardRuntime) ReadResourceRaw(ctx context.Context, s, uri string) ([]json.RawMessage, error) {
	g.check("ReadResourceRaw")
	return g.inner.(appRuntime).ReadResourceRaw(ctx, s, uri)
}

// fakeClipboard records copies.
type fakeClipboard struct {
	mu     sync.Mutex
	copied []string
}

func (c *fakeClipboard) Copy(s string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.copied = append(c.copied, s)
	return nil
}

// noTick never fires: no spinner frame or message timeout reaches a test.
func noTick(time.Duration, tea.Msg) tea.Cmd { return nil }

// testTheme is the dark theme under the Ascii profile, as goldens draw.
func testTheme() *theme.Theme { return theme.New(theme.Options{Dark: true, Profile: termenv.Ascii}) }

// harness drives a Model synchronously: Update and View run under the
// runtime guard, and runCmds executes returned commands and feeds their
// messages back, until nothing is left.
type harness struct {
	t    testing.TB
	m    *Model
	rt   *guardRuntime
	clip *fakeClipboard
	quit bool
}

func newHarness(t testing.TB, rt common.Runtime, servers []string, w, h int) *harness {
	t.Helper()
	return newHarnessWith(t, rt, servers, w, h, Options{})
}

// newHarnessWith is newHarness with more options.
func newHarnessWith(t testing.TB, rt common.Runtime, servers []string, w, h int, o Options) *harness {
	t.Helper()
	g := &guardRuntime{inner: rt, t: t}
	clip := &fakeClipboard{}
	if o.Tick == nil {
		o.Tick = noTick
	}
	if o.Theme == nil {
		o.Theme = testTheme()
	}
	o.Runtime, o.Servers, o.Clipboard, o.DisplayPath = g, servers, clip, displayTestPath
	m := New(o)
	hs := &harness{t: t, m: m, rt: g, clip: clip}
	t.Cleanup(m.Close)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

// update runs Update under the guard and returns its command.
func (h *harness) update(msg tea.Msg) tea.Cmd {
	h.rt.busy.Store(true)
	defer h.rt.busy.Store(false)
	_, cmd := h.m.Update(msg)
	return cmd
}

// send updates with msg and runs every command that follows.
func (h *harness) send(msg tea.Msg) { h.run(h.update(msg)) }

// run executes cmd and everything it leads to. A command that blocks for
// more than a generous timeout fails the test: tests give no command a
// reason to block.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			h.t.Fatal("commands did not settle after 10000 steps")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := execCmd(h.t, c)
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			h.quit = true
		default:
			queue = append(queue, h.update(msg))
		}
	}
}

// execCmd runs one command with a timeout.
func execCmd(t testing.TB, c tea.Cmd) tea.Msg {
	t.Helper()
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(30 * time.Second):
		t.Fatal("a command blocked for 30s")
		return nil
	}
}

// view draws the screen under the guard.
func (h *harness) view() string {
	h.rt.busy.Store(true)
	defer h.rt.busy.Store(false)
	return h.m.View()
}

// keys sends each key in turn (see keyMsg for the names).
func (h *harness) keys(names ...string) {
	for _, n := range names {
		h.send(keyMsg(n))
	}
}

// typeText sends each rune of s as a key.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// dumpOnFailure logs the screen if the test failed.
func (h *harness) dumpOnFailure() {
	if h.t.Failed() {
		h.t.Logf("screen:\n%s", h.view())
	}
}

// keyMsg builds a synthetic key from its name.
func keyMsg(name string) tea.KeyMsg {
	types := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd,
		"ctrl+s": tea.KeyCtrlS, "ctrl+d": tea.KeyCtrlD, "ctrl+c": tea.KeyCtrlC, "ctrl+r": tea.KeyCtrlR, "ctrl+x": tea.KeyCtrlX, "backspace": tea.KeyBackspace, "space": tea.KeySpace,
	}
	if t, ok := types[name]; ok {
		if t == tea.KeySpace {
			return tea.KeyMsg{Type: t, Runes: []rune{' '}}
		}
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// selectItem moves the list cursor to the item with id on the current tab.
func (h *harness) selectItem(id string) {
	h.t.Helper()
	if h.m.catalog.SelectID(id) {
		h.send(tea.WindowSizeMsg{Width: h.m.width, Height: h.m.height})
		return
	}
	h.t.Fatalf("no item %q on tab %s", id, h.m.catalog.TabTitle(h.m.catalog.Tab()))
}

// fakeRuntime serves canned catalogs and answers reads from texts, paged
// by render itself, so the JSON is what the real runtime would produce.
// Calls can be made to wait on a gate; each call that reaches it says so
// on waiting, when that is set.
type fakeRuntime struct {
	mu       sync.Mutex
	statuses []mcp.Status
	catalogs map[string]*mcp.Catalog
	texts    map[string]string
	gate     chan struct{}
	waiting  chan struct{}
	calls    []string
}

// HoldsSpill: the fake runtime spills nothing, so it holds no file.
func (f *fakeRuntime) HoldsSpill(string) bool { return false }

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{catalogs: map[string]*mcp.Catalog{}, texts: map[string]string{}}
}

// addServer adds a ready server with items.
func (f *fakeRuntime) addServer(name string, items ...mcp.CatalogItem) {
	f.mu.Lock()
	defer f.mu.Unlock()
	feat := mcp.Features{Name: name, Tools: true, Resources: true, Prompts: true, PeerInfoKnown: true}
	f.statuses = append(f.statuses, mcp.Status{Name: name, State: mcp.StateReady, Features: &feat})
	for i := range items {
		items[i].Server = name
	}
	f.catalogs[name] = &mcp.Catalog{Server: name, Listed: mcp.Kinds, Items: items}
}

func (f *fakeRuntime) log(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeRuntime) wait(ctx context.Context) error {
	f.mu.Lock()
	g, w := f.gate, f.waiting
	f.mu.Unlock()
	if g == nil {
		return nil
	}
	if w != nil {
		w <- struct{}{}
	}
	select {
	case <-g:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeRuntime) Status() []mcp.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mcp.Status(nil), f.statuses...)
}

func (f *fakeRuntime) Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error) {
	f.log(fmt.Sprintf("catalog %s %v", server, refresh))
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.catalogs[server]
	if !ok {
		return nil, fmt.Errorf("no server %q", server)
	}
	return c, nil
}

func (f *fakeRuntime) CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	f.log(name + " " + string(args))
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(name, mcp.PrefixRead):
		var a struct {
			URI       string            `json:"uri"`
			Arguments map[string]string `json:"arguments"`
			Pattern   string            `json:"pattern"`
			Offset    int               `json:"offset"`
		}
		_ = json.Unmarshal(args, &a)
		if len(a.Arguments) > 0 {
			u, err := mcp.ExpandTemplate(a.URI, a.Arguments)
			if err != nil {
				return nil, &mcp.CallError{Msg: err.Error()}
			}
			a.URI = u
		}
		f.mu.Lock()
		text, ok := f.texts[a.URI]
		f.mu.Unlock()
		if !ok {
			return nil, &mcp.CallError{Msg: "no resource " + a.URI + ": the fake runtime serves only the texts the test gave it, and this is not one of them"}
		}
		res, err := render.PageText(a.URI, "text/plain", text, render.PageOptions{Pattern: a.Pattern, Offset: a.Offset})
		if err != nil {
			return nil, &mcp.CallError{Msg: err.Error()}
		}
		return render.Marshal(res)
	case strings.HasPrefix(name, mcp.PrefixInvoke):
		var a struct {
			Tool string `json:"tool"`
		}
		_ = json.Unmarshal(args, &a)
		return []byte(`{"content":[{"type":"text","text":"result of ` + a.Tool + `"}]}`), nil
	}
	return nil, &mcp.CallError{Msg: "unexpected " + name}
}

func (f *fakeRuntime) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.PromptResult, error) {
	f.log("prompt " + name)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	return &mcp.PromptResult{Note: "prompt", Prompt: name, Messages: 1, Role: "user", Text: "[user]\nhello " + args["who"]}, nil
}

func (f *fakeRuntime) Reconnect(string) error { return nil }

func (f *fakeRuntime) Declarations() []mcp.FunctionDecl { return nil }

func (f *fakeRuntime) Complete(ctx context.Context, server string, kind mcp.Kind, ref, arg, value string, filled map[string]string) (mcp.Completion, error) {
	return mcp.Completion{Values: []string{}}, nil
}

func (f *fakeRuntime) Subscribe(ctx context.Context, server, uri string) error {
	f.log("subscribe " + uri)
	return nil
}

func (f *fakeRuntime) Unsubscribe(ctx context.Context, server, uri string) error {
	f.log("unsubscribe " + uri)
	return nil
}

func (f *fakeRuntime) SetLogLevel(ctx context.Context, server, level string) error {
	f.log("loglevel " + server + " " + level)
	return nil
}

func (f *fakeRuntime) Login(name string) error { f.log("login " + name); return nil }

func (f *fakeRuntime) Tasks() []mcp.RunningTask { return nil }

func (f *fakeRuntime) Cancel(token string) bool { f.log("cancel " + token); return false }

func (f *fakeRuntime) Stderr(string) []byte { return nil }

func (f *fakeRuntime) Roots() []string { return nil }

func (f *fakeRuntime) SetRoots(context.Context, []string) error {
	return errors.New("the fake runtime offers no roots")
}

func (f *fakeRuntime) SetTracing(on bool) { f.log(fmt.Sprintf("tracing %v", on)) }

func (f *fakeRuntime) Switch(name string, tools []string, off bool) (string, error) {
	f.log(fmt.Sprintf("switch %s %v off=%v", name, tools, off))
	return "", nil
}

// callCount counts logged calls that start with prefix.
func (f *fakeRuntime) callCount(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// sampleItems is a small catalog of every kind.
func sampleItems() []mcp.CatalogItem {
	yes := true
	return []mcp.CatalogItem{
		{Kind: mcp.KindTool, ID: "echo", Name: "echo", Description: "Echo a message",
			Schema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"what to say"}},"required":["message"]}`)},
		{Kind: mcp.KindTool, ID: "wipe", Name: "wipe", Description: "Wipe everything", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
			Schema: json.RawMessage(`{"type":"object","properties":{"force":{"type":"boolean"},"count":{"type":"integer"},"mode":{"type":"string","enum":["fast","slow"]},"tags":{"type":"array","items":{"type":"string"}}}}`)},
		{Kind: mcp.KindResource, ID: "mem://log", Name: "log", URI: "mem://log", MIMEType: "text/plain"},
		{Kind: mcp.KindResource, ID: "mem://small", Name: "small", URI: "mem://small", MIMEType: "text/plain"},
		{Kind: mcp.KindTemplate, ID: "mem://users/{id}", Name: "user", URI: "mem://users/{id}", Variables: []string{"id"}},
		{Kind: mcp.KindPrompt, ID: "hello", Name: "hello", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}},
		{Kind: mcp.KindPrompt, ID: "plain", Name: "plain"},
	}
}

// bigLog is a log of n numbered lines.
func bigLog(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "2025-06-14T06:00:00.000Z INFO  [test] line %06d of the big log\n", i)
	}
	return b.String()
}
