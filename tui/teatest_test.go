package tui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp/demo"
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
