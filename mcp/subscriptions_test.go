package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
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
			rt := startDemo(t, era, RuntimeOptions{OnEvent: log.add})
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

// A subscription lasts until it is ended: after a reconnect (a new
// connection starts with none) the runtime asks the server again, so its
// changes still arrive, on both eras.
func TestSubscriptionsSurviveAReconnect(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var log eventLog
			rt := startDemo(t, era, RuntimeOptions{OnEvent: log.add})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := rt.Subscribe(ctx, "demo", demo.LogURI); err != nil {
				t.Fatal(err)
			}
			old, _ := rt.Conn("demo")
			if err := rt.Reconnect("demo"); err != nil {
				t.Fatal(err)
			}
			if err := rt.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if cur, _ := rt.Conn("demo"); cur == old {
				t.Fatal("Reconnect kept the old connection")
			}
			args, _ := json.Marshal(map[string]any{"tool": demo.TouchTool, "arguments": map[string]any{"uri": demo.LogURI}})
			var out []byte
			// A modern listen stream opens asynchronously: touch until it lands.
			for i := 0; i < 100; i++ {
				var err error
				if out, err = rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(out), "Sent notifications/resources/updated") {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if !strings.Contains(string(out), "Sent notifications/resources/updated") {
				t.Fatalf("after the reconnect the server does not know the subscription: %s", out)
			}
			log.waitFor(t, "resource-updated", func(e Event) bool { return e.Kind == EventResourceUpdated && e.URI == demo.LogURI })
		})
	}
}

func TestListChangedRefreshesTheCatalogAndReportsWhatWasAdded(t *testing.T) {
	var log eventLog
	rt := startDemo(t, EraLegacy, RuntimeOptions{OnEvent: log.add})
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

// TestListChangedOnAModernServerAndABurstReportsEveryAddition: a
// 2026-07-28 server sends list_changed only on a listen stream that asks
// for it, with or without resource subscriptions; two notifications within
// the debounce still report both additions.
func TestListChangedOnAModernServerAndABurstReportsEveryAddition(t *testing.T) {
	for _, subscribe := range []bool{false, true} {
		t.Run(fmt.Sprintf("subscribed=%v", subscribe), func(t *testing.T) {
			log := &eventLog{}
			rt := startDemo(t, EraModern, RuntimeOptions{OnEvent: log.add})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := rt.Catalog(ctx, "demo", false); err != nil {
				t.Fatal(err)
			}
			if subscribe {
				if err := rt.Subscribe(ctx, "demo", demo.LogURI); err != nil {
					t.Fatal(err)
				}
			}
			// The listen stream opens asynchronously: add a note until one
			// change lands, then two in a burst.
			add := func(title string) {
				args, _ := json.Marshal(map[string]any{"tool": demo.AddNoteTool, "arguments": map[string]string{"title": title}})
				if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					t.Fatal(err)
				}
			}
			add("first")
			log.waitFor(t, "catalog-changed", func(e Event) bool { return e.Kind == EventCatalogChanged })
			add("second")
			add("third")
			e := log.waitFor(t, "catalog-changed with two additions", func(e Event) bool {
				return e.Kind == EventCatalogChanged && e.Change != nil && len(e.Change.Added) == 2
			})
			if !strings.Contains(strings.Join(e.Change.Added, " "), "extra-002") || !strings.Contains(strings.Join(e.Change.Added, " "), "extra-003") {
				t.Errorf("added %v", e.Change.Added)
			}
		})
	}
}

// Close may run while a modern server's listen stream is still opening
// (it opens beside the start): that must neither panic nor leave a stream
// nobody ends, and no stream opens after Close. Before the fix, the
// opening stored its stream into the map Close had just taken away.
func TestCloseWhileAListenStreamOpens(t *testing.T) {
	sc := fixture("demo")
	sc.Era = EraModern
	for i := range 5 {
		rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{})
		conn, err := rt.Conn("demo")
		if err != nil {
			t.Fatal(err)
		}
		rt.Close() // the stream opened at ready may still be opening
		if err := rt.relisten(conn, "demo"); err != nil {
			t.Errorf("run %d: relisten after Close: %v", i, err)
		}
		rt.subs.mu.Lock()
		open := len(rt.subs.listen)
		rt.subs.mu.Unlock()
		if open != 0 {
			t.Errorf("run %d: %d listen streams left after Close", i, open)
		}
	}
}

// A server that sends list_changed faster than CatalogRefreshDelay
// (notes added every 100 ms) is still listed again while it goes on:
// each notification put the refresh off again, so it never came until the
// storm stopped. CatalogRefreshMaxWait bounds that.
func TestAStormOfListChangedStillRefreshesTheCatalog(t *testing.T) {
	var log eventLog
	rt := startDemo(t, EraLegacy, RuntimeOptions{OnEvent: log.add})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := rt.Catalog(ctx, "demo", false); err != nil {
		t.Fatal(err)
	}
	var storming atomic.Bool
	storming.Store(true)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer storming.Store(false)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; i < 100; i++ { // 10 s of notifications at most
			args, _ := json.Marshal(map[string]any{"tool": demo.AddNoteTool, "arguments": map[string]any{"title": fmt.Sprintf("storm-%d", i)}})
			if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	e := log.waitFor(t, "catalog-changed", func(e Event) bool { return e.Kind == EventCatalogChanged })
	during := storming.Load()
	close(stop)
	<-done
	if !during {
		t.Errorf("the catalog was listed again only after the storm of list_changed ended (CatalogRefreshMaxWait %v)", CatalogRefreshMaxWait)
	}
	if e.Change == nil || len(e.Change.Added) == 0 {
		t.Errorf("the refresh during the storm reports no addition: %+v", e.Change)
	}
}

// refreshWait: a burst is listed CatalogRefreshDelay after its last
// notification, but no later than CatalogRefreshMaxWait after its first,
// and never sooner than CatalogRefreshGap after the last refresh ended.
func TestARefreshWaitsWithinItsBounds(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name             string
		now, first, last time.Duration // from t0; last < 0: no refresh yet
		want             time.Duration
	}{
		{"a first notification", 0, 0, -1, CatalogRefreshDelay},
		{"late in a burst", 1900 * time.Millisecond, 0, -1, 100 * time.Millisecond},
		{"past the burst's bound", 2500 * time.Millisecond, 0, -1, 0},
		{"right after a refresh", 5250 * time.Millisecond, 5250 * time.Millisecond, 5 * time.Second, 750 * time.Millisecond},
		{"long after a refresh", 9 * time.Second, 9 * time.Second, 5 * time.Second, CatalogRefreshDelay},
	} {
		var last time.Time
		if c.last >= 0 {
			last = t0.Add(c.last)
		}
		if got := refreshWait(t0.Add(c.now), t0.Add(c.first), last); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, got, c.want)
		}
	}
}
