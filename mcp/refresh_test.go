package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

// The slow-lister fixture is a server whose tools/list is slow on demand.
// Its tool "change" adds a tool (t-001, t-002, ...) and sends
// tools/list_changed; "quiet-change" adds one and says nothing. Each
// tools/list answers what the server had when the request arrived, after
// slowListDelayEnv; the first to find the file "hold" in slowListDirEnv
// renames it "held" and answers once "held" is removed. A tools/list
// arriving while another is unanswered writes "overlap".
const (
	slowListDirEnv   = "HOWL_TEST_SLOW_LIST_DIR"
	slowListDelayEnv = "HOWL_TEST_SLOW_LIST_DELAY"
)

func slowLister(dir string, delay time.Duration) ServerConfig {
	sc := fixture("slow-lister")
	sc.Era = EraLegacy
	sc.Env[slowListDirEnv] = dir
	sc.Env[slowListDelayEnv] = delay.String()
	return sc
}

func serveSlowLister() int {
	dir := os.Getenv(slowListDirEnv)
	delay, _ := time.ParseDuration(os.Getenv(slowListDelayEnv))
	var mu sync.Mutex
	tools := []string{"change", "quiet-change"}
	inflight := 0
	s := server.NewMCPServer("slow-lister", "1.0", server.WithToolCapabilities(true))
	return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
		switch method {
		case "tools/list":
			mu.Lock()
			var list []map[string]any
			for _, name := range tools {
				list = append(list, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
			}
			inflight++
			if inflight > 1 {
				_ = os.WriteFile(filepath.Join(dir, "overlap"), nil, 0o600)
			}
			held := os.Rename(filepath.Join(dir, "hold"), filepath.Join(dir, "held")) == nil
			mu.Unlock()
			reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"tools": list}})
			go func() {
				time.Sleep(delay) // the server's own slowness
				for held {
					if _, err := os.Stat(filepath.Join(dir, "held")); err != nil {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				mu.Lock()
				inflight--
				mu.Unlock()
				writeLine(reply)
			}()
			return []byte{}
		case "tools/call":
			var p struct{ Name string }
			if json.Unmarshal(params, &p) != nil || p.Name != "change" && p.Name != "quiet-change" {
				return nil
			}
			mu.Lock()
			added := fmt.Sprintf("t-%03d", len(tools)-1)
			tools = append(tools, added)
			mu.Unlock()
			if p.Name == "change" {
				writeLine([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
			}
			reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": mcpgo.NewToolResultText(added)})
			return reply
		}
		return nil
	}, nil)
}

// startSlowLister starts a slow-lister in dir (see slowLister), lists its
// catalog once, and returns the runtime and the connection (to call the
// fixture's tools directly, as a server's own doing, without a listing).
func startSlowLister(t *testing.T, ctx context.Context, dir string, delay time.Duration, log *eventLog) (*Runtime, *Conn) {
	t.Helper()
	rt := startReady(t, &Config{Servers: []ServerConfig{slowLister(dir, delay)}}, RuntimeOptions{OnEvent: log.add})
	if _, err := rt.Catalog(ctx, "slow-lister", false); err != nil {
		t.Fatal(err)
	}
	conn, err := rt.Conn("slow-lister")
	if err != nil {
		t.Fatal(err)
	}
	return rt, conn
}

// cachedCatalog is the catalog the runtime holds for server, without
// listing (a listing of the test's own would overlap the refreshes').
func cachedCatalog(rt *Runtime, server string) *Catalog {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if s := rt.servers[server]; s != nil {
		return s.catalog
	}
	return nil
}

