package apphost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

const demoEnv = "HOWL_APPHOST_TEST_DEMO"

func TestMain(m *testing.M) {
	if os.Getenv(demoEnv) != "" {
		if err := demo.ServeStdio(context.Background(), demo.New(demo.Options{}), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// tracedCalls records the tools/call requests that reached a server.
type tracedCalls struct {
	mu    sync.Mutex
	tools []string
}

func (c *tracedCalls) event(e mcp.Event) {
	if e.Kind == mcp.EventTrace && e.Trace != nil && e.Trace.Method == "tools/call" {
		c.mu.Lock()
		c.tools = append(c.tools, e.Trace.Target)
		c.mu.Unlock()
	}
}

func (c *tracedCalls) ran(tool string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tools {
		if t == tool {
			return true
		}
	}
	return false
}

// demoRuntime starts the demo server over stdio (this test binary,
// re-executed), with tracing on.
func demoRuntime(t *testing.T) (*mcp.Runtime, *tracedCalls) {
	t.Helper()
	calls := &tracedCalls{}
	sc := mcp.ServerConfig{Name: "demo", Transport: mcp.TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: map[string]string{demoEnv: "1"}, StartTimeout: 20 * time.Second}
	rt := mcp.NewRuntime(&mcp.Config{Servers: []mcp.ServerConfig{sc}}, mcp.RuntimeOptions{CacheDir: t.TempDir(), OnEvent: calls.event})
	t.Cleanup(func() { rt.Close() })
	rt.SetTracing(true)
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return rt, calls
}

// openDice opens the demo's dice app on a new host; decide judges the
// app's tool calls.
func openDice(t *testing.T, rt *mcp.Runtime, decide func(context.Context, string, map[string]any) (string, error)) (*Host, *App) {
	t.Helper()
	return openDiceWith(t, rt, Spec{Decide: decide, Message: func(context.Context, string) error { return nil }})
}

// openDiceWith opens the demo's dice app with spec (its server, backend
// and view filled in) in a host of its own.
func openDiceWith(t *testing.T, rt *mcp.Runtime, spec Spec) (*Host, *App) {
	t.Helper()
	view, err := rt.ReadApp(context.Background(), "demo", demo.DiceAppURI)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	spec.Server, spec.Backend, spec.View = "demo", rt, view
	a, err := h.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return h, a
}

// rpc posts one bridge request as the host page does.
func rpc(t *testing.T, a *App, method string, params any) (result json.RawMessage, rerr *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, a.URL()+"rpc", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+a.host.hostport)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatalf("%s: status %d, not a JSON-RPC reply: %v", method, resp.StatusCode, err)
	}
	return reply.Result, reply.Error
}

func status(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func get(t *testing.T, url string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	return status(t, req)
}

func TestHostListensOnLoopbackOnly(t *testing.T) {
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	addr := h.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		t.Fatalf("the host listens on %v, want 127.0.0.1", addr)
	}
	// From this machine's other addresses, nothing answers on the port.
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), fmt.Sprint(addr.Port)), 5*time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the host answers on %s, which is not loopback", ipn.IP)
		}
	}
}

