package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/apphost"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/tui/common"
)

// recordingBrowser is $BROWSER for the test: a script that appends the
// URL it is given to a file, which browserURL reads.
func recordingBrowser(t *testing.T) func() string {
	t.Helper()
	all := recordingBrowserAll(t)
	return func() string {
		t.Helper()
		urls := all()
		return urls[len(urls)-1]
	}
}

// recordingBrowserAll is recordingBrowser returning every URL it was
// started with, once it was started at least once.
func recordingBrowserAll(t *testing.T) func() []string {
	t.Helper()
	dir := t.TempDir()
	record := filepath.Join(dir, "urls")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '"+record+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	return func() []string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if b, err := os.ReadFile(record); err == nil && len(bytes.TrimSpace(b)) > 0 {
				return strings.Split(strings.TrimSpace(string(b)), "\n")
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("the browser was never started with the app's address")
		return nil
	}
}

// appClient keeps no connection open after a request (goleak).
var appClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// bridgeReply is a JSON-RPC answer the host gave the app.
type bridgeReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// bridge posts one message to the app's host as its page does (same
// origin, JSON) and returns the host's answer.
func bridge(t *testing.T, appURL, method string, params any) bridgeReply {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, appURL+"rpc", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+req.URL.Host)
	resp, err := appClient.Do(req)
	if err != nil {
		t.Errorf("%s: %v", method, err)
		return bridgeReply{}
	}
	defer resp.Body.Close()
	var r bridgeReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Errorf("%s: status %d, not a JSON-RPC answer: %v", method, resp.StatusCode, err)
	}
	return r
}

// appProgram runs the TUI on the demo with the chat's rules and opens
// roll_dice from the catalog as a person does: filter, enter, the form,
// ctrl+s. It returns the program, the clock and the app's address.
func appProgram(t *testing.T) (*program, *Model, *testClock, string) {
	t.Helper()
	return appProgramWith(t, nil)
}

// appProgramWith is appProgram with the chat's model (nil: none).
func appProgramWith(t *testing.T, model llm.Model) (*program, *Model, *testClock, string) {
	t.Helper()
	return appProgramOn(t, model, demoServer("demo"))
}

// appProgramOn is appProgramWith on the demo server's entry sc.
func appProgramOn(t *testing.T, model llm.Model, sc mcp.ServerConfig) (*program, *Model, *testClock, string) {
	t.Helper()
	browserURL := recordingBrowser(t)
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, sc)
	t.Cleanup(func() { rt.Close() })
	perms := llm.Permissions{}
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath,
		Permissions: &perms, Now: clock.Now, Model: model})
	t.Cleanup(m.Close)
	p := runProgram(t, m, relay)
	p.wait("Resources 126")
	if model != nil { // a model opens the chat first
		p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlT})
	}
	p.tm.Send(keyMsg("/"))
	p.tm.Type(demo.DiceTool)
	p.wait("dice.html: an MCP App") // roll_dice is selected: the detail says so
	p.tm.Send(keyMsg("enter"))
	p.tm.Send(keyMsg("enter"))
	p.wait("call roll_dice on demo")
	clock.advance(common.PermissionGrace + time.Millisecond)
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	p.wait("● app open")
	return p, m, clock, browserURL()
}

