package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/mark3labs/mcp-go/client/transport"
)

func TestDemoServerListsAllFourKindsAndEveryPage(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	st, _ := rt.ServerStatus("demo")
	if st.State != StateReady {
		t.Fatalf("demo state = %s (%s), want ready", st.State, st.Reason)
	}
	f := st.Features
	if f == nil || !f.Tools || !f.Resources || !f.Prompts || !f.Completions || !f.Logging || !f.PeerInfoKnown {
		t.Fatalf("demo features = %+v, want tools, resources, prompts, completions, logging, peer info known", f)
	}
	cat, err := rt.Catalog(context.Background(), "demo", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Warnings) > 0 {
		t.Errorf("unexpected warnings: %v", cat.Warnings)
	}
	for _, k := range Kinds {
		if cat.Count(k) == 0 {
			t.Errorf("no %s items listed", k)
		}
	}
	// The demo serves resources 50 to a page: 120+ means pages were followed.
	if n := cat.Count(KindResource); n < 120 {
		t.Errorf("listed %d resources, want at least 120 (every page)", n)
	}
	for _, tmpl := range cat.Of(KindTemplate) {
		if len(tmpl.Variables) == 0 {
			t.Errorf("template %s: no variables parsed", tmpl.ID)
		}
	}
	var withRequired bool
	for _, p := range cat.Of(KindPrompt) {
		for _, a := range p.Arguments {
			withRequired = withRequired || a.Required
		}
	}
	if !withRequired {
		t.Error("no prompt argument is marked required")
	}
}

func TestCatalogDegradesWhenOneKindFails(t *testing.T) {
	rt := startRuntime(t, fixture("degraded"))
	cat, err := rt.Catalog(context.Background(), "degraded", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup(KindTool, "echo"); !ok {
		t.Fatalf("tools did not survive the failing resources listing: %+v", cat.Items)
	}
	if cat.Count(KindResource) != 0 {
		t.Errorf("resources listed despite the failure: %d", cat.Count(KindResource))
	}
	var resWarn, malformed int
	for _, w := range cat.Warnings {
		if w.Kind == KindResource && strings.Contains(w.Reason, "resource index is corrupt") {
			resWarn++
		}
		if w.Kind == KindTool && strings.Contains(w.Reason, "skipped") {
			malformed++
		}
	}
	if resWarn != 1 {
		t.Errorf("want one resource warning carrying the server's reason, got %v", cat.Warnings)
	}
	if malformed != 2 {
		t.Errorf("want the two malformed tools skipped with warnings, got %v", cat.Warnings)
	}
}

func TestServerThatExitsAtStartFailsWithStderrTailAndOthersWork(t *testing.T) {
	rt := startRuntime(t, fixture("exit-at-start"), fixture("demo"))
	st, _ := rt.ServerStatus("exit-at-start")
	if st.State != StateFailed {
		t.Fatalf("state = %s, want failed", st.State)
	}
	if !strings.Contains(st.StderrTail, "cannot open database") {
		t.Errorf("stderr tail %q does not carry the server's last words", st.StderrTail)
	}
	// The reason says the process exited, and how, not only that the
	// transport closed.
	if !strings.Contains(st.Reason, "the server process exited with status 3 before answering") {
		t.Errorf("reason %q does not say the process exited with status 3", st.Reason)
	}
	if _, err := rt.Conn("exit-at-start"); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("Conn on a failed server: err = %v, want it to say failed", err)
	}
	if st, _ := rt.ServerStatus("demo"); st.State != StateReady {
		t.Errorf("demo state = %s (%s): one failure must not affect others", st.State, st.Reason)
	}
	if _, err := rt.Catalog(context.Background(), "demo", false); err != nil {
		t.Errorf("demo catalog: %v", err)
	}
}