func TestARequestWithoutTheAppsTokenIsRefused(t *testing.T) {
	rt, _ := demoRuntime(t)
	h, a := openDice(t, rt, nil)
	base := "http://" + h.hostport
	if got := get(t, a.URL()); got != http.StatusOK {
		t.Fatalf("the app's own URL: %d, want 200", got)
	}
	token := a.token
	wrong := []byte(token)
	wrong[len(wrong)-1] ^= 1
	for _, u := range []string{base + "/", base + "/app/", base + "/app//view", base + "/app/" + string(wrong) + "/view",
		base + "/app/" + string(wrong) + "/state", base + "/" + token + "/view"} {
		if got := get(t, u); got != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", u, got)
		}
	}
	// The right token under another host name (DNS rebinding) is refused.
	req, _ := http.NewRequest(http.MethodGet, a.URL()+"state", nil)
	req.Host = "attacker.example:" + fmt.Sprint(h.Addr().(*net.TCPAddr).Port)
	if got := status(t, req); got != http.StatusMisdirectedRequest {
		t.Errorf("GET with Host %s: %d, want 421", req.Host, got)
	}
	// A bridge request not from the host page (no Origin, or another) is refused.
	for _, origin := range []string{"", "null", "http://attacker.example"} {
		req, _ := http.NewRequest(http.MethodPost, a.URL()+"rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roll_dice"}}`))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if got := status(t, req); got != http.StatusForbidden {
			t.Errorf("POST rpc with Origin %q: %d, want 403", origin, got)
		}
	}
}

func TestAnAppsCallToADeniedToolIsRefusedAndNeverRuns(t *testing.T) {
	rt, calls := demoRuntime(t)
	decide := func(_ context.Context, tool string, _ map[string]any) (string, error) {
		if tool == demo.DiceTool {
			return "allowed by the test", nil
		}
		return "denied by the test", errors.New("the user did not allow " + tool)
	}
	_, a := openDice(t, rt, decide)
	_, rerr := rpc(t, a, "tools/call", map[string]any{"name": demo.DeleteNoteTool, "arguments": map[string]any{"id": "note-001"}})
	if rerr == nil || rerr.Code != codeRefused || !strings.Contains(rerr.Message, "did not allow delete_note") {
		t.Errorf("a denied tools/call answered %+v, want a refusal saying the user did not allow it", rerr)
	}
	res, rerr := rpc(t, a, "tools/call", map[string]any{"name": demo.DiceTool, "arguments": map[string]any{"sides": 20}})
	var r struct {
		Structured struct{ Roll, Sides int } `json:"structuredContent"`
	}
	if rerr != nil || json.Unmarshal(res, &r) != nil || r.Structured.Sides != 20 || r.Structured.Roll < 1 {
		t.Errorf("an allowed tools/call: %s, %+v; want the server's roll of a d20", res, rerr)
	}
	if calls.ran(demo.DeleteNoteTool) || !calls.ran(demo.DiceTool) {
		t.Errorf("the server saw tools/call for %v; want roll_dice and never delete_note", calls.tools)
	}
}

func TestAppLinksPassTheBrowserURLRules(t *testing.T) {
	rt, _ := demoRuntime(t)
	_, a := openDice(t, rt, nil)
	var opened []string
	a.spec.OpenLink = func(_ context.Context, u string) error { opened = append(opened, u); return nil }
	if _, rerr := rpc(t, a, "ui/open-link", map[string]any{"url": "https://example.com/docs"}); rerr != nil {
		t.Errorf("an https link: %+v, want it opened", rerr)
	}
	for _, u := range []string{"javascript:alert(1)", "http://example.com/", "-Xoption", "file:///etc/passwd"} {
		if _, rerr := rpc(t, a, "ui/open-link", map[string]any{"url": u}); rerr == nil || !strings.Contains(rerr.Message, "will not open") {
			t.Errorf("link %q: %+v, want the browser URL rules' refusal", u, rerr)
		}
	}
	if len(opened) != 1 {
		t.Errorf("opened %v, want only the https link", opened)
	}
}

func TestTheViewGetsTheDeclaredCSPAndNoNetworkByDefault(t *testing.T) {
	csp, err := viewCSP(mcp.AppCSP{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "sandbox allow-scripts allow-forms"} {
		if !strings.Contains(csp, want) {
			t.Errorf("default CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "allow-same-origin") {
		t.Errorf("default CSP %q gives the app the host's origin", csp)
	}
	csp, err = viewCSP(mcp.AppCSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.cdn.example"}})
	if err != nil || !strings.Contains(csp, "connect-src https://api.example.com;") || !strings.Contains(csp, "script-src 'unsafe-inline' https://*.cdn.example;") {
		t.Errorf("declared CSP became %q (%v)", csp, err)
	}
	for _, bad := range []string{"https://x.example; script-src *", "*", "'unsafe-eval'", "https://a b"} {
		if _, err := viewCSP(mcp.AppCSP{ConnectDomains: []string{bad}}); err == nil {
			t.Errorf("origin %q was accepted into the CSP", bad)
		}
	}
}

func TestClosingTearsTheAppDownThroughItsPageThenDropsTheToken(t *testing.T) {
	rt, _ := demoRuntime(t)
	_, a := openDice(t, rt, nil)
	resp, err := http.Get(a.URL() + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	if l, err := lines.ReadString('\n'); err != nil || !strings.HasPrefix(l, ":") {
		t.Fatalf("events stream opened with %q (%v)", l, err)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		a.Close()
	}()
	for {
		l, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("the events stream ended without a teardown: %v", err)
		}
		if strings.TrimSpace(l) == "event: teardown" {
			break
		}
	}
	select {
	case <-closed:
		t.Fatal("Close returned before the page said the app was gone")
	default:
	}
	if _, rerr := rpc(t, a, "howl/torn-down", nil); rerr != nil {
		t.Fatal(rerr)
	}
	<-closed
	select {
	case <-a.Done():
	default:
		t.Error("Done is still open after Close")
	}
	if got := get(t, a.URL()); got != http.StatusNotFound {
		t.Errorf("the closed app's URL answers %d, want 404", got)
	}
}

// TestAnAppGetsOnlyTheBrowserFeaturesItDeclares: the iframe is allowed
// exactly the declared features, the view's Permissions-Policy denies the
// rest, and the host context says what howl granted.
func TestAnAppGetsOnlyTheBrowserFeaturesItDeclares(t *testing.T) {
	allow, policy := viewPermissions(mcp.AppPermissions{})
	if allow != "" || policy != "camera=(), microphone=(), geolocation=(), clipboard-write=()" {
		t.Errorf("nothing declared: allow %q, policy %q; want nothing allowed and all four denied", allow, policy)
	}
	rt, _ := demoRuntime(t)
	view, err := rt.ReadApp(context.Background(), "demo", demo.DiceAppURI)
	if err != nil {
		t.Fatal(err)
	}
	view.Permissions = mcp.AppPermissions{Geolocation: &struct{}{}}
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	a, err := h.Open(Spec{Server: "demo", Backend: rt, View: view})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(a.URL() + "view")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Permissions-Policy"); got != "camera=(), microphone=(), clipboard-write=()" {
		t.Errorf("the view's Permissions-Policy is %q, want every undeclared feature denied", got)
	}
	resp, err = http.Get(a.URL() + "state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var state struct {
		Allow      string `json:"allow"`
		Initialize struct {
			HostCapabilities struct {
				Sandbox struct {
					Permissions map[string]any `json:"permissions"`
				} `json:"sandbox"`
			} `json:"hostCapabilities"`
		} `json:"initialize"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&state); err != nil {
		t.Fatal(err)
	}
	if _, ok := state.Initialize.HostCapabilities.Sandbox.Permissions["geolocation"]; state.Allow != "geolocation" || !ok || len(state.Initialize.HostCapabilities.Sandbox.Permissions) != 1 {
		t.Errorf("allow %q, granted %v; want geolocation alone", state.Allow, state.Initialize.HostCapabilities.Sandbox.Permissions)
	}
}