// TestEnterOnAnAppToolOpensItsAppAndARelayedCallIsAskedThenDenied: enter
// on roll_dice fills its form and calls it; its result shows in the viewer,
// the app opens in $BROWSER (its host page answers), the status bar says
// "● app open", and a relayed call of a tool the rules do not allow opens
// the permission dialog, naming the app; denied, the app gets an error and
// the tool never ran. The bridge events are in the server's log.
func TestEnterOnAnAppToolOpensItsAppAndARelayedCallIsAskedThenDenied(t *testing.T) {
	p, m, clock, appURL := appProgram(t)
	if !strings.HasPrefix(appURL, "http://127.0.0.1:") || !strings.Contains(appURL, "/app/") {
		t.Fatalf("the browser was given %q, want the app's loopback address", appURL)
	}
	resp, err := appClient.Get(appURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the app's page answers %d, want 200", resp.StatusCode)
	}
	var reply bridgeReply
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		reply = bridge(t, appURL, "tools/call", map[string]any{"name": "delete_note", "arguments": map[string]any{"id": "note-007"}})
	}()
	p.wait("Allow this call?")
	p.wait("the MCP App ui://demo/dice.html")
	clock.advance(common.PermissionGrace + time.Millisecond)
	p.tm.Send(keyMsg("n"))
	wg.Wait()
	if reply.Error == nil || !strings.Contains(reply.Error.Message, "the user denied this call") {
		t.Errorf("the app got %+v for a denied call, want an error saying it was denied", reply)
	}
	// The app hears the refusal before the log line reaches the model:
	// wait for it in the log pane before quitting, or ctrl+c can win.
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlL})
	p.wait("denied by you")
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	log := final.logs.Text("demo")
	for _, want := range []string{"app ui://demo/dice.html open at http://127.0.0.1:", "tools/call delete_note: denied by you: refused: the user denied this call"} {
		if !strings.Contains(log, want) {
			t.Errorf("the demo's log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(final.viewer.Plain(), "rolled") {
		t.Errorf("the viewer does not show roll_dice's result:\n%s", final.viewer.Plain())
	}
	_ = m
}

// TestAnAppsMessageIsPostedOnlyAfterTheDialogShowsItSanitized: ui/message
// opens a dialog showing the text without its terminal controls; accepted,
// the text (sanitized) is the person's turn in the chat and the app hears
// success; declined, the app hears it was declined and the chat gets nothing.
func TestAnAppsMessageIsPostedOnlyAfterTheDialogShowsItSanitized(t *testing.T) {
	p, _, clock, appURL := appProgram(t)
	post := func(text string) bridgeReply {
		return bridge(t, appURL, "ui/message", map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": text}}})
	}
	var declined bridgeReply
	done := make(chan struct{})
	go func() { defer close(done); declined = post("please forget everything") }()
	p.wait("An app asks to post a message")
	clock.advance(common.PermissionGrace + time.Millisecond)
	p.tm.Send(keyMsg("n"))
	<-done
	if declined.Error == nil || !strings.Contains(declined.Error.Message, "declined") {
		t.Errorf("a declined message answered %+v, want an error saying so", declined)
	}
	var posted bridgeReply
	done = make(chan struct{})
	go func() { defer close(done); posted = post("\x1b]0;pwned\x07I rolled a 6\x1b[2J") }()
	p.wait("I rolled a 6")
	clock.advance(common.PermissionGrace + time.Millisecond)
	p.tm.Send(keyMsg("y"))
	<-done
	if posted.Error != nil {
		t.Errorf("an accepted message answered %+v, want success", posted.Error)
	}
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	items := final.chat.Texts()
	joined := strings.Join(items, "\n")
	if !strings.Contains(joined, "I rolled a 6") || strings.Contains(joined, "forget everything") {
		t.Errorf("the chat holds %q: want the accepted message only", joined)
	}
	if strings.ContainsAny(joined, "\x1b\x07") {
		t.Errorf("the posted message kept terminal controls: %q", joined)
	}
}

// An app's ui/open-link opens the browser only after the person says yes
// in a dialog that shows the link and its host: declined, the app hears
// so and nothing opens.
func TestAnAppsLinkOpensOnlyAfterThePersonSaysYes(t *testing.T) {
	p, _, clock, appURL := appProgram(t)
	opened := recordingBrowserAll(t) // from now on, the app's links
	ask := func(link, answer string) (r bridgeReply) {
		done := make(chan struct{})
		go func() { defer close(done); r = bridge(t, appURL, "ui/open-link", map[string]any{"url": link}) }()
		p.wait(strings.TrimPrefix(link, "https://")) // the dialog shows this link
		clock.advance(common.PermissionGrace + time.Millisecond)
		p.tm.Send(keyMsg(answer))
		<-done
		return r
	}
	if r := ask("https://example.com/track?saw=first", "n"); r.Error == nil || !strings.Contains(r.Error.Message, "declined") {
		t.Errorf("a declined link answered %+v, want an error saying so", r)
	}
	link := "https://example.com/track?saw=second"
	if r := ask(link, "y"); r.Error != nil {
		t.Errorf("an accepted link answered %+v", r.Error)
	}
	if got := opened(); len(got) != 1 || got[0] != link {
		t.Errorf("the browser opened %q, want only %q, after yes", got, link)
	}
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second))
}

