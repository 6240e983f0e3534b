package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// writeDemoConfig writes a config whose servers each run the demo.
func writeDemoConfig(t *testing.T, path string, names ...string) {
	t.Helper()
	writeDemoConfigWith(t, path, nil, names...)
}

// writeDemoConfigWith is writeDemoConfig with extra fields in each entry.
func writeDemoConfigWith(t *testing.T, path string, extra map[string]any, names ...string) {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		sc := demoServer(n)
		e := map[string]any{"command": sc.Command, "args": sc.Args, "protocol": "modern"}
		for k, v := range extra {
			e[k] = v
		}
		servers[n] = e
	}
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// reloadHarness is the chat over a runtime whose config file (path)
// holds the demo as "mine", with a Reloader behind `.mcp reload`; relay
// hands the runtime's events so far to the program, as the relay does.
func reloadHarness(t *testing.T, o Options) (hs *harness, rt *mcp.Runtime, path string, relay func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "mcp.json")
	writeDemoConfig(t, path, "mine")
	opts := mcp.LoadOptions{Path: path, Trust: mcp.NewTrustStore(filepath.Join(t.TempDir(), "trust.json"))}
	cfg, err := mcp.LoadConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []mcp.Event
	rt = mcp.NewRuntime(cfg, mcp.RuntimeOptions{CacheDir: filepath.Join(testCacheDir, "cache"),
		Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")),
		OnEvent: func(e mcp.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}})
	t.Cleanup(func() { rt.Close() })
	rl := mcp.NewReloader(rt, cfg, opts)
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	o.Reload = rl.Reload
	hs = newChatHarness(t, rt, []string{"mine"}, 180, 40, o)
	relay = func() {
		mu.Lock()
		batch := events
		events = nil
		mu.Unlock()
		hs.send(EventsMsg{Events: batch})
	}
	waitRuntime(t, rt)
	relay()
	return hs, rt, path, relay
}

func TestMCPReloadSaysWhatChangedAndTheCatalogFollows(t *testing.T) {
	hs, rt, path, relay := reloadHarness(t, Options{})
	defer hs.dumpOnFailure()

	hs.line(".mcp reload")
	if v := hs.view(); !strings.Contains(v, "config reloaded: nothing changed (1 server kept)") {
		t.Fatalf("a reload that changes nothing must say so:\n%s", v)
	}
	writeDemoConfig(t, path, "mine", "second")
	hs.line(".mcp reload")
	relay() // the reload's event, as the relay brings it
	if v := hs.view(); strings.Count(v, "config reloaded: started second; 1 server kept") != 2 {
		t.Fatalf("the chat and the status bar must say what the reload changed, once each:\n%s", v)
	}
	waitRuntime(t, rt)
	relay()
	hs.line(".mcp")
	if v := hs.view(); !strings.Contains(v, "second") || !strings.Contains(v, "ready") {
		t.Errorf("the new server must be listed, ready:\n%s", v)
	}
	if v := hs.view(); !strings.Contains(v, "Tools 30") {
		t.Errorf("the new server's tools must be in the catalog:\n%s", v)
	}
	// A tool switched off in the file: marked at once, nothing restarts.
	writeDemoConfigWith(t, path, map[string]any{"disabledTools": []string{"echo"}}, "mine", "second")
	hs.line(".mcp reload")
	relay()
	if v := hs.view(); !strings.Contains(v, "config reloaded: switched tools of mine, second; 2 servers kept") || !strings.Contains(v, "Tools 30 (2 off)") {
		t.Errorf("a disabledTools change must show in the catalog's count:\n%s", v)
	}
	if got := hs.m.chat.Servers(); fmt.Sprint(got) != "[mine second]" {
		t.Errorf("the chat's servers = %v", got)
	}

	if err := os.WriteFile(path, []byte("{\"mcpServers\": {\n  \"mine\": {\"command\": \"x\"\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs.line(".mcp reload")
	relay()
	v := hs.view()
	if !strings.Contains(v, "the config was not reloaded, the servers run as before") || !strings.Contains(v, "config not reloaded: ") ||
		!strings.Contains(v, "mcp.json:3:") {
		t.Errorf("a broken file must say so in the chat and the status bar, with its line and column:\n%s", v)
	}
	if st, _ := rt.ServerStatus("second"); st.State != mcp.StateReady {
		t.Errorf("a broken file must leave the servers running: %+v", st)
	}
}

func TestMCPReloadWithoutAConfigFileSaysThereIsNothingToReload(t *testing.T) {
	rt := sharedRuntime(t, "demo", demoServer("demo"))
	hs := newChatHarness(t, rt, []string{"demo"}, 160, 30, Options{})
	hs.line(".mcp reload")
	if v := hs.view(); !strings.Contains(v, "there is nothing to reload") {
		t.Errorf("without a reloader .mcp reload must say why it cannot:\n%s", v)
	}
}

// waitRuntime waits until every started server of rt is ready or failed.
func waitRuntime(t *testing.T, rt *mcp.Runtime) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAReloadThatBringsAnUntrustedProjectFileAsksAboutIt(t *testing.T) {
	var allowed []string
	trust := &ProjectTrust{Allow: func(f mcp.ConfigFile, remember bool) ([]string, error) {
		allowed = append(allowed, f.Path)
		return []string{"helper"}, nil
	}}
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Trust: trust, Now: clock.Now})
	defer hs.dumpOnFailure()
	if strings.Contains(hs.view(), "Trust this project's servers?") {
		t.Fatal("nothing to ask about at start")
	}
	res := mcp.ReloadResult{Held: []string{"helper"}, Untrusted: []mcp.ConfigFile{untrustedProject}, Servers: []string{"demo", "helper"}}
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventReload, Reload: &res}}})
	v := hs.view()
	for _, want := range []string{"Trust this project's servers?", "helper: runs sh -c 'echo PWNED > file; env > file2'", "not started until you trust their file: helper"} {
		if !strings.Contains(v, want) {
			t.Fatalf("a project file a reload brings must be asked about (%q):\n%s", want, v)
		}
	}
	hs.keys("o") // typed as the dialog popped up: ignored
	if len(allowed) != 0 {
		t.Fatal("a key typed as a reload's dialog appears must not trust the file")
	}
	clock.advance(common.PermissionGrace)
	hs.keys("o")
	if len(allowed) != 1 || allowed[0] != untrustedProject.Path {
		t.Errorf("answering must go through Allow: %v", allowed)
	}
}