// TestADisplayModeRequestIsAnsweredWithTheOneModeHowlHas: howl's page is
// one mode ("inline": the app sits in howl's page, under its header, and
// grows with its content); a request for another is answered with it, as
// the extension asks of a host that cannot switch.
func TestADisplayModeRequestIsAnsweredWithTheOneModeHowlHas(t *testing.T) {
	rt, _ := demoRuntime(t)
	_, a := openDice(t, rt, nil)
	for _, mode := range []string{"fullscreen", "pip", "inline"} {
		res, rerr := rpc(t, a, "ui/request-display-mode", map[string]any{"mode": mode})
		if rerr != nil || string(res) != `{"mode":"inline"}` {
			t.Errorf("request %s: %s %+v, want {\"mode\":\"inline\"}", mode, res, rerr)
		}
	}
}

// TestAnAppFloodingToolsCallIsRefusedPastMaxInFlight: with MaxInFlight of
// an app's calls waiting on howl, the next is refused at once, naming the
// bound, and never reaches the rules or the server; once they end, calls
// go through again.
func TestAnAppFloodingToolsCallIsRefusedPastMaxInFlight(t *testing.T) {
	rt, _ := demoRuntime(t)
	arrived, release := make(chan struct{}, MaxInFlight+1), make(chan struct{})
	decide := func(ctx context.Context, tool string, _ map[string]any) (string, error) {
		arrived <- struct{}{}
		select {
		case <-release:
			return "", errors.New("the test refuses " + tool)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	_, a := openDice(t, rt, decide)
	var wg sync.WaitGroup
	for range MaxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rpc(t, a, "tools/call", map[string]any{"name": demo.EchoTool, "arguments": map[string]any{"message": "flood"}})
		}()
	}
	for range MaxInFlight {
		<-arrived
	}
	_, rerr := rpc(t, a, "tools/call", map[string]any{"name": demo.EchoTool, "arguments": map[string]any{"message": "one too many"}})
	if rerr == nil || !strings.Contains(rerr.Message, fmt.Sprintf("MaxInFlight = %d", MaxInFlight)) {
		t.Errorf("the call past MaxInFlight answered %+v, want a refusal naming the bound", rerr)
	}
	if len(arrived) != 0 {
		t.Error("the call past MaxInFlight reached the permission rules")
	}
	close(release)
	wg.Wait()
	if _, rerr := rpc(t, a, "tools/call", map[string]any{"name": demo.EchoTool, "arguments": map[string]any{"message": "again"}}); rerr == nil || !strings.Contains(rerr.Message, "the test refuses") {
		t.Errorf("a call after the flood ended answered %+v, want it judged by the rules again", rerr)
	}
}