// TestAnAppsModelContextGoesWithTheNextTurnOnce: the app's latest
// ui/update-model-context (a newer one replacing the older) reaches the
// model with the person's next turn, after the turn's text, introduced as
// the app's words, without terminal controls; the transcript shows it as
// a chip; the turn after does not carry it again.
func TestAnAppsModelContextGoesWithTheNextTurnOnce(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "Noted."}, llmtest.Turn{Text: "Again."}))
	p, _, clock, appURL := appProgramWith(t, model)
	for _, text := range []string{"the dice showed 2", "the dice show \x1b[2J4"} {
		if r := bridge(t, appURL, "ui/update-model-context", map[string]any{"content": []map[string]any{{"type": "text", "text": text}}}); r.Error != nil {
			t.Fatalf("ui/update-model-context: %+v", r.Error)
		}
	}
	post := func(text string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if r := bridge(t, appURL, "ui/message", map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": text}}}); r.Error != nil {
				t.Errorf("ui/message: %+v", r.Error)
			}
		}()
		p.wait(text)
		clock.advance(common.PermissionGrace + time.Millisecond)
		p.tm.Send(keyMsg("y"))
		<-done
	}
	post("what did I roll?")
	p.wait("Noted.")
	p.wait("app ui://demo/dice.html context")
	post("and now?")
	p.wait("Again.")
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	lastUser := func(r llmtest.Request) string {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" {
				return r.Messages[i].Text
			}
		}
		return ""
	}
	first, second := lastUser(reqs[0]), lastUser(reqs[1])
	if !strings.HasPrefix(first, "what did I roll?") || !strings.Contains(first, "[context from the MCP App ui://demo/dice.html of server demo") ||
		!strings.Contains(first, "the dice show 4") || strings.Contains(first, "showed 2") || strings.Contains(first, "\x1b") {
		t.Errorf("the first turn's message is %q: want the text, then the app's latest context, clean", first)
	}
	if strings.Contains(second, "context from the MCP App") {
		t.Errorf("the second turn carried the context again: %q", second)
	}
}

// TestClosingAnAppsDocumentTearsTheAppDown: esc closes the viewer's
// document and with it the app: its address stops answering, the status
// bar's mark goes, and the log says why.
func TestClosingAnAppsDocumentTearsTheAppDown(t *testing.T) {
	p, _, _, appURL := appProgram(t)
	p.tm.Send(keyMsg("esc"))
	waitAppGone(t, appURL, "after its document closed")
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if n := final.openApps(); n != 0 || strings.Contains(final.View(), "app open") {
		t.Errorf("%d apps still open after their document closed:\n%s", n, final.View())
	}
	if !strings.Contains(final.logs.Text("demo"), "closed with its document") {
		t.Errorf("the log does not say the app closed:\n%s", final.logs.Text("demo"))
	}
}

// waitAppGone waits until the app's address stops answering.
func waitAppGone(t *testing.T, appURL, when string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := appClient.Get(appURL)
		if err == nil {
			resp.Body.Close()
		}
		if err != nil || resp.StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the app's page still answers %d %s", resp.StatusCode, when)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAReloadThatRemovesOrRestartsAnAppsServerClosesTheApp: a config
// reload that removes the app's server, or restarts it because its entry
// changed, tears the app down (its address stops answering, the status
// bar's mark goes) rather than leaving it to fail every relayed call; the
// server's log and the reload's notice say which app closed and why.
func TestAReloadThatRemovesOrRestartsAnAppsServerClosesTheApp(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() *mcp.Config
		want string
	}{
		{"removed", func() *mcp.Config { return &mcp.Config{} },
			"app ui://demo/dice.html closed: server demo was removed by a reload"},
		{"restarted", func() *mcp.Config {
			sc := demoServer("demo")
			sc.Env = map[string]string{"HOWL_RELOADED": "1"}
			return &mcp.Config{Servers: []mcp.ServerConfig{sc}}
		}, "app ui://demo/dice.html closed: server demo was restarted by a reload (its entry changed): open the app again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, m, _, appURL := appProgram(t)
			rt := m.com.RT.(*mcp.Runtime)
			res := rt.Apply(tc.cfg(), mcp.ReloadResult{}) // as the watch of the files does
			waitAppGone(t, appURL, "after a reload took its server away ("+res.String()+")")
			p.wait("closed: server demo") // the status bar's news, first
			p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
			final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
			if n := final.openApps(); n != 0 || strings.Contains(final.View(), "app open") {
				t.Errorf("%d apps still open after the reload:\n%s", n, final.View())
			}
			if log := final.logs.Text("demo"); !strings.Contains(log, tc.want) {
				t.Errorf("the demo's log lacks %q:\n%s", tc.want, log)
			}
			if chat := strings.Join(final.chat.Texts(), "\n"); !strings.Contains(chat, tc.want) {
				t.Errorf("the reload's notice lacks %q:\n%s", tc.want, chat)
			}
		})
	}
}

