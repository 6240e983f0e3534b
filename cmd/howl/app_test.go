package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/mcptest"
)

// watched is a writer a test can wait on: every write wakes waitFor.
type watched struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	wake chan struct{}
}

func newWatched() *watched { return &watched{wake: make(chan struct{}, 1)} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return w.buf.Write(p)
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until the output matches re, or the deadline passes.
func (w *watched) waitFor(t *testing.T, re *regexp.Regexp, within time.Duration) []string {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m
		}
		select {
		case <-w.wake:
		case <-deadline.C:
			t.Fatalf("no %q within %v; output so far:\n%s", re, within, w.String())
		}
	}
}

// startApp runs `howl app ARGS --no-browser` until the test ends it and
// returns its URL, its stderr and a function that waits for it to exit.
func startApp(t *testing.T, args ...string) (url string, stderr *watched, wait func() int) {
	t.Helper()
	stdout, stderr := newWatched(), newWatched()
	done := make(chan int, 1)
	go func() {
		done <- run(append(append([]string{"app"}, args...), "--no-browser"), strings.NewReader(""), stdout, stderr)
	}()
	m := stdout.waitFor(t, regexp.MustCompile(`(http://127\.0\.0\.1:\d+/app/[A-Za-z0-9_-]{43}/)\n`), 60*time.Second)
	return m[1], stderr, func() int {
		select {
		case code := <-done:
			return code
		case <-time.After(60 * time.Second):
			t.Fatalf("howl app did not end; stderr:\n%s", stderr.String())
			return -1
		}
	}
}

// askToClose sends what an app sends when it wants to be closed.
func askToClose(t *testing.T, url string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"rpc", strings.NewReader(`{"jsonrpc":"2.0","method":"ui/notifications/request-teardown"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", strings.TrimSuffix(url[:strings.Index(url, "/app/")], "/"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestAppVerbRefusesAToolWithoutAnApp(t *testing.T) {
	isolate(t)
	_, stderr, code := howl(t, "app", "demo", "echo", "message=hi", "--no-browser")
	if code != exitUsage || !strings.Contains(stderr, "declares no MCP App") || !strings.Contains(stderr, "howl call demo echo") {
		t.Errorf("howl app on echo: exit %d, %q; want a usage error pointing to howl call", code, stderr)
	}
}

func TestAppVerbServesTheDemoAppOnlyWithItsToken(t *testing.T) {
	isolate(t)
	url, _, wait := startApp(t, "demo", "roll_dice")
	for u, want := range map[string]int{url: 200, url + "view": 200, strings.Replace(url, "/app/", "/app/x", 1): 404, url[:strings.Index(url, "/app/")+5]: 404} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", u, resp.StatusCode, want)
		}
	}
	askToClose(t, url)
	if code := wait(); code != exitOK {
		t.Errorf("howl app exited %d after the app asked to close, want 0", code)
	}
}

func TestChromiumRunsTheDemoAppThroughHowlsBridge(t *testing.T) {
	browser := mcptest.Chromium(t, "the MCP App")
	isolate(t)
	url, stderr, wait := startApp(t, "demo", "roll_dice", "sides=1000", "autoplay=true")
	mcptest.OpenInChromium(t, browser, url)
	// The app rendered the opening result (first), called roll_dice
	// through the bridge, rendered its answer (then) and posted both to
	// howl as a message: each number is read from the app's own page.
	stderr.waitFor(t, regexp.MustCompile(`ui/message dice app autoplay: first (\d+), then (\d+) on a d1000 \(shown on the page\)`), 90*time.Second)
	out := stderr.String()
	for _, want := range []string{"ui/initialize ui://demo/dice.html", "ui/notifications/initialized", "tools/call roll_dice: allowed: the tool you opened this app with", "ui/notifications/size-changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	askToClose(t, url)
	if code := wait(); code != exitOK {
		t.Errorf("howl app exited %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), "closed ui://demo/dice.html") {
		t.Errorf("howl app did not say it closed the app:\n%s", stderr.String())
	}
}

// officialAppServer is a config naming the pinned official MCP Apps
// example pkg (in HOWL_INTEROP_DIR) as server name, and the Chromium to
// run its app in; the test skips without either.
func officialAppServer(t *testing.T, pkg, name string) (cfg, browser string) {
	t.Helper()
	nm := os.Getenv("HOWL_INTEROP_DIR")
	if nm == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./cmd/howl -run Interop")
	}
	browser = mcptest.Chromium(t, "the MCP App")
	dir := isolate(t)
	script := filepath.Join(nm, "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the pinned MCP Apps example %s is not installed in HOWL_INTEROP_DIR (%v): run npm ci in .ci/interop", pkg, err)
	}
	cfg = filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {%q: {"command": "node", "args": [%q, "--stdio"]}}}`, name, script)), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, browser
}

