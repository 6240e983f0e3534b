package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

type eventLog struct {
	mu sync.Mutex
	ev []Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.ev = append(l.ev, e)
	l.mu.Unlock()
}

func (l *eventLog) waitFor(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		for _, e := range l.ev {
			if ok(e) {
				l.mu.Unlock()
				return e
			}
		}
		l.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s event within 10s", what)
	return Event{}
}

func TestSubscribedResourceUpdatesArriveAsEventsOnBothEras(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var log eventLog
			sc := fixture("demo")
			sc.Era = era
			rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{OnEvent: log.add})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := rt.Subscribe(ctx, "demo", demo.LogURI); err != nil {
				t.Fatal(err)
			}
			if got := rt.Subscriptions("demo"); len(got) != 1 || got[0] != demo.LogURI {
				t.Fatalf("Subscriptions = %v", got)
			}
			args, _ := json.Marshal(map[string]any{"tool": demo.TouchTool, "arguments": map[string]any{"uri": demo.LogURI}})
			var out []byte
			var err error
			// A modern listen stream opens asynchronously: touch until it lands.
			for i := 0; i < 50; i++ {
				if out, err = rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(out), "Sent notifications/resources/updated") {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			e := log.waitFor(t, "resource-updated", func(e Event) bool { return e.Kind == EventResourceUpdated })
			if e.URI != demo.LogURI || e.Server != "demo" {
				t.Fatalf("event = %+v", e)
			}
			if err := rt.Unsubscribe(ctx, "demo", demo.LogURI); err != nil {
				t.Fatal(err)
			}
			if got := rt.Subscriptions("demo"); len(got) != 0 {
				t.Fatalf("Subscriptions after Unsubscribe = %v", got)
			}
		})
	}
}

func TestListChangedRefreshesTheCatalogAndReportsWhatWasAdded(t *testing.T) {
	var log eventLog
	sc := fixture("demo")
	sc.Era = EraLegacy
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{OnEvent: log.add})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := rt.Catalog(ctx, "demo", false); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"tool": demo.AddNoteTool, "arguments": map[string]any{"title": "howl-note"}})
	if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
		t.Fatal(err)
	}
	e := log.waitFor(t, "catalog-changed", func(e Event) bool { return e.Kind == EventCatalogChanged })
	if e.Change == nil || len(e.Change.Added) != 1 || !strings.HasPrefix(e.Change.Added[0], "resource:") || len(e.Change.Removed) != 0 {
		t.Fatalf("change = %+v, want one added resource", e.Change)
	}
}
