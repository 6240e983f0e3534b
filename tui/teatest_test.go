package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
)

// TestTeatestOpensAResourceFromTheDemoAndQuits runs the real program loop
// on the demo server: runtime events arrive through the same relay as in
// production (into the test program), the catalog loads, a resource opens
// in the viewer, and q ends the program cleanly.
// program is m running under teatest with runtime events arriving through
// the relay, as in production.
type program struct {
	t    *testing.T
	tm   *teatest.TestModel
	seen []byte // the output so far: one frame may hold what two waits look for
}

// runProgram starts m at 120x40 and the relay feeding it; both end with the test.
func runProgram(t *testing.T, m *Model, relay *Relay) *program {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		relay.Run(ctx, tm.Send)
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return &program{t: t, tm: tm}
}

// wait blocks until the screen has shown what.
func (p *program) wait(what string) {
	p.t.Helper()
	if bytes.Contains(p.seen, []byte(what)) {
		return
	}
	teatest.WaitFor(p.t, p.tm.Output(), func(b []byte) bool {
		if bytes.Contains(append(p.seen, b...), []byte(what)) {
			p.seen = append(p.seen, b...)
			return true
		}
		return false
	}, teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// waitBriefly reports whether the screen shows what within d.
func (p *program) waitBriefly(what string, d time.Duration) bool {
	if bytes.Contains(p.seen, []byte(what)) {
		return true
	}
	deadline := time.Now().Add(d)
	buf := make([]byte, 64<<10)
	for time.Now().Before(deadline) {
		n, _ := p.tm.Output().Read(buf)
		p.seen = append(p.seen, buf[:n]...)
		if bytes.Contains(p.seen, []byte(what)) {
			return true
		}
		if n == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return false
}

func TestTeatestOpensAResourceFromTheDemoAndQuits(t *testing.T) {
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("Resources 126")
	tm.Send(keyMsg("2"))
	tm.Send(keyMsg("enter"))
	wait("of 2097152")
	tm.Send(keyMsg("q"))

	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	v := final.View()
	if !strings.Contains(v, demo.LogURI) || !strings.Contains(v, "page 1 of 41") {
		t.Fatalf("final screen:\n%s", v)
	}
	requireGolden(t, v)
	m.Close()
}

// diesOnToolsListArg makes the test binary a server that answers the
// handshake and exits with status 3, its last words on stderr, on
// tools/list (mcptest.ServeDiesOnToolsList).
const diesOnToolsListArg = "dies-on-tools-list"

// TestTeatestAServerThatDiesWhileListedShowsFailed: a server that exits
// as the catalog lists it shows failed in the catalog and the servers
// list (S), with how it ended and its stderr, never ready; the other
// server is listed.
func TestTeatestAServerThatDiesWhileListedShowsFailed(t *testing.T) {
	relay := NewRelay()
	dies := demoServer("dies")
	dies.Args, dies.Era = []string{diesOnToolsListArg}, mcp.EraLegacy
	rt := newRuntime(t, relay.Push, demoServer("demo"), dies)
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo", "dies"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	p := runProgram(t, m, relay)
	p.wait("Resources 126")
	p.wait("exited with status 3 during tools/list") // the catalog's row
	p.tm.Send(keyMsg("S"))
	p.wait(mcptest.DiesOnToolsListWords) // the servers list: its stderr
	p.tm.Send(keyMsg("esc"))
	p.tm.Send(keyMsg("end")) // dies' row, below the demo's tools
	p.wait("dies stopped")   // the details pane: it was ready, then died
	p.tm.Send(keyMsg("S"))
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	m.Close()
	want := fmt.Sprintf("server process exited with status %d during tools/list", mcptest.DiesOnToolsListStatus)
	for _, sv := range final.catalog.Servers() {
		st := sv.Status()
		switch {
		case sv.Name() == "demo" && st.State != mcp.StateReady:
			t.Errorf("demo is %s beside the server that died", st.State)
		case sv.Name() == "dies" && (st.State != mcp.StateFailed || !strings.Contains(st.Reason, want)):
			t.Errorf("the TUI shows dies as %s (%s), want failed: %s", st.State, st.Reason, want)
		}
	}
	v := final.View()
	for _, line := range []string{"dies  failed", "reason    " + want, "fatal: tool registry", "› demo  ready"} {
		if !strings.Contains(v, line) {
			t.Errorf("the servers list does not say %q:\n%s", line, v)
		}
	}
}
