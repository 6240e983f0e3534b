package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

// serveGate is a server with a tool that blocks until released: wait
// creates the file named by "started", then returns once the file named
// by "release" exists (or the call is cancelled). echo and write_file
// answer at once.
func serveGate() int {
	s := server.NewMCPServer("gate", "1.0", server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("wait", mcpgo.WithString("started", mcpgo.Required()), mcpgo.WithString("release", mcpgo.Required())),
		func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if err := os.WriteFile(r.GetString("started", ""), nil, 0o600); err != nil {
				return nil, err
			}
			for {
				if _, err := os.Stat(r.GetString("release", "")); err == nil {
					return mcpgo.NewToolResultText("released"), nil
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			}
		})
	for _, name := range []string{"echo", "write_file"} {
		s.AddTool(mcpgo.NewTool(name, mcpgo.WithString("message")), func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(r.GetString("message", "")), nil
		})
	}
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// gateEntry is the JSON config entry of a gate fixture server, with
// extra fields merged in.
func gateEntry(extra map[string]any) map[string]any {
	sc := fixture("gate")
	e := map[string]any{"command": sc.Command, "args": sc.Args, "env": map[string]string{fixtureEnv: "gate"}}
	for k, v := range extra {
		if k == "env" {
			env := map[string]string{fixtureEnv: "gate"}
			for ek, ev := range v.(map[string]string) {
				env[ek] = ev
			}
			v = env
		}
		e[k] = v
	}
	return e
}

// writeServers writes {"mcpServers": servers} plus top-level extra to path.
func writeServers(t *testing.T, path string, servers map[string]any, extra ...string) {
	t.Helper()
	top := map[string]any{"mcpServers": servers}
	for i := 0; i+1 < len(extra); i += 2 {
		top[extra[i]] = json.RawMessage(extra[i+1])
	}
	data, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeAtomically(t, path, data)
}

// writeAtomically replaces path as editors do: a temporary file renamed
// over it.
func writeAtomically(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// events collects a runtime's events.
type events struct {
	mu sync.Mutex
	es []Event
}

func (e *events) push(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.es = append(e.es, ev)
}

// reloads are the EventReload results so far.
func (e *events) reloads() []ReloadResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []ReloadResult
	for _, ev := range e.es {
		if ev.Kind == EventReload {
			out = append(out, *ev.Reload)
		}
	}
	return out
}

// reloadRig is a runtime on a config file in a temporary directory.
type reloadRig struct {
	path string
	opts LoadOptions
	rt   *Runtime
	rl   *Reloader
	ev   *events
}

func newReloadRig(t *testing.T, servers map[string]any) *reloadRig {
	t.Helper()
	dir := t.TempDir()
	g := &reloadRig{path: filepath.Join(dir, "mcp.json"), ev: &events{}}
	writeServers(t, g.path, servers)
	g.opts = LoadOptions{Path: g.path, Trust: NewTrustStore(filepath.Join(dir, "trust.json")), UserConfigDir: filepath.Join(dir, "config")}
	g.start(t)
	return g
}

func (g *reloadRig) start(t *testing.T) {
	t.Helper()
	cfg, err := LoadConfig(g.opts)
	if err != nil {
		t.Fatal(err)
	}
	g.rt = NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir(), OnEvent: g.ev.push})
	t.Cleanup(func() { g.rt.Close() })
	g.rl = NewReloader(g.rt, cfg, g.opts)
	if err := g.rt.Start(); err != nil {
		t.Fatal(err)
	}
	g.wait(t)
}