func catalogIDs(c *Catalog) []string {
	var ids []string
	if c != nil {
		for _, it := range c.Items {
			ids = append(ids, it.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// A storm of list_changed at a server whose listing is slower than the
// storm: each server's refreshes run one at a time (a burst during a
// listing schedules one more, after it), so no listing ever overlaps
// another, every added tool is reported, and the catalog cached at the end
// is the newest. Before, a refresh started while the last still listed:
// listings overlapped, and the notifications during a listing found no
// catalog to diff against, so their additions went unreported.
func TestRefreshesOfAServerNeverOverlapAndTheNewestListingWins(t *testing.T) {
	dir := t.TempDir()
	var log eventLog
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rt, conn := startSlowLister(t, ctx, dir, 600*time.Millisecond, &log)
	// A notification every 250 ms: past CatalogRefreshDelay, so each
	// would start a refresh while the last one (600 ms) still lists.
	const changes = 16
	var want []string
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for i := range changes {
		if _, err := conn.CallRaw(ctx, "change", nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("t-%03d", i+1))
		<-tick.C
	}
	reported := map[string]bool{}
	var events int
	deadline := time.Now().Add(30 * time.Second)
	for {
		log.mu.Lock()
		events = 0
		for _, e := range log.ev {
			if e.Kind == EventCatalogChanged && e.Change != nil {
				events++
				for _, k := range e.Change.Added {
					reported[k] = true
				}
				if len(e.Change.Removed) > 0 {
					t.Errorf("a refresh reports %v removed: an older listing landed after a newer one", e.Change.Removed)
				}
			}
		}
		log.mu.Unlock()
		if len(catalogIDs(cachedCatalog(rt, "slow-lister"))) == changes+2 && len(reported) == changes {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("after the storm: the cached catalog holds %v, the refreshes reported %d additions of %d", catalogIDs(cachedCatalog(rt, "slow-lister")), len(reported), changes)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range want {
		if !reported["tool:"+id] {
			t.Errorf("the addition of %s was never reported", id)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "overlap")); err == nil {
		t.Error("two listings of the server overlapped: a refresh began while the last was still listing")
	}
	t.Logf("%d changes, %d catalog-changed events", changes, events)
}

// listChangedSeen counts the tools/list_changed notifications in log
// (its lock held by waitFor).
func listChangedSeen(log *eventLog) int {
	n := 0
	for _, e := range log.ev {
		if e.Kind == EventNotification && e.Method == "notifications/tools/list_changed" {
			n++
		}
	}
	return n
}

// Of two listings of a server at once, the one begun later is cached,
// even when the earlier one ends after it: the earlier one answered what
// the server had before. Before, whichever ended last was cached.
func TestTheListingBegunLastIsCachedWhenAnEarlierEndsAfterIt(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rt, conn := startSlowLister(t, ctx, dir, 0, &eventLog{})
	if err := os.WriteFile(filepath.Join(dir, "hold"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	earlier := make(chan error, 1)
	go func() {
		_, err := rt.Catalog(ctx, "slow-lister", true)
		earlier <- err
	}()
	waitForFile(t, filepath.Join(dir, "held")) // the server answers it as it was
	if _, err := conn.CallRaw(ctx, "quiet-change", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Catalog(ctx, "slow-lister", true); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "held")); err != nil {
		t.Fatal(err)
	}
	if err := <-earlier; err != nil {
		t.Fatal(err)
	}
	want := []string{"change", "quiet-change", "t-001"}
	if got := catalogIDs(cachedCatalog(rt, "slow-lister")); !slices.Equal(got, want) {
		t.Errorf("cached catalog %v, want the later listing's %v", got, want)
	}
}

// refreshOf is server's refresh state (nil: none kept).
func refreshOf(rt *Runtime, server string) *refreshState {
	rt.subs.mu.Lock()
	defer rt.subs.mu.Unlock()
	return rt.subs.refreshes[server]
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 20 s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server removed by a reload keeps nothing of its catalog refreshes:
// not the timer of a burst still waiting (it would list a server that is
// gone), and not the end of a refresh that was listing when it went (whose
// deferred write used to put the server's entry back). Nothing is
// reported for it afterwards, and no goroutine is left.
func TestARemovedServerKeepsNoCatalogRefreshBehind(t *testing.T) {
	t.Run("while listing", func(t *testing.T) {
		dir := t.TempDir()
		var log eventLog
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		rt, conn := startSlowLister(t, ctx, dir, 0, &log)
		if err := os.WriteFile(filepath.Join(dir, "hold"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.CallRaw(ctx, "change", nil); err != nil {
			t.Fatal(err)
		}
		waitForFile(t, filepath.Join(dir, "held")) // the refresh is listing
		st := refreshOf(rt, "slow-lister")
		if st == nil {
			t.Fatal("no refresh state while the refresh lists")
		}
		rt.Apply(&Config{}, ReloadResult{})
		if refreshOf(rt, "slow-lister") != nil {
			t.Error("the removed server's refresh state is kept")
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			rt.subs.mu.Lock()
			running := st.running
			rt.subs.mu.Unlock()
			if !running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the refresh of the removed server did not end within 20 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if refreshOf(rt, "slow-lister") != nil {
			t.Error("the refresh that was listing when the server was removed put its entry back")
		}
		log.mu.Lock()
		for _, e := range log.ev {
			if e.Kind == EventCatalogChanged {
				t.Errorf("a catalog change was reported for the removed server: %+v", e.Change)
			}
		}
		log.mu.Unlock()
	})
	t.Run("waiting", func(t *testing.T) {
		ignore := goleak.IgnoreCurrent()
		dir := t.TempDir()
		var log eventLog
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		rt, conn := startSlowLister(t, ctx, dir, 0, &log)
		if _, err := conn.CallRaw(ctx, "change", nil); err != nil {
			t.Fatal(err)
		}
		log.waitFor(t, "catalog-changed", func(e Event) bool { return e.Kind == EventCatalogChanged })
		// The next burst waits CatalogRefreshGap after that refresh.
		if _, err := conn.CallRaw(ctx, "change", nil); err != nil {
			t.Fatal(err)
		}
		log.waitFor(t, "the second list_changed", func(e Event) bool {
			return e.Kind == EventNotification && e.Method == "notifications/tools/list_changed" && listChangedSeen(&log) == 2
		})
		rt.Apply(&Config{}, ReloadResult{})
		if refreshOf(rt, "slow-lister") != nil {
			t.Error("the removed server's refresh timer and state are kept")
		}
		rt.Close()
		goleak.VerifyNone(t, ignore)
	})
}
