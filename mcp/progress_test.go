package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// startDemo starts the demo fixture on era and waits until it is ready.
func startDemo(t *testing.T, era Era, opts RuntimeOptions) *Runtime {
	t.Helper()
	sc := fixture("demo")
	sc.Era = era
	return startReady(t, &Config{Servers: []ServerConfig{sc}}, opts)
}

func startReady(t *testing.T, cfg *Config, opts RuntimeOptions) *Runtime {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	rt := NewRuntime(cfg, opts)
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	for _, sc := range cfg.Servers {
		if st, _ := rt.ServerStatus(sc.Name); st.State != StateReady {
			t.Fatalf("%s: %s %s", sc.Name, st.State, st.Reason)
		}
	}
	return rt
}

func TestProgressReachesTheCallersObserverAndEvents(t *testing.T) {
	var mu sync.Mutex
	var events []Progress
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{OnEvent: func(e Event) {
		if e.Kind == EventProgress {
			mu.Lock()
			events = append(events, *e.Progress)
			mu.Unlock()
		}
	}})
	var got []Progress
	var sawInFlight bool
	ctx := WithCallObserver(context.Background(), CallObserver{Owner: "pane-1/req-7", OnProgress: func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		if len(rt.InFlight()) == 1 {
			sawInFlight = true
		}
	}})
	if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", json.RawMessage(`{"tool":"slow","arguments":{"duration_ms":300,"steps":3}}`)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("observer got %d progress notifications, want the slow tool's 3 (mcp-go may drop the last)", len(got))
	}
	if got[0].Owner != "pane-1/req-7" || got[0].Method != "tools/call slow" || got[0].Total != 3 || got[0].Progress != 1 {
		t.Fatalf("first progress = %+v", got[0])
	}
	if len(events) != len(got) || events[0].Token != got[0].Token {
		t.Fatalf("events %+v do not match the observer's %+v", events, got)
	}
	if !sawInFlight {
		t.Fatal("InFlight did not list the call while it ran")
	}
	if n := len(rt.InFlight()); n != 0 {
		t.Fatalf("InFlight lists %d requests after the call ended", n)
	}
}

func TestCallWithoutProgressTimesOutNamingTheFix(t *testing.T) {
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("hostile")}}, RuntimeOptions{CallTimeout: 300 * time.Millisecond})
	began := time.Now()
	_, err := rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"never"}`))
	if !errors.Is(err, ErrNoProgress) || !strings.Contains(err.Error(), "no progress from hostile for 300ms") || !strings.Contains(err.Error(), `raise "timeout"`) {
		t.Fatalf("err = %v, want the idle timeout with its fix", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("the idle timeout took %v", d)
	}
}

func TestProgressResetsTheIdleTimer(t *testing.T) {
	// 12 steps of 100 ms under a 700 ms idle timeout: 1.2 s in all, never
	// 700 ms without progress (the margin absorbs a loaded machine).
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{CallTimeout: 700 * time.Millisecond})
	if _, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"slow","arguments":{"duration_ms":1200,"steps":12}}`)); err != nil {
		t.Fatalf("a call that keeps reporting progress timed out: %v", err)
	}
}