// TestServerThatDiesWhileListedIsFailedWhenTheListingReturns: a server
// that exits (status 3, its last words on stderr) on tools/list, or in
// the middle of its answer, is failed by the time its listing returns,
// with how it ended, what it was asked and its stderr tail; not ready
// with a "transport closed" warning. The other server still lists.
func TestServerThatDiesWhileListedIsFailedWhenTheListingReturns(t *testing.T) {
	lists := map[string]func(*Runtime, string) error{
		"Listing": func(rt *Runtime, name string) error {
			l, err := rt.Listing(context.Background(), name)
			if err == nil {
				defer l.Close()
				return fmt.Errorf("listed, with warnings %v", l.Warnings)
			}
			return err
		},
		"Catalog": func(rt *Runtime, name string) error {
			cat, err := rt.Catalog(context.Background(), name, false)
			if err == nil {
				return fmt.Errorf("listed, with warnings %v", cat.Warnings)
			}
			return err
		},
	}
	for _, name := range []string{"dies-on-tools-list", "dies-mid-answer"} {
		for how, list := range lists {
			t.Run(name+"/"+how, func(t *testing.T) {
				rt := startRuntime(t, fixture(name), fixture("demo"))
				err := list(rt, name)
				want := fmt.Sprintf("server process exited with status %d during tools/list", mcptest.DiesOnToolsListStatus)
				if !strings.Contains(err.Error(), "server "+name+" failed: "+want) {
					t.Errorf("the listing's error %q does not say the server failed and how", err)
				}
				st, _ := rt.ServerStatus(name)
				if st.State != StateFailed || !strings.Contains(st.Reason, want) {
					t.Errorf("after the listing: state %s (%s), want failed: %s", st.State, st.Reason, want)
				}
				if !strings.Contains(st.StderrTail, mcptest.DiesOnToolsListWords) {
					t.Errorf("stderr tail %q does not carry the server's last words", st.StderrTail)
				}
				if _, err := rt.Conn(name); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Conn on the dead server: err = %v, want %q", err, want)
				}
				if cat, err := rt.Catalog(context.Background(), "demo", false); err != nil || len(cat.Items) == 0 {
					t.Errorf("demo after the other died: %v", err)
				}
			})
		}
	}
}

// A call to a server that dies answering it says how the server ended,
// as its status does, not a guess that sends the person to look.
func TestACallToAServerThatDiesSaysHowItEnded(t *testing.T) {
	const name = "dies-on-tools-call"
	rt := startRuntime(t, fixture(name))
	_, err := rt.CallMeta(context.Background(), "mcp_invoke_"+name, json.RawMessage(`{"tool":"`+mcptest.CrashTool+`"}`))
	reason := fmt.Sprintf("server process exited with status %d during tools/call: reconnect it to try again", mcptest.DiesOnToolsListStatus)
	if want := "tools/call got no answer from " + name + ": the connection closed before the answer came: " + reason; err == nil || err.Error() != want || !errors.Is(err, transport.ErrTransportClosed) {
		t.Errorf("the call's error %q, want %q", err, want)
	}
	if st, _ := rt.ServerStatus(name); st.State != StateFailed || st.Reason != reason {
		t.Errorf("after the call: state %s (%s), want failed: %s", st.State, st.Reason, reason)
	}
}

// An app's reads (its HTML, the resources it asks for) are tracked like
// every read: a server that dies answering one says how it ended, not a
// guess that sends the person to look.
func TestAnAppsReadOfAServerThatDiesSaysHowItEnded(t *testing.T) {
	const name = "dies-on-resources-read"
	reason := fmt.Sprintf("server process exited with status %d during resources/read: reconnect it to try again", mcptest.DiesOnToolsListStatus)
	for _, read := range []struct {
		what string
		do   func(*Runtime) error
	}{
		{"ReadApp", func(rt *Runtime) error {
			_, err := rt.ReadApp(context.Background(), name, "ui://dies/app.html")
			return err
		}},
		{"ReadResourceRaw", func(rt *Runtime) error {
			_, err := rt.ReadResourceRaw(context.Background(), name, "file:///dies.txt")
			return err
		}},
	} {
		t.Run(read.what, func(t *testing.T) {
			rt := startRuntime(t, fixture(name))
			err := read.do(rt)
			if want := "resources/read got no answer from " + name + ": the connection closed before the answer came: " + reason; err == nil || err.Error() != want || !errors.Is(err, transport.ErrTransportClosed) {
				t.Errorf("the read's error %q, want %q", err, want)
			}
		})
	}
}

