package tui

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// listCounter counts the catalog listings the TUI asks for.
type listCounter struct {
	common.Runtime
	listed atomic.Int32
}

func (c *listCounter) Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error) {
	c.listed.Add(1)
	return c.Runtime.Catalog(ctx, server, refresh)
}

// The runtime starts before the program, so its first state events wait
// in the relay and can arrive after Init's snapshot, which is fresher.
// Applied, the queued "starting" cancelled the listing the snapshot's
// "ready" began, and the queued "ready" listed the server again: a
// server that died answering the first tools/list then had nothing
// waiting on it, and its reason lost "during tools/list" (a CI failure
// of TestTeatestAServerThatDiesWhileListedShowsFailed), and at 100,000
// items the start listed everything twice. Stale states are dropped; a
// newer one (a reconnect) is applied.
func TestStateEventsQueuedBeforeTheSnapshotDoNotListTheServerAgain(t *testing.T) {
	var mu sync.Mutex
	var states []mcp.Event
	rt := newRuntime(t, func(e mcp.Event) {
		if e.Kind == mcp.EventState {
			mu.Lock()
			states = append(states, e)
			mu.Unlock()
		}
	}, demoServer("demo"))
	defer rt.Close()
	taken := func() []mcp.Event {
		mu.Lock()
		defer mu.Unlock()
		q := slices.Clone(states)
		states = states[:0]
		return q
	}
	queued := taken()
	if len(queued) < 2 || queued[0].Status.State != mcp.StateStarting || queued[len(queued)-1].Status.State != mcp.StateReady {
		t.Fatalf("the runtime's start emitted %v, want starting, then ready", queued)
	}
	counter := &listCounter{Runtime: rt}
	h := newHarness(t, counter, []string{"demo"}, 120, 40) // Init's snapshot: ready, listed
	if n := counter.listed.Load(); n != 1 {
		t.Fatalf("after the snapshot demo was listed %d times, want 1", n)
	}
	h.send(EventsMsg{Events: queued})
	if n := counter.listed.Load(); n != 1 {
		t.Errorf("the state events queued before the snapshot listed demo again: %d listings, want 1", n)
	}
	sv := h.m.catalog.Servers()[0]
	if st := sv.Status(); st.State != mcp.StateReady || !sv.Loaded() {
		t.Errorf("after the queued events demo is %s (loaded %v), want ready and listed", st.State, sv.Loaded())
	}

	if err := rt.Reconnect("demo"); err != nil {
		t.Fatal(err)
	}
	var fresh []mcp.Event
	for deadline := time.Now().Add(30 * time.Second); len(fresh) == 0 || fresh[len(fresh)-1].Status.State != mcp.StateReady; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the reconnect never came back ready: %v", fresh)
		}
		fresh = append(fresh, taken()...)
	}
	h.send(EventsMsg{Events: fresh})
	if n := counter.listed.Load(); n != 2 {
		t.Errorf("after a reconnect demo was listed %d times in all, want 2 (the new states are applied)", n)
	}
}
