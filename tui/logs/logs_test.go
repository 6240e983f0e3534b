package logs

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// fakeRuntime is the two calls the log pane makes.
type fakeRuntime struct {
	tails   map[string]string
	reads   int
	tracing bool
}

func (f *fakeRuntime) Stderr(name string) []byte { f.reads++; return []byte(f.tails[name]) }
func (f *fakeRuntime) SetTracing(on bool)        { f.tracing = on }

var logTime = time.Date(2026, 1, 2, 9, 30, 0, 0, time.UTC)

// bench is the log pane's own harness: a pane on a fixed clock, and the
// commands it returns run with their results fed back to it.
type bench struct {
	t  *testing.T
	p  *Pane
	rt *fakeRuntime
}

func newBench(t *testing.T, servers ...string) *bench {
	com := &common.Common{Keys: common.DefaultKeyMap(), Styles: theme.New(theme.Options{Dark: true, Profile: termenv.Ascii}).Styles,
		Clock: func() time.Time { return logTime }, Location: time.UTC}
	rt := &fakeRuntime{tails: map[string]string{}}
	b := &bench{t: t, p: New(com, rt, servers), rt: rt}
	b.p.SetSize(100, 10)
	return b
}

// run executes cmd and feeds its result back to the pane.
func (b *bench) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if r, ok := cmd().(common.Result); ok {
		b.run(b.p.HandleResult(r))
	}
}

func TestLogPaneSeedsTheStderrTailOnceWithoutRepeatingLines(t *testing.T) {
	b := newBench(t, "mem")
	b.rt.tails["mem"] = "early one\nearly \x1b[31mtwo\x1b[0m\nlate three\n"
	// The relay already delivered the last line of the tail.
	b.p.AddEvent(mcp.Event{Kind: mcp.EventStderr, Server: "mem", Line: "late three"})
	b.p.AddEvent(mcp.Event{Kind: mcp.EventStderr, Server: "mem", Line: "newest four"})
	b.run(b.p.Toggle())
	got := strings.TrimSpace(b.p.Text("mem"))
	want := "earlier  stderr early one\nearlier  stderr early two\n09:30:00 stderr late three\n09:30:00 stderr newest four"
	if got != want {
		t.Fatalf("seeded log:\n%s\nwant:\n%s", got, want)
	}
	b.run(b.p.Toggle()) // close
	b.run(b.p.Toggle()) // open again: no second read
	if b.rt.reads != 1 {
		t.Errorf("the stderr tail was read %d times, want once", b.rt.reads)
	}
}

func TestLogPaneKeepsItsBoundsInLinesAndBytes(t *testing.T) {
	b := newBench(t, "mem")
	for i := range MaxLogLines + 50 {
		b.p.AddStderr("mem", strings.Repeat("x", i%7), logTime)
	}
	if lines, _, dropped := b.p.Held("mem"); lines != MaxLogLines || dropped != 50 {
		t.Errorf("the log holds %d lines, dropped %d: want %d and 50", lines, dropped, MaxLogLines)
	}
	b.p.AddMessage("mem", map[string]any{"level": "info", "data": strings.Repeat("y", 3*MaxLogLineBytes)}, logTime)
	if _, bytes, _ := b.p.Held(""); bytes > MaxLogBytes {
		t.Errorf("the view of every server holds %d bytes, over MaxLogBytes", bytes)
	}
}

// A message's level is the server's string: one that is none of MCP's
// levels is kept sanitized and cut, and counts against MaxLogBytes, so a
// 1 MiB level on every message does not hold a MiB an entry.
func TestALogLevelIsTheServersStringAndIsCutAndCounted(t *testing.T) {
	b := newBench(t, "mem")
	level := "\x1b]52;c;cm0=\x07" + strings.Repeat("L", 1<<20)
	for range 64 {
		b.p.AddMessage("mem", map[string]any{"level": level, "data": "hi"}, logTime)
	}
	b.p.AddMessage("mem", map[string]any{"level": "warning", "data": "known"}, logTime)
	lines, bytes, _ := b.p.Held("mem")
	if lines != 65 || bytes > 65*(maxLevelBytes+len("…")+len("known")) {
		t.Errorf("65 messages: the log holds %d lines in %d bytes", lines, bytes)
	}
	text := b.p.Text("mem")
	if n := len(text); n > 65*80 {
		t.Errorf("65 short messages take %d bytes to show: the level is kept whole", n)
	}
	if strings.Contains(text, "\x1b") || !strings.Contains(text, "warn   known") || strings.Contains(text, "cm0=") {
		t.Errorf("the levels as shown:\n%q", text[max(0, len(text)-300):])
	}
}

func TestTracingIsToldToTheRuntimeAndNotedInEveryLog(t *testing.T) {
	b := newBench(t, "a", "b")
	b.run(b.p.Toggle())
	cmd, used := b.p.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	if !used {
		t.Fatal("t was not used while the pane had the keys")
	}
	b.run(cmd)
	if !b.rt.tracing || !b.p.Tracing() {
		t.Fatal("tracing was not turned on")
	}
	for _, s := range []string{"a", "b"} {
		if !strings.Contains(b.p.Text(s), "tracing requests") {
			t.Errorf("%s's log does not say tracing started:\n%s", s, b.p.Text(s))
		}
	}
}