// TestAServerThatDiesNamesTheRequestItDiedOnThoughItsCallerGaveUp: the
// TUI cancels a server's listing the moment the server is failed, so the
// request the server died answering may end as cancelled, not as closed,
// and never say what it was. The exit watcher names the oldest request
// still waiting instead. The fixture's child holds its stdout open, so
// the connection is seen to close only after the caller has given up
// (the test holds the failed event until the call has returned).
func TestAServerThatDiesNamesTheRequestItDiedOnThoughItsCallerGaveUp(t *testing.T) {
	const name = "dies-on-tools-call-holding-stdout"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan error, 1)
	rt := startRuntimeWith(t, RuntimeOptions{OnEvent: func(e Event) {
		if e.Kind == EventState && e.Status.State == StateFailed && ctx.Err() == nil {
			cancel()
			select { // the call gives up before the exit watcher goes on
			case err := <-returned:
				returned <- err
			case <-time.After(10 * time.Second):
			}
		}
	}}, fixture(name))
	_, err := rt.CallMeta(ctx, "mcp_invoke_"+name, json.RawMessage(`{"tool":"`+mcptest.CrashTool+`"}`))
	returned <- err
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the call's error %v, want it cancelled (the fixture's child should hold the connection open)", err)
	}
	want := fmt.Sprintf("server process exited with status %d during tools/call: reconnect it to try again", mcptest.DiesOnToolsListStatus)
	if st, _ := rt.ServerStatus(name); st.State != StateFailed || st.Reason != want {
		t.Errorf("state %s (%s), want failed: %s", st.State, st.Reason, want)
	}
}

// TestServerThatHangsUpWhileListedIsFailedWithoutAnExit: a server that
// closes its stdout on tools/list but runs on can answer nothing more:
// lostExitWait after the listing saw the connection close it is failed,
// saying its process still runs, and ended.
func TestServerThatHangsUpWhileListedIsFailedWithoutAnExit(t *testing.T) {
	rt := startRuntime(t, fixture("hangs-up-on-tools-list"))
	conn, err := rt.Conn("hangs-up-on-tools-list")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err = rt.Listing(context.Background(), "hangs-up-on-tools-list")
	took := time.Since(began)
	want := fmt.Sprintf("the connection to the server closed during tools/list, and the server process was still running %s later: reconnect it", lostExitWait)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("listing: err = %v, want %q", err, want)
	}
	if took < lostExitWait || took > lostExitWait+5*time.Second {
		t.Errorf("the listing returned after %v, want lostExitWait (%v) and a little", took, lostExitWait)
	}
	if st, _ := rt.ServerStatus("hangs-up-on-tools-list"); st.State != StateFailed || !strings.Contains(st.StderrTail, mcptest.DiesOnToolsListWords) {
		t.Errorf("state %s (%s), stderr tail %q: want failed with its last words", st.State, st.Reason, st.StderrTail)
	}
	// The process that hung up is ended, not left running: the runtime
	// closes it by itself, and its Close waits for that.
	deadline := time.Now().Add(5 * time.Second)
	for !conn.closing.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !conn.closing.Load() {
		t.Error("the runtime did not end the server that hung up")
	}
	rt.Close()
	if !conn.exited() {
		t.Error("the server that hung up still runs after the runtime closed")
	}
}

func TestCloseKillsAServerThatIgnoresEOFAndSIGTERM(t *testing.T) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("deaf-on-eof")}}, RuntimeOptions{CacheDir: t.TempDir()})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	_, took := closeTimed(t, rt, "deaf-on-eof")
	if took > 3*time.Second {
		t.Errorf("Close took %v, want under 3s", took)
	}
}

func TestRepeatingCursorStopsWithAWarning(t *testing.T) {
	rt := startRuntime(t, fixture("paging-loop"))
	cat, err := rt.Catalog(context.Background(), "paging-loop", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Warnings) == 0 || !strings.Contains(cat.Warnings[0].Reason, "repeated cursor") {
		t.Fatalf("warnings = %v, want a repeated-cursor warning", cat.Warnings)
	}
	if cat.Count(KindResource) != 1 {
		t.Errorf("resources = %d, want the one distinct item", cat.Count(KindResource))
	}
}