func (g *reloadRig) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := g.rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// conn is the named server's ready connection and its process id.
func (g *reloadRig) conn(t *testing.T, name string) (*Conn, int) {
	t.Helper()
	c, err := g.rt.Conn(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c, c.cmd.Process.Pid
}

func TestReloadAddsRemovesAndRestartsServersWhileACallToAnotherServerIsInFlight(t *testing.T) {
	g := newReloadRig(t, map[string]any{
		"keep":   gateEntry(nil),
		"gone":   gateEntry(nil),
		"change": gateEntry(map[string]any{"env": map[string]string{"WHICH": "one"}}),
	})
	keepConn, keepPid := g.conn(t, "keep")
	_, changePid := g.conn(t, "change")
	goneConn, _ := g.conn(t, "gone")

	// What the person subscribed to on gone (its resource, as Subscribe
	// records it; the fixture has no resources to subscribe to).
	g.rt.subs.mu.Lock()
	g.rt.subs.uris = map[string]map[string]bool{"gone": {"file:///a": true}}
	g.rt.subs.mu.Unlock()

	// A call to keep that blocks until released.
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	type answer struct {
		raw json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	go func() {
		raw, err := g.rt.CallToolRaw(context.Background(), "keep", "wait", map[string]any{"started": started, "release": release})
		done <- answer{raw, err}
	}()
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil }, "the call to keep to reach its server")

	writeServers(t, g.path, map[string]any{
		"keep":   gateEntry(nil),
		"change": gateEntry(map[string]any{"env": map[string]string{"WHICH": "two"}}),
		"new":    gateEntry(nil),
	})
	res, err := g.rl.Reload()
	if err != nil {
		t.Fatal(err)
	}
	want := ReloadResult{Started: []string{"new"}, Stopped: []string{"gone"}, Removed: []string{"gone"}, Restarted: []string{"change"}, Kept: []string{"keep"},
		Servers: []string{"change", "keep", "new"}}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Errorf("reload result:\n got %+v\nwant %+v", res, want)
	}
	if !strings.Contains(res.String(), "started new; stopped gone; restarted change; 1 server kept") {
		t.Errorf("the summary should say what changed: %q", res.String())
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-done:
		if a.err != nil || !strings.Contains(string(a.raw), "released") {
			t.Fatalf("the call in flight to an unchanged server must complete: %s, %v", a.raw, a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight never completed")
	}
	g.wait(t)
	if c, pid := g.conn(t, "keep"); c != keepConn || pid != keepPid {
		t.Errorf("the unchanged server was reconnected: conn %p -> %p, pid %d -> %d", keepConn, c, keepPid, pid)
	}
	if _, pid := g.conn(t, "change"); pid == changePid {
		t.Errorf("the changed entry still runs its old process %d", pid)
	}
	g.conn(t, "new")
	if !goneConn.exited() {
		waitFor(t, goneConn.exited, "the removed server's process to end")
	}
	if subs := g.rt.Subscriptions("gone"); len(subs) != 0 {
		t.Errorf("the removed server's subscriptions must be forgotten: %v", subs)
	}
	if _, err := g.rt.Conn("gone"); err == nil || !strings.Contains(err.Error(), "no server named") {
		t.Errorf("the removed server must be unknown: %v", err)
	}
	if names := g.rt.Names(); !slices.Equal(names, []string{"change", "keep", "new"}) {
		t.Errorf("names after the reload: %v", names)
	}
	// The model's next request is offered the servers as they are now.
	var decls []string
	for _, d := range g.rt.Declarations() {
		decls = append(decls, d.Name)
	}
	if !slices.Contains(decls, "mcp_search_new") || slices.Contains(decls, "mcp_search_gone") || !slices.Contains(decls, "mcp_search_keep") {
		t.Errorf("the declarations must follow the reload: %v", decls)
	}
}

func BenchmarkReloadOfAnUnchangedConfig(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "mcp.json")
	servers := map[string]any{}
	for i := range 20 {
		servers[fmt.Sprintf("s%02d", i)] = gateEntry(map[string]any{"disabled": true})
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	opts := LoadOptions{Path: path, Trust: NewTrustStore(filepath.Join(dir, "trust.json"))}
	cfg, err := LoadConfig(opts)
	if err != nil {
		b.Fatal(err)
	}
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	rl := NewReloader(rt, cfg, opts)
	b.ResetTimer()
	for range b.N {
		if res, err := rl.Reload(); err != nil || res.Changed() {
			b.Fatal(res, err)
		}
	}
}

// The trust store is watched (howl trust elsewhere starts a project's
// servers), from what it holds when the watch starts: a store that exists
// then does not reload the config at the first look, and one written
// after does.
func TestTheWatchStartsFromTheTrustStoreAsItIs(t *testing.T) {
	dir := t.TempDir()
	store := NewTrustStore(filepath.Join(dir, "trust.json"))
	if err := store.Trust(filepath.Join(dir, "other", ".mcp.json"), "abc", time.Now()); err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{WorkDir: dir, UserConfigDir: filepath.Join(dir, "config"), Trust: store, Getenv: func(string) (string, bool) { return "", false }}
	cfg, err := LoadConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	w := NewReloader(rt, cfg, opts).newFileWatch()
	if !slices.Contains(w.paths, store.Path()) {
		t.Fatalf("the trust store is not watched: %v", w.paths)
	}
	if w.changed() {
		t.Error("the first look saw a change in a trust store nobody touched: every start would reload")
	}
	if err := store.Trust(filepath.Join(dir, "more", ".mcp.json"), "def", time.Now()); err != nil {
		t.Fatal(err)
	}
	if !w.changed() {
		t.Error("a trust recorded after the watch started was not seen")
	}
}

func BenchmarkWatchLookAtUnchangedFiles(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	opts := LoadOptions{WorkDir: dir, UserConfigDir: filepath.Join(dir, "config"), Getenv: func(string) (string, bool) { return "", false }}
	cfg, err := LoadConfig(LoadOptions{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	w := NewReloader(rt, cfg, opts).newFileWatch()
	w.changed()
	b.ResetTimer()
	for range b.N {
		if w.changed() {
			b.Fatal("changed")
		}
	}
}

func TestReloadOfAFileThatDoesNotParseKeepsTheServersAndSaysWhere(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	keepConn, _ := g.conn(t, "keep")
	writeAtomically(t, g.path, []byte("{\n  \"mcpServers\": {\n    \"keep\": {\"command\": \"x\",,}\n  }\n}\n"))
	res, err := g.rl.Reload()
	if err == nil {
		t.Fatal("a broken file must be an error")
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 3 {
		t.Errorf("the error must be a ConfigError at line 3: %#v", err)
	}
	wantPos := fmt.Sprintf("%s:3:", g.path)
	if !strings.Contains(res.Err, wantPos) || !strings.Contains(res.String(), "the servers run as before") {
		t.Errorf("the reload must name file:line:col (%s...) and say nothing changed: %q", wantPos, res.String())
	}
	if rs := g.ev.reloads(); len(rs) != 1 || rs[0].Err == "" {
		t.Errorf("the failure must be reported as an EventReload with its error: %+v", rs)
	}
	if c, _ := g.conn(t, "keep"); c != keepConn {
		t.Error("a broken file must leave the servers as they were")
	}
	// Fixed, it applies.
	writeServers(t, g.path, map[string]any{"keep": gateEntry(nil), "new": gateEntry(nil)})
	if res, err := g.rl.Reload(); err != nil || !slices.Equal(res.Started, []string{"new"}) {
		t.Fatalf("the fixed file must apply: %+v, %v", res, err)
	}
}

func TestReloadRefusesAConfigReplacedByADeviceOrAHugeFile(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	keepConn, _ := g.conn(t, "keep")
	if err := os.Remove(g.path); err != nil {
		t.Fatal(err)
	}
	// A link to a device is a Unix worry: Windows' NUL is no file a link
	// can name (under Wine such a link stats as missing), so there only
	// the huge file is tried.
	if runtime.GOOS != "windows" {
		if err := os.Symlink(os.DevNull, g.path); err != nil {
			t.Fatal("a symlink to the null device:", err)
		}
		_, err := g.rl.Reload()
		if err == nil || !strings.Contains(err.Error(), "is not a regular file (it is a device)") {
			t.Errorf("a config that is a link to a device must be refused as such: %v", err)
		}
		if err := os.Remove(g.path); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(g.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil { // 2 GiB, sparse
		t.Fatal(err)
	}
	f.Close()
	_, err = g.rl.Reload()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes (MaxConfigBytes)", MaxConfigBytes)) {
		t.Errorf("a 2 GiB config must be refused with the limit: %v", err)
	}
	if c, _ := g.conn(t, "keep"); c != keepConn {
		t.Error("a refused file must leave the servers as they were")
	}
}

func TestReloadOfAUserFileReplacedByADirectoryOrRemovedKeepsTheServers(t *testing.T) {
	base := t.TempDir()
	ucd := filepath.Join(base, "config")
	if err := os.MkdirAll(filepath.Join(ucd, "howl"), 0o700); err != nil {
		t.Fatal(err)
	}
	g := &reloadRig{path: filepath.Join(ucd, "howl", "mcp.json"), ev: &events{}}
	writeServers(t, g.path, map[string]any{"mine": gateEntry(nil)})
	g.opts = LoadOptions{WorkDir: filepath.Join(base, "wd"), UserConfigDir: ucd, Trust: NewTrustStore(filepath.Join(base, "trust.json")),
		Getenv: func(string) (string, bool) { return "", false }, Demo: ServerConfig{Name: "demo", Command: "never-run"}}
	g.start(t)
	mine, _ := g.conn(t, "mine")
	if err := os.Remove(g.path); err != nil {
		t.Fatal(err)
	}
	if _, err := g.rl.Reload(); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("a removed config must not fall back to the demo: %v", err)
	}
	if err := os.Mkdir(g.path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := g.rl.Reload(); err == nil || !strings.Contains(err.Error(), "is not a regular file (it is a directory)") {
		t.Errorf("a config replaced by a directory must not fall back to the demo: %v", err)
	}
	if c, _ := g.conn(t, "mine"); c != mine || slices.Contains(g.rt.Names(), "demo") {
		t.Errorf("the servers must run as before: %v", g.rt.Names())
	}
}

func TestReloadAppliesDisabledToolsWithoutRestartingTheServer(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	keepConn, keepPid := g.conn(t, "keep")
	ctx := context.Background()
	if _, err := g.rt.Catalog(ctx, "keep", false); err != nil {
		t.Fatal(err)
	}
	writeServers(t, g.path, map[string]any{"keep": gateEntry(map[string]any{"disabledTools": []string{"write_*"}})})
	res, err := g.rl.Reload()
	if err != nil || !slices.Equal(res.Tools, []string{"keep"}) || len(res.Restarted)+len(res.Started)+len(res.Stopped) > 0 {
		t.Fatalf("a disabledTools change applies in place: %+v, %v", res, err)
	}
	cat, err := g.rt.ModelCatalog(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup(KindTool, "write_file"); ok {
		t.Error("the model's catalog still has the tool switched off in the file")
	}
	if _, ok := cat.Lookup(KindTool, "echo"); !ok {
		t.Error("the model's catalog lost a tool that is on")
	}
	if c, pid := g.conn(t, "keep"); c != keepConn || pid != keepPid {
		t.Error("a disabledTools change restarted the server")
	}
}

func TestHowlsOwnSwitchIsNoChangeToTheReload(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil), "other": gateEntry(nil)})
	keepConn, _ := g.conn(t, "keep")
	otherConn, _ := g.conn(t, "other")
	if _, err := g.rt.Switch("keep", []string{"echo"}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := g.rt.Switch("other", nil, true); err != nil { // .mcp disable other
		t.Fatal(err)
	}
	res, err := g.rl.Reload()
	if err != nil || res.Changed() {
		t.Fatalf("howl's own writes must reload as no change: %+v (%s), %v", res, res, err)
	}
	if c, _ := g.conn(t, "keep"); c != keepConn {
		t.Error("howl's own write restarted the server it switched a tool of")
	}
	if c, _ := g.conn(t, "other"); c != otherConn {
		t.Error("howl's own .mcp disable, reloaded, stopped or restarted the server")
	}
	if !slices.Equal(res.Servers, []string{"keep", "other"}) {
		t.Errorf("a server switched off during the run must stay listed (the person switches it on from the list): %v", res.Servers)
	}
}

func TestReloadSaysWhichSettingsNeedARestart(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	writeServers(t, g.path, map[string]any{"keep": gateEntry(nil)}, "model", `{"provider": "openai", "name": "gpt-x"}`)
	res, err := g.rl.Reload()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%q in %s", "model", g.path)
	if !slices.Equal(res.NeedsRestart, []string{want}) || !strings.Contains(res.String(), "needs a restart to apply: "+want) {
		t.Errorf("a changed top-level setting must be reported as needing a restart: %+v / %s", res.NeedsRestart, res)
	}
}

// watchTicks drives a watch: each tick returns once the watch has
// looked at the files (and reloaded, if it did).
type watchTicks struct {
	ticks  chan time.Time
	looked chan struct{}
}

func tick(t *testing.T, w watchTicks) {
	t.Helper()
	w.ticks <- time.Now()
	select {
	case <-w.looked:
	case <-time.After(60 * time.Second):
		t.Fatal("the watch did not finish a look")
	}
}

// runWatch runs the rig's watch on ticks the test sends; stop ends it.
func runWatch(t *testing.T, g *reloadRig) (watchTicks, func()) {
	w := watchTicks{ticks: make(chan time.Time), looked: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		g.rl.watch(ctx, w.ticks, nil, func() { w.looked <- struct{}{} })
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-ended
		})
	}
	t.Cleanup(stop)
	return w, stop
}

func TestWatchDebouncesQuickWritesIntoOneReload(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	ticks, stop := runWatch(t, g)
	tick(t, ticks) // nothing changed: no reload
	for i := range 5 {
		writeServers(t, g.path, map[string]any{"keep": gateEntry(nil), fmt.Sprintf("s%d", i): gateEntry(map[string]any{"disabled": true})})
		tick(t, ticks)
	}
	if n := len(g.ev.reloads()); n != 0 {
		t.Fatalf("the watch reloaded %d times while the file kept changing", n)
	}
	tick(t, ticks) // a look that finds the file as it was: reload once
	tick(t, ticks)
	stop()
	rs := g.ev.reloads()
	if len(rs) != 1 {
		t.Fatalf("five quick writes must make one reload, got %d: %+v", len(rs), rs)
	}
	if !slices.Contains(g.rt.Names(), "s4") || slices.Contains(g.rt.Names(), "s3") {
		t.Errorf("the reload must apply the last write: %v", g.rt.Names())
	}
}

func TestWatchOfAFileRewrittenWithoutPauseReloadsOnlyEveryMaxWaitLooks(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	keepConn, _ := g.conn(t, "keep")
	ticks, stop := runWatch(t, g)
	// Between two looks the file is written 100 times, for 2*WatchMaxWait looks.
	for i := range 2 * WatchMaxWait {
		for j := range 100 {
			writeServers(t, g.path, map[string]any{"keep": gateEntry(nil)}, "n", fmt.Sprint(i*100+j))
		}
		tick(t, ticks)
	}
	stop()
	if n := len(g.ev.reloads()); n != 2 {
		t.Errorf("a file rewritten without pause must reload once per %d looks: %d reloads in %d looks", WatchMaxWait, n, 2*WatchMaxWait)
	}
	if c, _ := g.conn(t, "keep"); c != keepConn {
		t.Error("rewrites that do not change the entry restarted the server")
	}
}

// --trust-project trusts the project's config as it was when howl started:
// a later edit (a checkout, a pull, a model's write) is asked about like
// any changed file, and its new server does not start.
func TestTrustProjectDoesNotTrustALaterEditOfTheProjectFile(t *testing.T) {
	g, wd := projectRig(t)
	project := filepath.Join(wd, ".mcp.json")
	writeServers(t, project, map[string]any{"theirs": gateEntry(nil)})
	g.opts.TrustProject = true
	g.start(t)
	if st, _ := g.rt.ServerStatus("theirs"); st.State != StateReady {
		t.Fatalf("--trust-project must start the project's server as it was: %+v", st)
	}
	writeServers(t, project, map[string]any{"theirs": gateEntry(nil), "later": gateEntry(nil)})
	res, err := g.rl.Reload()
	if err != nil || len(res.Started) != 0 || len(res.Untrusted) != 1 {
		t.Fatalf("a later edit must be asked about, nothing of it started: %+v, %v", res, err)
	}
	if st, _ := g.rt.ServerStatus("later"); st.State == StateReady || !strings.Contains(st.Reason, "not trusted") {
		t.Errorf("the server the edit added must not start: %+v", st)
	}
}

// projectRig is a reload rig whose user config runs "mine", in a working
// directory wd (returned) with its own trust store and no environment.
func projectRig(t *testing.T) (*reloadRig, string) {
	t.Helper()
	base := t.TempDir()
	wd, ucd := filepath.Join(base, "project"), filepath.Join(base, "config")
	for _, d := range []string{wd, filepath.Join(ucd, "howl")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	g := &reloadRig{path: filepath.Join(ucd, "howl", "mcp.json"), ev: &events{}}
	writeServers(t, g.path, map[string]any{"mine": gateEntry(nil)})
	g.opts = LoadOptions{WorkDir: wd, UserConfigDir: ucd, Trust: NewTrustStore(filepath.Join(base, "trust.json")),
		Getenv: func(string) (string, bool) { return "", false }}
	return g, wd
}

func TestWatchSeesAProjectFileThatAppearsAndHoldsItsServersUntilTrusted(t *testing.T) {
	g, wd := projectRig(t)
	g.start(t)
	mine, _ := g.conn(t, "mine")
	ticks, stop := runWatch(t, g)

	project := filepath.Join(wd, ".mcp.json")
	writeServers(t, project, map[string]any{"theirs": gateEntry(nil)})
	tick(t, ticks)
	tick(t, ticks)
	stop()
	rs := g.ev.reloads()
	if len(rs) != 1 || !slices.Equal(rs[0].Held, []string{"theirs"}) || len(rs[0].Untrusted) != 1 || len(rs[0].Started) != 0 {
		t.Fatalf("a project file that appears must be held, not started, and asked about: %+v", rs)
	}
	if st, _ := g.rt.ServerStatus("theirs"); st.State != StateStopped || !strings.Contains(st.Reason, "not trusted") {
		t.Errorf("the project's server must not start: %+v", st)
	}
	// Trusted for this run, it starts; an own write keeps it trusted.
	names, err := g.rl.Trust(rs[0].Untrusted[0], false)
	if err != nil || !slices.Equal(names, []string{"theirs"}) {
		t.Fatalf("trust: %v %v", names, err)
	}
	g.wait(t)
	theirs, _ := g.conn(t, "theirs")
	if _, err := g.rt.Switch("theirs", []string{"echo"}, true); err != nil {
		t.Fatal(err)
	}
	if res, err := g.rl.Reload(); err != nil || res.Changed() {
		t.Fatalf("howl's own write to a file trusted for this run must keep it trusted: %+v, %v", res, err)
	}
	if c, _ := g.conn(t, "theirs"); c != theirs {
		t.Error("howl's own write restarted the project's server")
	}
	// Someone else changes it: untrusted again, its server stops, and
	// the person is asked again (issue 16: a changed file asks again).
	writeServers(t, project, map[string]any{"theirs": gateEntry(map[string]any{"env": map[string]string{"EVIL": "1"}})})
	res, err := g.rl.Reload()
	if err != nil || !slices.Equal(res.Stopped, []string{"theirs"}) || len(res.Untrusted) != 1 {
		t.Fatalf("a trusted project file changed by someone else must stop its servers and ask again: %+v, %v", res, err)
	}
	if st, _ := g.rt.ServerStatus("theirs"); st.State != StateStopped || !strings.Contains(st.Reason, "changed since you trusted it") {
		t.Errorf("the reason must say the file changed: %+v", st)
	}
	// A stale answer (about the old content) trusts nothing.
	if _, err := g.rl.Trust(rs[0].Untrusted[0], true); err == nil || !strings.Contains(err.Error(), "changed since you were asked") {
		t.Errorf("trusting what the person saw before the change must be refused: %v", err)
	}
	// Remembered, the trust goes to the store the config is loaded with
	// (not the default one in the data dir), so the next load finds it.
	if _, err := g.rl.Trust(res.Untrusted[0], true); err != nil {
		t.Fatalf("trusting the file as it is now: %v", err)
	}
	store := g.opts.Trust
	if e, ok, err := store.Lookup(res.Untrusted[0].Key); err != nil || !ok || e.SHA256 != res.Untrusted[0].SHA256 {
		t.Errorf("a remembered trust must land in the config's store %s: %+v %v %v", store.Path(), e, ok, err)
	}
	g.wait(t)
	if c, _ := g.conn(t, "mine"); c != mine {
		t.Error("the user's own server was disturbed by the project file")
	}
}

// Config answers while a reload is held up stopping a server that ignores
// stop (its stdin closing and SIGTERM; a minute's shutdownGrace): a verb
// asking for the config in use must not wait on the reload. Before, Config
// took the reload's lock and waited for the whole stop.
func TestConfigAnswersWhileAReloadStopsAServerThatIgnoresStop(t *testing.T) {
	deaf := map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"},
		"env": map[string]string{fixtureEnv: "deaf-on-eof"}, "shutdownGrace": "1m"}
	g := newReloadRig(t, map[string]any{"deaf": deaf})
	_, pid := g.conn(t, "deaf")
	// The test ends the stubborn server itself once it has looked, so
	// the reload does not wait out the grace.
	kill := func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
	defer kill()
	before := g.rl.Config()
	writeServers(t, g.path, map[string]any{})
	done := make(chan error, 1)
	go func() {
		_, err := g.rl.Reload()
		done <- err
	}()
	// Apply reports the reload before it stops the servers it removed.
	deadline := time.Now().Add(30 * time.Second)
	for len(g.ev.reloads()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no reload reported within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	answer := make(chan *Config, 1)
	go func() { answer <- g.rl.Config() }()
	select {
	case cfg := <-answer:
		select {
		case err := <-done:
			t.Fatalf("the reload ended (%v) before the server that ignores stop was killed: the fixture did not hold the stop up", err)
		default:
		}
		if cfg != before {
			t.Errorf("while the reload still stops the server, Config is %p, want the config in use %p", cfg, before)
		}
	case err := <-done:
		t.Fatalf("the reload ended (%v) before the server that ignores stop was killed", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Config still waits after 30 s on the reload stopping a server that ignores stop")
	}
	kill()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reload did not end within 30 s of the server's kill")
	}
	if cfg := g.rl.Config(); cfg == before || len(cfg.Servers) != 0 {
		t.Errorf("after the reload Config holds %d servers, want the reloaded config's none", len(cfg.Servers))
	}
}