// TestInteropChromiumRunsTheOfficialBasicAppThroughHowl opens the
// official example @modelcontextprotocol/server-basic-vanillajs (pinned in
// .ci/interop; its page uses the extension's own App class) in real
// Chromium: the app accepts howl's ui/initialize answer, says it is
// initialized, reports the size it rendered at, shows the opening result
// in its DOM, and its button's get-time call goes through the bridge and
// its answer replaces the first on the page.
func TestInteropChromiumRunsTheOfficialBasicAppThroughHowl(t *testing.T) {
	cfg, browser := officialAppServer(t, "server-basic-vanillajs", "basic")
	url, stderr, wait := startApp(t, "--config", cfg, "basic", "get-time")
	page := mcptest.OpenAppPage(t, browser, url)
	stderr.waitFor(t, regexp.MustCompile(`ui/notifications/initialized ui://get-time/mcp-app\.html`), 90*time.Second)
	stderr.waitFor(t, regexp.MustCompile(`ui/notifications/size-changed \d+x[1-9]\d*`), 90*time.Second)
	// The app rendered the opening call's result in its own DOM; its
	// button calls get-time again through the bridge, and the new answer
	// replaces the first on the page.
	isTime := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`).MatchString
	first := page.WaitInApp(`document.getElementById("server-time").textContent`, isTime, 90*time.Second)
	page.WaitInApp(`document.getElementById("get-time-btn").click() || "clicked"`, func(string) bool { return true }, 30*time.Second)
	stderr.waitFor(t, regexp.MustCompile(`tools/call get-time: allowed: the tool you opened this app with\n`), 90*time.Second)
	page.WaitInApp(`document.getElementById("server-time").textContent`, func(v string) bool { return isTime(v) && v != first }, 90*time.Second)
	askToClose(t, url)
	if code := wait(); code != exitOK {
		t.Errorf("howl app exited %d, want 0:\n%s", code, stderr.String())
	}
}

// TestInteropChromiumRunsTheOfficialSystemMonitorAppThroughHowl opens the
// official example @modelcontextprotocol/server-system-monitor (pinned in
// .ci/interop; chart.js bundled in its page, no CSP declared, an app-only
// poll tool) in real Chromium: the app initializes against howl's host,
// receives get-system-info's result (it starts polling only once that
// result arrives), and calls its app-only tool poll-system-stats through
// the bridge, which howl relays to the same server; both answers show in
// the app's own DOM (read over the DevTools protocol).
func TestInteropChromiumRunsTheOfficialSystemMonitorAppThroughHowl(t *testing.T) {
	cfg, browser := officialAppServer(t, "server-system-monitor", "sysmon")
	url, stderr, wait := startApp(t, "--config", cfg, "--allow", "sysmon:poll-system-stats", "sysmon", "get-system-info")
	page := mcptest.OpenAppPage(t, browser, url)
	stderr.waitFor(t, regexp.MustCompile(`ui/notifications/initialized ui://system-monitor/mcp-app\.html`), 90*time.Second)
	// get-system-info's result reached the app: it shows this machine's
	// host name in its own DOM.
	host, _ := os.Hostname()
	page.WaitInApp(`document.getElementById("info-hostname").textContent`, func(v string) bool { return v == host }, 90*time.Second)
	stderr.waitFor(t, regexp.MustCompile(`tools/call poll-system-stats: allowed by --allow sysmon:poll-system-stats\n`), 90*time.Second)
	// poll-system-stats' answer reached it too: the memory gauge and the
	// status line (the time of the last poll) are filled in from it.
	page.WaitInApp(`document.getElementById("memory-percent").textContent`, regexp.MustCompile(`^\d+%$`).MatchString, 90*time.Second)
	page.WaitInApp(`document.getElementById("status-text").textContent`, regexp.MustCompile(`^\d\d:\d\d:\d\d$`).MatchString, 90*time.Second)
	askToClose(t, url)
	if code := wait(); code != exitOK {
		t.Errorf("howl app exited %d, want 0:\n%s", code, stderr.String())
	}
}