// longCursorPages is how many empty pages the paging-long-cursors
// fixture sends, each with a new cursor of 1 MiB.
const longCursorPages = 32

// A listing keeps a digest of each cursor it followed, not the cursor: a
// server that sends a new 1 MiB cursor with every empty page does not
// make howl hold them all (MaxListPages of them was 5,000 messages' worth).
func TestAListingDoesNotHoldTheCursorsItFollowed(t *testing.T) {
	rt := startRuntime(t, fixture("paging-long-cursors"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The peak counts garbage not yet collected too: collected early, it
	// is what the listing holds, not how late the collector ran on a
	// loaded machine (24-28 MiB seen there against a bound of 24).
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	mem := mcptest.WatchMemory(math.MaxUint64, nil)
	cat, err := rt.Catalog(ctx, "paging-long-cursors", true)
	held := mem.Held()
	if err != nil {
		t.Fatal(err)
	}
	if cat.Count(KindResource) != 1 || len(cat.Warnings) != 0 {
		t.Errorf("resources = %d, warnings %v: want the last page's one item", cat.Count(KindResource), cat.Warnings)
	}
	t.Logf("held %d MiB", held>>20)
	if held > 24<<20 {
		t.Errorf("following %d cursors of 1 MiB held %d MiB at the peak, want under 24", longCursorPages, held>>20)
	}
}

func TestReconnectBringsAServerBack(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	before, _ := rt.Conn("demo")
	if err := rt.Reconnect("demo"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := rt.Conn("demo")
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("Reconnect kept the old connection")
	}
	if before.cmd.ProcessState == nil {
		t.Error("the old child was not ended")
	}
}

func TestUnknownServerErrorNamesTheKnownOnes(t *testing.T) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	_, err := rt.Conn("nope")
	if err == nil || !strings.Contains(err.Error(), "demo") {
		t.Fatalf("err = %v, want it to list demo", err)
	}
}

func TestEraIsLearnedPerServer(t *testing.T) {
	dir := t.TempDir()
	sc := fixture("demo")
	sc.Era = EraAuto
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: dir})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	st, _ := rt.ServerStatus("demo")
	rt.Close()
	if st.State != StateReady {
		t.Fatalf("state %s: %s", st.State, st.Reason)
	}
	book := loadEraBook(dir + "/eras.json")
	if got := book.get(sc); got != EraModern {
		t.Errorf("learned era = %s after a %s handshake, want modern", got, st.Protocol)
	}
}

func TestAServerThatNeverAnswersSaysHowLongItWasGiven(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("SKIP: its mute server is a 'sh -c' command line and there is no sh here:", err)
	}
	sc := ServerConfig{Name: "mute", Transport: TransportStdio, Command: "sh", Args: []string{"-c", "sleep 30"}, Era: EraLegacy, StartTimeout: 700 * time.Millisecond, ShutdownGrace: 10 * time.Millisecond}
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	st, _ := rt.ServerStatus("mute")
	if st.State != StateFailed || !strings.Contains(st.Reason, "did not answer within 700ms") || !strings.Contains(st.Reason, `"startTimeout"`) {
		t.Errorf("a start timeout must say how long and what to change: %s %q", st.State, st.Reason)
	}
}

// TestALookedUpToolKeepsItsCompiledSchema: a tool found without listing
// the whole catalog is found in the same one-item catalog each time, so
// the schema its arguments are checked against is compiled once, not on
// every call.
func TestALookedUpToolKeepsItsCompiledSchema(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	ctx := context.Background()
	args := json.RawMessage(`{"tool":"echo","arguments":{"message":"hello"}}`)
	var cats []*Catalog
	for range 2 {
		if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
			t.Fatal(err)
		}
		_, ok, cat, err := rt.Item(ctx, "demo", KindTool, "echo")
		if err != nil || !ok {
			t.Fatalf("echo: %v %v", ok, err)
		}
		cats = append(cats, cat)
	}
	if cats[0] != cats[1] {
		t.Error("each lookup of echo made a catalog of its own, and CheckArguments compiled echo's schema again in each")
	}
	if _, ok := cats[0].schemas.Load("echo"); !ok {
		t.Error("echo's schema is not kept in the catalog it was found in")
	}
}
