package tui

import (
	"context"
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