func TestAReloadKeepsTheConversationAndTheNextTurnIsOfferedTheNewServer(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second answer"}))
	hs, rt, path, relay := reloadHarness(t, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("hello")
	writeDemoConfig(t, path, "mine", "second")
	hs.line(".mcp reload")
	waitRuntime(t, rt)
	relay()
	hs.line("again")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests", len(reqs))
	}
	if slices.Contains(reqs[0].Tools, "mcp_search_second") || !slices.Contains(reqs[1].Tools, "mcp_search_second") || !slices.Contains(reqs[1].Tools, "mcp_search_mine") {
		t.Errorf("the next turn must be offered the servers as reloaded: before %v, after %v", reqs[0].Tools, reqs[1].Tools)
	}
	var texts []string
	for _, m := range reqs[1].Messages {
		texts = append(texts, m.Text)
	}
	if !slices.Contains(texts, "hello") || !slices.Contains(texts, "first answer") {
		t.Errorf("the conversation must survive the reload: %q", texts)
	}
}

func TestAReloadThatRemovesAServerEndsItsSubscriptionsInTheList(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo", "old"}, 120, 40, Options{})
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	hs.m.com.Subs.Add("old", "file:///gone.txt", now)
	hs.m.com.Subs.Add("demo", "demo://logs/app.log", now)
	res := mcp.ReloadResult{Stopped: []string{"old"}, Removed: []string{"old"}, Kept: []string{"demo"}, Servers: []string{"demo"}}
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventReload, Reload: &res}}})
	subs := hs.m.com.Subs.List()
	if len(subs) != 1 || subs[0].Server != "demo" {
		t.Errorf("the removed server's subscriptions must leave the list, the others stay: %+v", subs)
	}
	if got := hs.m.catalog.Servers(); len(got) != 1 || got[0].Name() != "demo" {
		t.Errorf("the removed server must leave the catalog: %d servers", len(got))
	}
}
