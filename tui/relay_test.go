package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
)

func TestRelayPushNeverBlocksAndBatchesInOrder(t *testing.T) {
	r := NewRelay()
	// Nobody is reading yet: pushing must not block.
	for i := 0; i < 100; i++ {
		r.Push(mcp.Event{Kind: mcp.EventStderr, Line: string(rune('a' + i%26))})
	}
	got := make(chan EventsMsg, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Run(ctx, func(m tea.Msg) { got <- m.(EventsMsg) })
	}()
	msg := <-got
	if len(msg.Events) != 100 || msg.Events[0].Line != "a" || msg.Events[99].Line != string(rune('a'+99%26)) {
		t.Fatalf("batch of %d events, first %q", len(msg.Events), msg.Events[0].Line)
	}
	r.Push(mcp.Event{Kind: mcp.EventState, Server: "s"})
	if msg := <-got; len(msg.Events) != 1 || msg.Events[0].Server != "s" {
		t.Fatalf("second batch %+v", msg)
	}
	cancel()
	wg.Wait() // Run ends when its context does
}

func TestRelayDropsOldNoiseButKeepsStateChanges(t *testing.T) {
	r := NewRelay()
	r.Push(mcp.Event{Kind: mcp.EventState, Server: "first"})
	for i := 0; i < MaxRelayQueue+10; i++ {
		r.Push(mcp.Event{Kind: mcp.EventStderr, Line: "noise"})
	}
	r.mu.Lock()
	q, dropped := r.queue, r.dropped
	r.mu.Unlock()
	if len(q) != MaxRelayQueue || dropped != 11 {
		t.Fatalf("queue %d, dropped %d", len(q), dropped)
	}
	if q[0].Kind != mcp.EventState {
		t.Fatal("the state change was dropped before stderr noise")
	}
}

func TestRelayRunReturnsWhenCancelledWhileIdle(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, func(tea.Msg) {})
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after its context was cancelled")
	}
}

// firstBatch runs r until it hands over what is queued, and returns that.
func firstBatch(t *testing.T, r *Relay) EventsMsg {
	t.Helper()
	got := make(chan EventsMsg, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Run(ctx, func(m tea.Msg) {
			select {
			case got <- m.(EventsMsg):
			default:
			}
		})
	}()
	msg := <-got
	cancel()
	wg.Wait()
	return msg
}

// A catalog change and a followed resource's update were dropped like
// log noise: server b flooding stderr and log lines while the program was
// busy left a's catalog pane listing removed tools and a's followed
// resource unread, with only "N server events were dropped" to show.
func TestRelayKeepsOneServersCatalogChangeAndUpdateThroughAnothersFlood(t *testing.T) {
	r := NewRelay()
	r.Push(mcp.Event{Kind: mcp.EventCatalogChanged, Server: "a", Change: &mcp.CatalogChange{Added: []string{"tool:new"}}})
	r.Push(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "a", URI: "mem://followed"})
	const flood = MaxRelayQueue + 10
	for i := range flood {
		if i%2 == 0 {
			r.Push(mcp.Event{Kind: mcp.EventStderr, Server: "b", Line: "noise"})
		} else {
			r.Push(logMessage("b", "info", "flood", "noise"))
		}
	}
	msg := firstBatch(t, r)
	var catalog, update bool
	for _, e := range msg.Events {
		catalog = catalog || e.Kind == mcp.EventCatalogChanged && e.Server == "a"
		update = update || e.Kind == mcp.EventResourceUpdated && e.Server == "a"
	}
	if !catalog || !update {
		t.Errorf("after %d lines of b, a's catalog change delivered %v, its update %v; want both", flood, catalog, update)
	}
	if len(msg.Events) != MaxRelayQueue || msg.Dropped != 12 {
		t.Errorf("delivered %d events with %d dropped, want %d (MaxRelayQueue) and 12 of b's lines", len(msg.Events), msg.Dropped, MaxRelayQueue)
	}
}

// The program only re-reads a followed resource on an update, so a server
// reporting one resource in a loop costs one queued event; one naming
// endless URIs pushes out its own updates, not another server's.
func TestRelayCollapsesAResourcesUpdatesToTheLatest(t *testing.T) {
	r := NewRelay()
	r.Push(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "a", URI: "mem://followed"})
	for i := range 10 * MaxRelayQueue {
		r.Push(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "b", URI: "mem://busy", Params: map[string]any{"n": i}})
	}
	r.mu.Lock()
	q, dropped := slices.Clone(r.queue), r.dropped
	r.mu.Unlock()
	if len(q) != 2 || dropped != 0 || q[0].Server != "a" || q[1].Params["n"] != 10*MaxRelayQueue-1 {
		t.Fatalf("after %d updates of one resource the relay holds %d events (%d dropped), want a's and b's latest", 10*MaxRelayQueue, len(q), dropped)
	}
	for i := range MaxRelayQueue + 10 {
		r.Push(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "b", URI: fmt.Sprintf("mem://%d", i)})
	}
	r.mu.Lock()
	q, dropped = slices.Clone(r.queue), r.dropped
	r.mu.Unlock()
	if len(q) != MaxRelayQueue || dropped != 12 || q[0].Server != "a" {
		t.Errorf("after b named %d URIs the relay holds %d events (%d dropped), first of %q; want %d (MaxRelayQueue), a's kept", MaxRelayQueue+10, len(q), dropped, q[0].Server, MaxRelayQueue)
	}
}

// Undroppable is not unbounded: catalog changes larger than MaxRelayBytes
// push out their own server's, not another server's state.
func TestRelayKeepsItsBoundsWhenOnlyStateAndCatalogChangesWait(t *testing.T) {
	r := NewRelay()
	r.Push(mcp.Event{Kind: mcp.EventState, Server: "a"})
	huge := strings.Repeat("x", MaxRelayBytes/2) // one string, counted in each event that holds it
	for range 3 {
		r.Push(mcp.Event{Kind: mcp.EventCatalogChanged, Server: "b", Change: &mcp.CatalogChange{Added: []string{"tool:" + huge[5:]}}})
	}
	r.mu.Lock()
	q, bytes := slices.Clone(r.queue), r.bytes
	r.mu.Unlock()
	if bytes > MaxRelayBytes || len(q) == 0 || q[0].Server != "a" {
		t.Errorf("the relay holds %d bytes in %d events, first %+v; want at most %d (MaxRelayBytes) with a's state kept", bytes, len(q), q[0], MaxRelayBytes)
	}
	for i := range MaxRelayQueue + 5 {
		r.Push(mcp.Event{Kind: mcp.EventCatalogChanged, Server: fmt.Sprint("s", i)})
	}
	r.mu.Lock()
	n := len(r.queue)
	r.mu.Unlock()
	if n != MaxRelayQueue {
		t.Errorf("the relay holds %d catalog changes, want at most %d (MaxRelayQueue)", n, MaxRelayQueue)
	}
}