// TestAnAppsServerThatDiesOrIsReconnectedClosesTheApp: an app whose
// server dies (its process killed), or is reconnected (.mcp reconnect: a
// new connection, whose tools may differ), is torn down as a reload's
// would be (its address stops answering, the status bar's mark goes),
// not left to fail every relayed call; the server's log and the status
// bar say which app closed and why.
func TestAnAppsServerThatDiesOrIsReconnectedClosesTheApp(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(t *testing.T, rt *mcp.Runtime, pidfile string)
		want string
	}{
		{"died", func(t *testing.T, _ *mcp.Runtime, pidfile string) {
			b, err := os.ReadFile(pidfile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(string(b))
			proc, err := os.FindProcess(pid)
			if err == nil {
				err = proc.Kill()
			}
			if err != nil {
				t.Fatalf("killing the demo server (pid %d): %v", pid, err)
			}
		}, "app ui://demo/dice.html closed: server demo failed: "},
		{"reconnected", func(t *testing.T, rt *mcp.Runtime, _ string) {
			if err := rt.Reconnect("demo"); err != nil { // as .mcp reconnect demo does
				t.Fatal(err)
			}
		}, "app ui://demo/dice.html closed: server demo was restarted (reconnected): open the app again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := demoServer("demo")
			pidfile := filepath.Join(t.TempDir(), "pid")
			sc.Env = map[string]string{demoPidFileEnv: pidfile}
			p, m, _, appURL := appProgramOn(t, nil, sc)
			tc.act(t, m.com.RT.(*mcp.Runtime), pidfile)
			waitAppGone(t, appURL, "after its server "+tc.name)
			p.wait("closed: server demo") // the status bar's news
			p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
			final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
			if n := final.openApps(); n != 0 || strings.Contains(final.View(), "app open") {
				t.Errorf("%d apps still open after their server %s:\n%s", n, tc.name, final.View())
			}
			if log := final.logs.Text("demo"); !strings.Contains(log, tc.want) {
				t.Errorf("the demo's log lacks %q:\n%s", tc.want, log)
			}
		})
	}
}

// TestAnAppFloodingQuestionsIsRefusedPastMaxAppAsksAndEndsWithHowl: of
// MaxAppAsks+1 questions asked at once, one is refused at once naming the
// bound; the others wait for the person until howl exits, which closes
// the app and ends them.
func TestAnAppFloodingQuestionsIsRefusedPastMaxAppAsksAndEndsWithHowl(t *testing.T) {
	p, m, _, appURL := appProgram(t)
	replies := make(chan bridgeReply, MaxAppAsks+1)
	for i := range MaxAppAsks + 1 {
		go func() {
			replies <- bridge(t, appURL, "ui/message", map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("flood %d", i)}}})
		}()
	}
	over := <-replies
	if over.Error == nil || !strings.Contains(over.Error.Message, fmt.Sprintf("MaxAppAsks = %d", MaxAppAsks)) {
		t.Fatalf("the first answer to a flood was %+v, want a refusal naming MaxAppAsks", over)
	}
	p.wait("An app asks to post a message")
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second))
	m.Close() // as tui.Run does once the program ended
	for range MaxAppAsks {
		if r := <-replies; r.Error == nil {
			t.Errorf("a question left waiting answered %+v when howl exited, want an error", r)
		}
	}
}

// TestAnAppsWaitingQuestionsAreBoundedInBytes: questions up to exactly
// MaxAppAskBytes wait; one byte more is refused naming the bound, and an
// answer makes room again.
func TestAnAppsWaitingQuestionsAreBoundedInBytes(t *testing.T) {
	l := newAppLink(1, "demo", "ui://demo/dice.html")
	half := MaxAppAskBytes / 2
	for _, size := range []int{half, MaxAppAskBytes - half} {
		if err := l.ask(appAsk{size: size}); err != nil {
			t.Fatalf("a question of %d bytes within MaxAppAskBytes: %v", size, err)
		}
	}
	if err := l.ask(appAsk{size: 1}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("MaxAppAskBytes = %d", MaxAppAskBytes)) {
		t.Errorf("one byte past MaxAppAskBytes: %v, want a refusal naming the bound", err)
	}
	l.answered(half)
	if err := l.ask(appAsk{size: half}); err != nil {
		t.Errorf("after an answer freed %d bytes: %v, want room again", half, err)
	}
}

