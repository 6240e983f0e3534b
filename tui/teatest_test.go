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
func TestTeatestOpensAResourceFromTheDemoAndQuits(t *testing.T) {
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		relay.Run(ctx, tm.Send)
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()

	wait := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("Resources 125")
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