func TestCancelByTokenEndsTheCall(t *testing.T) {
	rt := startReady(t, &Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{})
	tokens := make(chan string, 8)
	ctx := WithCallObserver(context.Background(), CallObserver{OnProgress: func(p Progress) {
		select { // an observer must never block
		case tokens <- p.Token:
		default:
		}
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(ctx, "mcp_invoke_demo", json.RawMessage(`{"tool":"slow","arguments":{"duration_ms":5000,"steps":50}}`))
		errc <- err
	}()
	var tok string
	select {
	case tok = <-tokens:
	case err := <-errc:
		t.Fatalf("the slow call ended before any progress: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no progress from the slow tool")
	}
	if !rt.Cancel(tok) {
		t.Fatal("Cancel did not find the call")
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("a cancelled call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
}

func TestEntryTimeoutAcceptsDurationsAndSeconds(t *testing.T) {
	cfg, err := ParseConfig("t.json", []byte(`{"mcpServers": {"a": {"command": "x", "timeout": "90s"}, "b": {"command": "x", "timeout": 5}, "c": {"command": "x", "timeout": true}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"a": 90 * time.Second, "b": 5 * time.Second, "c": 0}
	for _, sc := range cfg.Servers {
		if sc.CallTimeout != want[sc.Name] {
			t.Errorf("%s: CallTimeout = %v, want %v", sc.Name, sc.CallTimeout, want[sc.Name])
		}
	}
}

// A person answering a server's question is not a stalled server: the
// idle timeout waits for them.
func TestInteropIdleTimeoutWaitsWhileThePersonAnswersAnElicitation(t *testing.T) {
	sc := peer(t, "everything", "@modelcontextprotocol/server-everything", "stdio")
	// The person takes two and a half idle timeouts. (A whole number of
	// them made the answer land as the timer fired, which once failed the
	// call: TestAnAnswerThatLandsAsTheIdleTimerFiresKeepsTheRequest.)
	const idle = 2 * time.Second
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CallTimeout: idle,
		Elicit: func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error) {
			time.Sleep(5 * idle / 2)
			return acceptWithName(req), nil
		}})
	if _, err := rt.Catalog(context.Background(), "everything", false); err != nil {
		t.Fatal(err)
	}
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_everything", json.RawMessage(`{"tool":"trigger-elicitation-request"}`))
	if err != nil || !strings.Contains(string(out), "accept") {
		t.Fatalf("call = %.300s, %v", out, err)
	}
}

func TestOptionalTaskToolRunsAsATaskOnlyWhenTheCallerPrefersIt(t *testing.T) {
	legacy, modern := fixture("tasks-optional"), fixture("tasks-optional")
	legacy.Era, modern.Name, modern.Era = EraLegacy, "modern", EraModern
	rt := startReady(t, &Config{Servers: []ServerConfig{legacy, modern}}, RuntimeOptions{})
	cat, err := rt.Catalog(context.Background(), "tasks-optional", false)
	if err != nil {
		t.Fatal(err)
	}
	if it, ok := cat.Lookup(KindTool, "brew"); !ok || it.TaskSupport != "optional" {
		t.Fatalf("brew: %+v (found %v)", it, ok)
	}
	call := func(prefer bool, server string) (sawTask bool) {
		ctx := WithCallObserver(context.Background(), CallObserver{Owner: "t", PreferTask: prefer})
		done := make(chan error, 1)
		go func() {
			out, err := rt.CallMeta(ctx, "mcp_invoke_"+server, json.RawMessage(`{"tool":"brew","arguments":{"brew_ms":1500}}`))
			if err == nil && !strings.Contains(string(out), "brewed") {
				err = fmt.Errorf("result %s", out)
			}
			done <- err
		}()
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				return sawTask
			case <-time.After(20 * time.Millisecond):
				for _, tk := range rt.Tasks() {
					sawTask = sawTask || tk.Tool == "brew" && tk.Owner == "t"
				}
			}
		}
	}
	if call(false, "tasks-optional") {
		t.Error("an optional-task tool ran as a task though the caller did not ask")
	}
	if !call(true, "tasks-optional") {
		t.Error("PreferTask did not run the optional-task tool as a task")
	}
	// 2026-07-28 has no tasks/result: the same call runs plainly there.
	if call(true, "modern") {
		t.Error("an optional-task tool ran as a task on a 2026-07-28 connection")
	}
}

// A person who answers a server's question just as the idle timer fires
// does not fail the request: the timer sees the hold released and the
// touch that came with it. In a synctest bubble the two land at the same
// instant, in either order; the loop tries both orders many times.
func TestAnAnswerThatLandsAsTheIdleTimerFiresKeepsTheRequest(t *testing.T) {
	const idle = time.Second
	for range 200 {
		synctest.Test(t, func(t *testing.T) {
			r := &Runtime{}
			f := &inflight{info: InFlight{Server: "s", Token: "t"}, poke: make(chan struct{}, 1)}
			r.progress.calls = map[string]*inflight{"t": f}
			var expired atomic.Bool
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				r.watchIdle(context.Background(), stop, f, idle, func() { expired.Store(true) })
			}()
			release := r.hold("s")
			time.Sleep(2 * idle) // the person answers as the timer fires again
			release()
			time.Sleep(idle / 2) // the server answers within half a timeout
			synctest.Wait()
			if expired.Load() {
				t.Fatal("the request timed out as the person answered")
			}
			close(stop)
			<-done
		})
	}
}