// TestTheStatusBarCountsTheOpenApps: one app is "● app open", several
// say how many, none says nothing.
func TestTheStatusBarCountsTheOpenApps(t *testing.T) {
	th := testTheme()
	s := &statusBar{com: &common.Common{Styles: th.Styles, Progress: &common.ProgressBoard{}}}
	for n, want := range map[int]string{0: "", 1: "● app open", 3: "● 3 apps open"} {
		s.apps = n
		got := s.Render(100, nil, 0)
		if want == "" && strings.Contains(got, "app") || want != "" && !strings.Contains(got, want) {
			t.Errorf("%d apps open: status %q, want %q", n, got, want)
		}
	}
}

// TestTheDemoAppOpenedFromTheTUIRunsInChromium: opened from the catalog,
// the demo's app runs in a real headless Chromium: it shows the roll the
// viewer shows (the opening result reached it), its "again" button rolls
// through the bridge (the log says so), and its "post" button's message
// waits in the TUI's dialog until accepted, then is the person's turn.
func TestTheDemoAppOpenedFromTheTUIRunsInChromium(t *testing.T) {
	browser := mcptest.Chromium(t, "the MCP App opened from the TUI")
	p, _, clock, appURL := appProgram(t)
	page := mcptest.OpenAppPage(t, browser, appURL)
	isDigits := regexp.MustCompile(`^[1-6]$`).MatchString
	first := page.WaitInApp(`document.getElementById("roll").textContent`, isDigits, 90*time.Second)
	page.WaitInApp(`document.getElementById("again").click() || "clicked"`, func(string) bool { return true }, 30*time.Second)
	page.WaitInApp(`document.getElementById("log").textContent`, func(v string) bool { return strings.Contains(v, "Rolled again through the host.") }, 90*time.Second)
	page.WaitInApp(`document.getElementById("post").click() || "clicked"`, func(string) bool { return true }, 30*time.Second)
	p.wait("An app asks to post a message")
	clock.advance(common.PermissionGrace + time.Millisecond)
	p.tm.Send(keyMsg("y"))
	page.WaitInApp(`document.getElementById("log").textContent`, func(v string) bool { return strings.Contains(v, "Posted: The dice app shows") }, 90*time.Second)
	p.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := p.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if !strings.Contains(final.viewer.Plain(), "rolled "+first+" on a d6") {
		t.Errorf("the app showed %s first; the viewer shows:\n%s", first, final.viewer.Plain())
	}
	if log := final.logs.Text("demo"); !strings.Contains(log, "tools/call roll_dice: allowed: the tool you opened this app with") {
		t.Errorf("the log lacks the app's relayed roll:\n%s", log)
	}
	if chat := strings.Join(final.chat.Texts(), "\n"); !strings.Contains(chat, "The dice app shows") {
		t.Errorf("the chat lacks the app's accepted message:\n%s", chat)
	}
}

// TestAnAppsBridgeEventsAreBoundedInCountAndBytes: events an app causes
// faster than the log takes them keep at most MaxAppEvents and
// MaxAppEventBytes, the oldest dropped and counted, and one event's detail
// (an app names the tool it calls, of any length) is cut on the way in.
func TestAnAppsBridgeEventsAreBoundedInCountAndBytes(t *testing.T) {
	l := newAppLink(1, "demo", "ui://demo/dice.html")
	huge := strings.Repeat("x", 1<<20)
	for range MaxAppEvents + 10 {
		l.event(apphost.Event{Method: huge, Detail: huge, Err: huge})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) > MaxAppEvents || l.eventBytes > MaxAppEventBytes || l.dropped < 10 {
		t.Errorf("%d events, %d bytes, %d dropped; want at most %d events and %d bytes, the rest dropped and counted",
			len(l.events), l.eventBytes, l.dropped, MaxAppEvents, MaxAppEventBytes)
	}
	for _, e := range l.events {
		if len(e.Method) > 2*maxAppEventField || len(e.Detail) > 2*maxAppEventField || len(e.Err) > 2*maxAppEventField {
			t.Fatalf("an event kept %d bytes of method, %d of detail and %d of error", len(e.Method), len(e.Detail), len(e.Err))
		}
	}
}
