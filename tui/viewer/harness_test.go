package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// fakeRuntime is the viewer's five calls: reads answered from texts, paged
// by render itself (the JSON is what the real runtime produces), canned
// tool results and prompts, and subscriptions logged.
type fakeRuntime struct {
	mu    sync.Mutex
	texts map[string]string
	calls []string
}

func newFakeRuntime() *fakeRuntime { return &fakeRuntime{texts: map[string]string{}} }

// HoldsSpill: the fake runtime spills nothing, so it holds no file.
func (f *fakeRuntime) HoldsSpill(string) bool { return false }

func (f *fakeRuntime) log(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeRuntime) CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	f.log(name + " " + string(args))
	if strings.HasPrefix(name, mcp.PrefixInvoke) {
		var a struct {
			Tool string `json:"tool"`
		}
		_ = json.Unmarshal(args, &a)
		return []byte(`{"content":[{"type":"text","text":"result of ` + a.Tool + `"}]}`), nil
	}
	var a struct {
		URI     string `json:"uri"`
		Pattern string `json:"pattern"`
		Offset  int    `json:"offset"`
	}
	_ = json.Unmarshal(args, &a)
	f.mu.Lock()
	text, ok := f.texts[a.URI]
	f.mu.Unlock()
	if !ok {
		return nil, &mcp.CallError{Msg: "no resource " + a.URI}
	}
	res, err := render.PageText(a.URI, "text/plain", text, render.PageOptions{Pattern: a.Pattern, Offset: a.Offset})
	if err != nil {
		return nil, &mcp.CallError{Msg: err.Error()}
	}
	return render.Marshal(res)
}

func (f *fakeRuntime) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Note: "prompt", Prompt: name, Messages: 1, Role: "user", Text: "[user]\nhello"}, nil
}

func (f *fakeRuntime) Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error) {
	return &mcp.Catalog{Server: server}, nil
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

func testTheme() *theme.Theme { return theme.New(theme.Options{Dark: true, Profile: termenv.Ascii}) }

// bench is the viewer's own harness: a pane of a fixed size whose
// commands run at once, their results fed back to it, and the status
// messages they report kept.
type bench struct {
	t    testing.TB
	v    *Pane
	rt   *fakeRuntime
	info []string
	// subscribeMsgs are the subscribes and unsubscribes asked of the root.
	subscribeMsgs []common.SubscribeMsg
	// now and ticks are the clock and the pending ticks after fakeClock.
	now   time.Time
	ticks []benchTick
}

// benchTick is a message the pane asked Common.Tick for, and when it is due.
type benchTick struct {
	due time.Time
	msg tea.Msg
}

// fakeClock gives the pane a clock that moves only by later, and keeps the
// ticks it asks for until later reaches them.
func (b *bench) fakeClock() {
	b.now = time.Date(2025, 6, 14, 6, 0, 0, 0, time.UTC)
	b.v.com.Clock = func() time.Time { return b.now }
	b.v.com.Tick = func(d time.Duration, msg tea.Msg) tea.Cmd {
		b.ticks = append(b.ticks, benchTick{b.now.Add(d), msg})
		return nil
	}
}

// later moves the clock on by d and delivers the ticks due by then, in
// the order they were asked for.
func (b *bench) later(d time.Duration) {
	b.now = b.now.Add(d)
	for {
		i := slices.IndexFunc(b.ticks, func(t benchTick) bool { return !t.due.After(b.now) })
		if i < 0 {
			return
		}
		msg := b.ticks[i].msg
		b.ticks = slices.Delete(b.ticks, i, i+1)
		b.run(func() tea.Msg { return msg })
	}
}

func newBench(t testing.TB, w, h int) *bench {
	th := testTheme()
	com := &common.Common{Ctx: context.Background(), Theme: th, Styles: th.Styles, Keys: common.DefaultKeyMap(),
		DisplayPath: func(s string) string { return s }, Tick: func(time.Duration, tea.Msg) tea.Cmd { return nil },
		Log: common.DiscardLogger(), Progress: &common.ProgressBoard{}, Subs: &common.Subscriptions{}}
	rt := newFakeRuntime()
	b := &bench{t: t, v: New(com, rt), rt: rt}
	b.run(b.v.SetSize(w, h))
	b.v.Focus()
	return b
}

// run executes cmd and everything it leads to.
func (b *bench) run(cmd tea.Cmd) {
	for _, msg := range commontest.Messages(cmd) {
		switch msg := msg.(type) {
		case common.Result:
			if msg.Owner != common.OwnerViewer {
				b.t.Fatalf("a viewer request answered %s", msg.Owner)
			}
			b.run(b.v.HandleResult(msg))
		case common.InfoMsg:
			b.info = append(b.info, msg.Msg)
		case common.SubscribeMsg: // the root's part: the server accepts at once
			b.subscribeMsgs = append(b.subscribeMsgs, msg)
			if msg.On {
				b.v.com.Subs.Add(msg.Server, msg.URI, time.Time{})
			} else {
				b.v.com.Subs.Remove(msg.Server, msg.URI)
			}
		}
	}
}

// update is the root's part of a server's change report: it counts the
// change for a followed resource, then tells the viewer.
func (b *bench) update(server, uri string) {
	if b.v.com.Subs.Updated(server, uri, time.Time{}) {
		b.run(b.v.HandleResourceUpdated())
	}
}

// sub is the subscription to mem's uri, or nil.
func (b *bench) sub(uri string) *common.Subscription { return b.v.com.Subs.Get("mem", uri) }

// open reads uri from the fake runtime into the
func (b *bench) open(uri string) {
	b.run(b.v.Request(Read("mem", uri, nil), "reading"))
}

// keys sends each key in turn.
func (b *bench) keys(names ...string) {
	types := map[string]tea.KeyType{"esc": tea.KeyEsc, "down": tea.KeyDown, "up": tea.KeyUp, "enter": tea.KeyEnter}
	for _, n := range names {
		k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(n)}
		if t, ok := types[n]; ok {
			k = tea.KeyMsg{Type: t}
		}
		cmd, _ := b.v.HandleKey(k)
		b.run(cmd)
	}
}

// view draws the pane.
func (b *bench) view() string { return strings.Join(b.v.Render(0), "\n") }

// bigLog is a log of n numbered lines.
func bigLog(n int) string {
	var s strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, "2025-06-14T06:00:00.000Z INFO  [test] line %06d of the big log\n", i)
	}
	return s.String()
}

// writeFile writes a temp file of size bytes (sparse past the head).
func writeFile(t testing.TB, size int64, head []byte) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "spill-*.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(head); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