// TestAnAppsModelContextReachesTheHostBoundedAndClean: ui/update-model-
// context hands the host the app's text blocks and structuredContent (as
// JSON) without terminal controls; an empty update clears it; one over
// MaxModelContextBytes is refused naming the bound and the host's last
// context stands; the capability is offered only when the host keeps it,
// and without it an update is acknowledged and dropped.
func TestAnAppsModelContextReachesTheHostBoundedAndClean(t *testing.T) {
	rt, _ := demoRuntime(t)
	var mu sync.Mutex
	var got []string
	_, a := openDiceWith(t, rt, Spec{ModelContext: func(_ context.Context, text string) error {
		mu.Lock()
		got = append(got, text)
		mu.Unlock()
		return nil
	}})
	if !strings.Contains(stateOf(t, a), `"updateModelContext"`) {
		t.Error("the host keeps model context but does not offer updateModelContext")
	}
	update := map[string]any{
		"content":           []map[string]any{{"type": "text", "text": "rolled \x1b[31m4\x1b[0m"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
		"structuredContent": map[string]any{"roll": 4},
	}
	if _, rerr := rpc(t, a, "ui/update-model-context", update); rerr != nil {
		t.Fatal(rerr)
	}
	if _, rerr := rpc(t, a, "ui/update-model-context", map[string]any{"content": []map[string]any{{"type": "text", "text": strings.Repeat("x", MaxModelContextBytes+1)}}}); rerr == nil || !strings.Contains(rerr.Message, "MaxModelContextBytes") {
		t.Errorf("an update over the bound: %+v, want a refusal naming MaxModelContextBytes", rerr)
	}
	if _, rerr := rpc(t, a, "ui/update-model-context", map[string]any{}); rerr != nil {
		t.Fatal(rerr)
	}
	// 8,000 nested arrays (16 KB) would indent to 128 MB; compacted they
	// stay 20 KB, under the bound, and reach the host as sent.
	deep := json.RawMessage(strings.Repeat("[", 8000) + strings.Repeat("]", 8000))
	if _, rerr := rpc(t, a, "ui/update-model-context", map[string]any{"structuredContent": deep}); rerr != nil {
		t.Errorf("deeply nested structuredContent: %+v", rerr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || len(got[2]) > MaxModelContextBytes || !strings.HasSuffix(got[2], "]]]") {
		t.Fatalf("the deep update reached the host as %d bytes (%d updates); want it compact, within MaxModelContextBytes", len(got[len(got)-1]), len(got))
	}
	got = got[:2]
	if len(got) != 2 || got[1] != "" {
		t.Fatalf("the host got %q; want the update, then the clearing (the oversized one never reaches it)", got)
	}
	for _, want := range []string{"rolled 4", "[a image block, not kept", `structured content: {"roll":4}`} {
		if !strings.Contains(got[0], want) {
			t.Errorf("the context %q lacks %q", got[0], want)
		}
	}
	if strings.Contains(got[0], "\x1b") {
		t.Errorf("the context keeps a terminal control: %q", got[0])
	}

	_, plain := openDice(t, rt, nil)
	if strings.Contains(stateOf(t, plain), `"updateModelContext"`) {
		t.Error("a host without a model offers updateModelContext")
	}
	if _, rerr := rpc(t, plain, "ui/update-model-context", update); rerr != nil {
		t.Errorf("without a model an update is refused (%+v); want it acknowledged and dropped", rerr)
	}
}

// stateOf is the app's /state document, as its page reads it.
func stateOf(t *testing.T, a *App) string {
	t.Helper()
	resp, err := http.Get(a.URL() + "state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
