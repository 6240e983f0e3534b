package tui

import (
	"context"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
)

// MaxRelayQueue bounds the events waiting for the program. Past it the
// oldest stderr lines and notifications are dropped (state changes never
// are), and the next batch says how many.
const MaxRelayQueue = 4096

// EventsMsg carries runtime events into the program, batched: the relay
// sends everything that arrived since its last send as one message.
type EventsMsg struct {
	Events []mcp.Event
	// Dropped counts events discarded because the queue was full.
	Dropped int
}

// Relay is the one path runtime events take into the program. Push (the
// runtime's OnEvent) never blocks; Run is the one goroutine that hands
// batches to the program. Production passes program.Send; tests pass
// teatest's TestModel.Send or their own collector.
type Relay struct {
	mu      sync.Mutex
	queue   []mcp.Event
	dropped int
	wake    chan struct{}
}

// NewRelay returns an empty relay.
func NewRelay() *Relay {
	return &Relay{wake: make(chan struct{}, 1)}
}

// Push queues an event. It is safe for concurrent use and never blocks, so
// it can be mcp.RuntimeOptions.OnEvent.
func (r *Relay) Push(e mcp.Event) {
	r.mu.Lock()
	r.queue = append(r.queue, e)
	if len(r.queue) > MaxRelayQueue {
		r.queue = dropOldest(r.queue, &r.dropped)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// dropOldest removes the oldest event that is not a state change; when
// every queued event is a state change, the oldest of those goes.
func dropOldest(q []mcp.Event, dropped *int) []mcp.Event {
	*dropped++
	for i, e := range q {
		if e.Kind != mcp.EventState {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q[1:]
}

// Run sends queued events to send until ctx ends. It is the relay's only
// goroutine: start it once, and cancel ctx to end it (send must return once
// the program has ended, as program.Send does).
func (r *Relay) Run(ctx context.Context, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		r.mu.Lock()
		batch, dropped := r.queue, r.dropped
		r.queue, r.dropped = nil, 0
		r.mu.Unlock()
		if len(batch) == 0 && dropped == 0 {
			continue
		}
		send(EventsMsg{Events: batch, Dropped: dropped})
	}
}
