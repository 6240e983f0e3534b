package tui

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/logs"
)

var ctrlL = tea.KeyMsg{Type: tea.KeyCtrlL}

// logTime is the fixed clock of the log tests: lines show 09:30:00.
var logTime = time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)

// logHarness is a harness on a fake runtime with servers mem and web,
// a fixed clock and UTC times.
func logHarness(t *testing.T, w, h int) (*harness, *fakeRuntime) {
	t.Helper()
	rt := newFakeRuntime()
	rt.addServer("mem", sampleItems()...)
	rt.addServer("web")
	hs := newHarness(t, rt, []string{"mem", "web"}, w, h)
	hs.m.com.Clock = func() time.Time { return logTime }
	hs.m.com.Location = time.UTC
	t.Cleanup(hs.dumpOnFailure)
	return hs, rt
}

func logMessage(server, level, logger string, data any) mcp.Event {
	return mcp.Event{Kind: mcp.EventNotification, Server: server, Method: "notifications/message",
		Params: map[string]any{"level": level, "logger": logger, "data": data}}
}

func stderrLine(server, line string) mcp.Event {
	return mcp.Event{Kind: mcp.EventStderr, Server: server, Line: line}
}

// chatText is every transcript item's text, one per line.
func chatText(h *harness) string {
	var b strings.Builder
	for _, text := range h.m.chat.Texts() {
		b.WriteString(text + "\n")
	}
	return b.String()
}

func TestLogPaneShowsMessagesAndStderrWithEscapesStripped(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	hs.send(EventsMsg{Events: []mcp.Event{
		stderrLine("mem", "\x1b]0;pwned\x07booting \x1b[31mred\x1b[0m engine\x9b2J"),
		logMessage("mem", "warning", "db\x1b[2J", "disk \x1b[5mnearly\x1b[0m full"),
		logMessage("mem", "debug", "", map[string]any{"rows": 3, "ok": true}),
		logMessage("mem", "error", "net", "line one\nline \x1b[1mtwo\x1b[0m"),
	}})
	if hs.m.logs.IsOpen() {
		t.Fatal("the log opened by itself")
	}
	hs.send(ctrlL)
	if !hs.m.logs.IsOpen() || hs.m.layout.Logs.Empty() {
		t.Fatal("ctrl+l did not open the log pane")
	}
	v := hs.view()
	if strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\u009b') || strings.Contains(v, "\a") {
		t.Fatalf("an escape from a server reached the screen: %q", v)
	}
	for _, want := range []string{
		"09:30:00 stderr booting red engine",
		"09:30:00 warn   db: disk nearly full",
		`09:30:00 debug  {"ok":true,"rows":3}`,
		"09:30:00 error  net: line one",
		"09:30:00 error  net: line two",
		"[mem]", "web", "5 lines",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the log pane lacks %q:\n%s", want, v)
		}
	}
	// Warnings and worse still flash in the status bar (the last one shows).
	if !strings.Contains(v, "mem error: line one line two") {
		t.Errorf("the warning did not reach the status bar:\n%s", v)
	}
}

func TestLogPaneKeepsTheLastLinesAndSaysHowManyWereDropped(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	var evs []mcp.Event
	for i := 1; i <= logs.MaxLogLines+50; i++ {
		evs = append(evs, stderrLine("mem", fmt.Sprintf("line %05d", i)))
	}
	hs.send(EventsMsg{Events: evs})
	hs.send(ctrlL)
	v := hs.view()
	if !strings.Contains(v, fmt.Sprintf("%d lines · 50 older dropped (keeps %d, 1.0 MiB)", logs.MaxLogLines, logs.MaxLogLines)) {
		t.Errorf("the title does not say what was dropped:\n%s", v)
	}
	if !strings.Contains(v, fmt.Sprintf("line %05d", logs.MaxLogLines+50)) {
		t.Errorf("the newest line is not shown:\n%s", v)
	}
	hs.keys("g")
	v = hs.view()
	if !strings.Contains(v, "line 00051") || strings.Contains(v, "line 00050") {
		t.Errorf("the oldest kept line should be 51:\n%s", v)
	}
	if lines, _, dropped := hs.m.logs.Held("mem"); lines != logs.MaxLogLines || dropped != 50 {
		t.Errorf("ring holds %d, dropped %d", lines, dropped)
	}
}

func TestLogPaneFollowsTheTailUnlessScrolledUp(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	add := func(from, to int) {
		var evs []mcp.Event
		for i := from; i <= to; i++ {
			evs = append(evs, stderrLine("mem", fmt.Sprintf("entry %03d", i)))
		}
		hs.send(EventsMsg{Events: evs})
	}
	add(1, 100)
	hs.send(ctrlL)
	add(101, 101)
	if v := hs.view(); !strings.Contains(v, "entry 101") {
		t.Fatalf("the log does not follow its tail:\n%s", v)
	}
	hs.keys("pgup")
	before := hs.view()
	if !strings.Contains(before, "scrolled up") || strings.Contains(before, "entry 101") {
		t.Fatalf("pgup did not scroll up:\n%s", before)
	}
	add(102, 110)
	if after := hs.view(); strings.Contains(after, "entry 110") {
		t.Errorf("new lines moved a scrolled-up view:\n%s", after)
	}
	hs.keys("G")
	if v := hs.view(); !strings.Contains(v, "entry 110") || strings.Contains(v, "scrolled up") {
		t.Errorf("G did not return to the tail:\n%s", v)
	}
}

func TestLogPaneTogglesSwitchesServersAndGivesKeysBack(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	hs.send(EventsMsg{Events: []mcp.Event{stderrLine("mem", "from mem"), stderrLine("web", "from web")}})
	hs.send(ctrlL)
	if !hs.m.logs.Focused() || hs.m.logs.Server() != "mem" {
		t.Fatalf("open: focused %v, server %q", hs.m.logs.Focused(), hs.m.logs.Server())
	}
	if v := hs.view(); !strings.Contains(v, "from mem") || strings.Contains(v, "from web") || !strings.Contains(v, "next server") {
		t.Fatalf("mem's log with its keys in the help line:\n%s", v)
	}
	hs.keys("]")
	if v := hs.view(); !strings.Contains(v, "[web]") || !strings.Contains(v, "from web") || strings.Contains(v, "from mem") {
		t.Fatalf("] did not switch to web:\n%s", v)
	}
	if hs.m.catalog.Tab() != 0 {
		t.Fatal("] reached the catalog while the log had the keys")
	}
	hs.keys("]")
	if v := hs.view(); !strings.Contains(v, "[all]") || !strings.Contains(v, "09:30:00 mem stderr from mem") || !strings.Contains(v, "09:30:00 web stderr from web") {
		t.Fatalf("] after the last server should show every server's lines:\n%s", v)
	}
	hs.keys("]")
	if hs.m.logs.Server() != "mem" {
		t.Fatalf("] after all went to %q, want mem", hs.m.logs.Server())
	}
	hs.keys("[", "[", "[")
	if hs.m.logs.Server() != "mem" {
		t.Fatalf("[ three times from mem went to %q", hs.m.logs.Server())
	}
	hs.keys("esc")
	if !hs.m.logs.IsOpen() || hs.m.logs.Focused() {
		t.Fatal("esc should leave the log open without the keys")
	}
	hs.keys("2")
	if hs.m.catalog.Tab() != 1 {
		t.Fatal("the catalog did not get the keys back")
	}
	hs.send(ctrlL)
	if !hs.m.logs.Focused() {
		t.Fatal("ctrl+l on an open log should give it the keys")
	}
	hs.send(ctrlL)
	if hs.m.logs.IsOpen() || !hs.m.layout.Logs.Empty() {
		t.Fatal("ctrl+l on a focused log should close it")
	}
	// In the chat, ctrl+l works while the input has the keys and typed
	// text is unaffected.
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.typeText("hello")
	hs.send(ctrlL)
	if !hs.m.logs.IsOpen() || hs.m.input.Value() != "hello" || hs.m.layout.Chat.Empty() {
		t.Fatalf("ctrl+l in the chat: open %v, input %q", hs.m.logs.IsOpen(), hs.m.input.Value())
	}
	hs.keys("esc")
	hs.typeText("!")
	if hs.m.input.Value() != "hello!" {
		t.Errorf("after esc the input should have the keys: %q", hs.m.input.Value())
	}
}

func TestLogPaneEnterOpensTheWholeLogInTheViewer(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "info", "app", "hello from the log")}})
	hs.send(ctrlL)
	hs.keys("enter")
	if !hs.m.viewer.Open() {
		t.Fatal("enter did not open the viewer")
	}
	if v := hs.view(); !strings.Contains(v, "log of mem") || !strings.Contains(v, "info   app: hello from the log") {
		t.Errorf("the viewer does not show the log:\n%s", v)
	}
}

func TestLogPaneSeedsTheStderrOfARealServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A real stdio server that writes escapes to stderr before serving.
	noisy := demoServer("noisy")
	noisy.Command, noisy.Args = "/bin/sh", []string{"-c", `printf '\033]0;pwned\007noisy \033[31mstarting\033[0m up\n' >&2; exec "$0" demo-server`, exe}
	rt := newRuntime(t, nil, noisy)
	defer rt.Close()
	hs := newHarness(t, rt, []string{"noisy"}, 120, 40)
	defer hs.dumpOnFailure()
	hs.send(ctrlL)
	v := hs.view()
	if !strings.Contains(v, "stderr noisy starting up") {
		t.Fatalf("the server's stderr is not in the log:\n%s", v)
	}
	if strings.ContainsRune(v, '\x1b') || strings.Contains(v, "pwned") {
		t.Fatalf("the stderr escapes reached the screen: %q", v)
	}
}

// TestGoldenLogPane draws the log pane under the catalog and in the chat.
func TestGoldenLogPane(t *testing.T) {
	for _, size := range goldenSizes {
		for _, inChat := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d_catalog", size.w, size.h)
			if inChat {
				name = fmt.Sprintf("%dx%d_chat", size.w, size.h)
			}
			t.Run(name, func(t *testing.T) {
				hs, _ := logHarness(t, size.w, size.h)
				if inChat {
					hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
				}
				hs.send(EventsMsg{Events: []mcp.Event{
					stderrLine("mem", "mem server 1.2 listening on stdio"),
					logMessage("mem", "info", "store", "opened 3 tables"),
					logMessage("mem", "notice", "", map[string]any{"cache": "warm", "entries": 120}),
					logMessage("mem", "warning", "store", "table \x1b[1musers\x1b[0m is 91% full"),
					logMessage("mem", "error", "net", "peer reset the connection"),
					logMessage("mem", "critical", "", "out of file descriptors"),
					stderrLine("web", "web is quiet"),
				}})
				hs.send(ctrlL)
				requireGolden(t, hs.view())
				if size.w == 120 && !inChat {
					hs.keys("]", "]")
					t.Run("all", func(t *testing.T) { requireGolden(t, hs.view()) })
				}
			})
		}
	}
}

func TestLayoutPutsTheLogBetweenTheBodyAndTheHelpLine(t *testing.T) {
	for _, size := range []struct{ w, h int }{{MinWidth, MinHeight}, {80, 24}, {120, 40}, {200, 60}} {
		for _, inChat := range []bool{false, true} {
			l := ComputeLayout(size.w, size.h, LayoutState{Chat: inChat, InputH: chat.MaxInputLines, Logs: true})
			body := l.List
			if inChat {
				body = l.Input
			}
			if l.Logs.H < minLogRows || l.Logs.W != size.w || l.Logs.Y != body.Y+body.H || l.Logs.Y+l.Logs.H != l.Help.Y {
				t.Errorf("%dx%d inChat=%v: logs %+v, body %+v, help %+v", size.w, size.h, inChat, l.Logs, body, l.Help)
			}
			if inChat && l.Chat.H < 1 || !inChat && l.List.H < minBodyRows {
				t.Errorf("%dx%d inChat=%v: the body is too small: %+v %+v", size.w, size.h, inChat, l.Chat, l.List)
			}
			if off := ComputeLayout(size.w, size.h, LayoutState{Chat: inChat}); !off.Logs.Empty() {
				t.Errorf("a closed log has a rect: %+v", off.Logs)
			}
		}
	}
}

// eventPump collects a real runtime's events for a synchronous harness.
type eventPump struct {
	mu  sync.Mutex
	evs []mcp.Event
}

func (p *eventPump) push(e mcp.Event) {
	p.mu.Lock()
	p.evs = append(p.evs, e)
	p.mu.Unlock()
}

// deliver sends the events collected so far to the harness.
func (p *eventPump) deliver(h *harness) {
	p.mu.Lock()
	evs := p.evs
	p.evs = nil
	p.mu.Unlock()
	if len(evs) > 0 {
		h.send(EventsMsg{Events: evs})
	}
}

// waitFor delivers events until cond holds, or fails after 20 s.
func (p *eventPump) waitFor(h *harness, what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
		p.deliver(h)
	}
}

// demoLogHarness is the chat (120x40) on a live demo server whose events
// the pump delivers, the ones so far already in.
func demoLogHarness(t *testing.T) (*harness, *eventPump) {
	t.Helper()
	pump := &eventPump{}
	rt := newRuntime(t, pump.push, demoServer("demo"))
	t.Cleanup(func() { rt.Close() })
	hs := newChatHarness(t, rt, []string{"demo"}, 120, 40, Options{})
	t.Cleanup(hs.dumpOnFailure)
	pump.deliver(hs)
	return hs, pump
}

func TestLogLevelReachesTheDemoAndItsMessagesShowInTheLog(t *testing.T) {
	hs, pump := demoLogHarness(t)

	hs.line(".loglevel demo warning")
	if !strings.Contains(chatText(hs), "demo now sends log messages at warning and above") {
		t.Fatalf("no confirmation:\n%s", chatText(hs))
	}
	hs.line(".call demo " + demo.SlowTool + " duration_ms=20 steps=2")
	hs.keys("esc") // back to the chat
	hs.line(".loglevel demo debug")
	hs.line(".call demo " + demo.SlowTool + " duration_ms=20 steps=2")
	log := func() string { return hs.m.logs.Text("demo") }
	pump.waitFor(hs, "the slow tool's log messages", func() bool { return strings.Contains(log(), "slow: step 2 of 2 done") })
	got := log()
	// At warning the first call's info lines were not sent.
	if n := strings.Count(got, "slow: starting"); n != 1 {
		t.Errorf("%d calls logged their start, want only the one at debug:\n%s", n, got)
	}
	for _, want := range []string{"howl   log level set to warning", "howl   log level set to debug", "info   " + demo.SlowTool + ": starting 2 steps over 20 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
	hs.keys("esc")
	hs.send(ctrlL)
	if v := hs.view(); !strings.Contains(v, "slow: step 2 of 2 done") {
		t.Errorf("the log pane does not show the messages:\n%s", v)
	}
}

func TestLogLevelRejectsABadLevelAndTeachesTheValidOnes(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	hs.line(".loglevel demo loud")
	hs.line(".loglevel nowhere info")
	hs.line(".loglevel demo")
	got := chatText(hs)
	for _, want := range []string{
		`.loglevel: "loud" is not a log level: use one of debug, info, notice, warning, error, critical, alert, emergency`,
		`.loglevel: no server is named "nowhere": the servers are demo`,
		"usage: .loglevel <server> <level>: the levels are debug",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the chat lacks %q:\n%s", want, got)
		}
	}
}

func TestLogLevelOnAServerWithoutLoggingSaysSo(t *testing.T) {
	hs, rt := logHarness(t, 120, 40) // the fake's servers declare no logging
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.line(".loglevel mem debug")
	if got := chatText(hs); !strings.Contains(got, "server mem does not offer logging") {
		t.Errorf("no teaching error:\n%s", got)
	}
	if rt.callCount("loglevel") != 0 {
		t.Error("the level was sent to a server without logging")
	}
}

func TestLogLevelAndTasksComplete(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	for _, tc := range []struct{ line, want string }{
		{".logl", ".loglevel"},
		{".loglevel ", "demo"},
		{".loglevel demo ", "emergency"},
		{".tasks ", "cancel"},
		{".mcp ", "auth"},
		{".mcp auth ", "demo"},
	} {
		hs.m.comp.Close()
		hs.m.input.SetValue(tc.line)
		hs.keys("tab")
		if got := completionLabels(hs); !contains(got, tc.want) {
			t.Errorf("%q completes to %v, want %q among them", tc.line, got, tc.want)
		}
	}
}

func TestTasksSaysNoneRunningOnTheDemo(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	hs.line(".tasks")
	if got := chatText(hs); !strings.Contains(got, "no tasks running") {
		t.Errorf(".tasks on an idle server:\n%s", got)
	}
	hs.line(".tasks cancel t-1")
	if got := chatText(hs); !strings.Contains(got, `.tasks cancel: no task "t-1": no tasks are running`) {
		t.Errorf(".tasks cancel with none running:\n%s", got)
	}
}

// tasksRuntime is a fake with running tasks; Cancel ends one.
type tasksRuntime struct {
	*fakeRuntime
	mu    sync.Mutex
	tasks []mcp.RunningTask
}

func (r *tasksRuntime) Tasks() []mcp.RunningTask {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]mcp.RunningTask(nil), r.tasks...)
}

func (r *tasksRuntime) Cancel(token string) bool {
	r.fakeRuntime.Cancel(token)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, t := range r.tasks {
		if t.Token == token {
			r.tasks = append(r.tasks[:i], r.tasks[i+1:]...)
			return true
		}
	}
	return false
}

func TestTasksListsRunningTasksAndCancelsOne(t *testing.T) {
	f := newFakeRuntime()
	f.addServer("mem", sampleItems()...)
	rt := &tasksRuntime{fakeRuntime: f, tasks: []mcp.RunningTask{
		{Server: "mem", TaskID: "task-7", Tool: "research", Status: "working", Message: "reading \x1b[31msources\x1b[0m", Started: logTime.Add(-95 * time.Second), Token: "tok-7"},
		{Server: "mem", TaskID: "task-9", Tool: "wipe", Status: "input_required", Started: logTime.Add(-3 * time.Second), Token: "tok-9"},
	}}
	hs := newChatHarness(t, rt, []string{"mem"}, 120, 40, Options{Now: func() time.Time { return logTime }})
	defer hs.dumpOnFailure()
	hs.line(".tasks")
	got := chatText(hs)
	for _, want := range []string{"server  tool      task    status          age    message", "mem     research  task-7  working         1m35s  reading sources", "task-9  input_required  3s", ".tasks cancel <task> cancels one"} {
		if !strings.Contains(got, want) {
			t.Errorf("the tasks table lacks %q:\n%s", want, got)
		}
	}
	hs.line(".tasks cancel task-7")
	if f.callCount("cancel tok-7") != 1 || !strings.Contains(chatText(hs), "cancelling task task-7 (research on mem)") {
		t.Errorf("cancel did not reach the runtime: %v\n%s", f.calls, chatText(hs))
	}
	hs.line(".tasks cancel task-7")
	if got := chatText(hs); !strings.Contains(got, `no task "task-7": the running tasks are task-9`) {
		t.Errorf("cancelling an ended task:\n%s", got)
	}
	if !strings.Contains(hs.m.logs.Text("mem"), "cancelled task task-7") {
		t.Error("the cancel is not noted in the server's log")
	}
}

func TestMCPAuthOnAStdioServerErrorsClearly(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	hs.line(".mcp auth demo")
	got := chatText(hs)
	if !strings.Contains(got, ".mcp auth demo: server demo is a local (stdio) server: only url servers log in") {
		t.Errorf("no clear error:\n%s", got)
	}
	if len(hs.m.logins) != 0 {
		t.Errorf("a failed login is still awaited: %v", hs.m.logins)
	}
	hs.line(".mcp auth nowhere")
	if got := chatText(hs); !strings.Contains(got, `.mcp: no server is named "nowhere"`) {
		t.Errorf("unknown server:\n%s", got)
	}
}

func TestMCPAuthReportsTheStateThatFollowsAndTheListShowsTheFix(t *testing.T) {
	f := newFakeRuntime()
	f.addServer("remote")
	f.statuses[0].State, f.statuses[0].Reason = mcp.StateAuthRequired, "the server answered 401"
	hs := newChatHarness(t, f, []string{"remote"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.line(".mcp")
	if got := chatText(hs); !strings.Contains(got, "auth-required  shown  the server answered 401 · fix: .mcp auth remote") {
		t.Fatalf(".mcp does not show the fix:\n%s", got)
	}
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT}) // the catalog, where S lists the servers
	hs.keys("S")
	if v := hs.view(); !strings.Contains(v, "fix       .mcp auth remote in the chat logs in") {
		t.Errorf("the servers dialog does not show the fix:\n%s", v)
	}
	hs.keys("esc")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.line(".mcp auth remote")
	if f.callCount("login remote") != 1 || !strings.Contains(chatText(hs), "logging in to remote: finish the login in the browser") {
		t.Fatalf("login not started: %v\n%s", f.calls, chatText(hs))
	}
	ready := mcp.Status{Name: "remote", State: mcp.StateReady}
	hs.send(EventsMsg{Events: []mcp.Event{
		{Kind: mcp.EventState, Server: "remote", Status: mcp.Status{Name: "remote", State: mcp.StateStarting}},
		{Kind: mcp.EventState, Server: "remote", Status: ready},
	}})
	if got := chatText(hs); !strings.Contains(got, "remote is logged in and ready") {
		t.Errorf("the login's result is not said:\n%s", got)
	}
	// A later state change is not reported as a login.
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "remote", Status: ready}}})
	if n := strings.Count(chatText(hs), "logged in"); n != 1 {
		t.Errorf("the login was reported %d times", n)
	}
	// A login that does not finish says so and how to retry.
	hs.line(".mcp auth remote")
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "remote", Status: mcp.Status{Name: "remote", State: mcp.StateAuthRequired, Reason: "the browser login timed out"}}}})
	if got := chatText(hs); !strings.Contains(got, "remote still needs authorization: the browser login timed out (.mcp auth remote tries again)") {
		t.Errorf("a failed login:\n%s", got)
	}
}

// TestTeatestLogLevelThenTheDemoLogsIntoThePane runs the real program on
// the demo over stdio, events arriving through the relay: .loglevel
// debug, a call to the slow tool, and its log messages in the pane.
func TestTeatestLogLevelThenTheDemoLogsIntoThePane(t *testing.T) {
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, demoServer("demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, StartInChat: true})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	tm.Type(".loglevel demo debug")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("demo now sends log messages at debug and above")
	tm.Type(".call demo " + demo.SlowTool + " duration_ms=20 steps=2")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("finished 2 steps")
	tm.Send(ctrlL)
	wait("slow: step 2 of 2 done")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})

	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	v := final.View()
	for _, want := range []string{"─ log [demo]", "howl   log level set to debug", "info   " + demo.SlowTool + ": step 2 of 2 done"} {
		if !strings.Contains(v, want) {
			t.Errorf("the final screen lacks %q:\n%s", want, v)
		}
	}
	if strings.ContainsRune(v, '\x1b') {
		t.Errorf("escape bytes in the view: %q", v)
	}
	m.Close()
}

// t in the log pane traces every request howl sends: each shows with what
// it named, its time and size (or its error); t again stops it.
func TestTracingShowsEachRequestInTheLog(t *testing.T) {
	hs, pump := demoLogHarness(t)

	hs.send(ctrlL)
	hs.keys("t")
	if !strings.Contains(hs.view(), "tracing requests") {
		t.Fatalf("the pane does not say it traces:\n%s", hs.view())
	}
	hs.keys("esc") // the keys back to the chat
	hs.line(".call demo " + demo.EchoTool + " message=hi")
	hs.keys("esc")
	hs.line(".read demo " + demo.BrokenURI)
	hs.keys("esc")
	hs.line(".call demo " + demo.AddNoteTool + " title=traced")
	log := func() string { return hs.m.logs.Text("demo") }
	pump.waitFor(hs, "the traced requests and the list change", func() bool {
		return strings.Contains(log(), "→ tools/call echo") && strings.Contains(log(), "→ resources/read "+demo.BrokenURI) &&
			strings.Contains(log(), "← notifications/resources/list_changed")
	})
	for _, re := range []string{`rpc    → tools/call echo · [0-9.]+[µm]?s · \d+ B`, `rpc    → resources/read demo://data/broken · [0-9.]+[µm]?s · failed: -32603 `} {
		if !regexp.MustCompile(re).MatchString(log()) {
			t.Errorf("the log has no line like %s:\n%s", re, log())
		}
	}

	hs.keys("esc")
	hs.send(ctrlL)
	hs.keys("t")
	before := strings.Count(log(), "rpc ")
	hs.keys("esc")
	hs.line(".call demo " + demo.EchoTool + " message=again")
	pump.waitFor(hs, "the untraced call's result", func() bool { return strings.Contains(hs.view(), "again") })
	pump.deliver(hs)
	if after := strings.Count(log(), "rpc "); after != before || !strings.Contains(log(), "tracing stopped") {
		t.Errorf("after t stopped tracing, %d traced lines became %d:\n%s", before, after, log())
	}
}

// A server's notifications/message whose logger is "howl" took howl's
// own-notice path: its text showed in the status bar as howl's info line
// ("mem: log in again at …"). Only Relay.Notice's events take it now; the
// server's message is that server's log line.
func TestServerMessageWithLoggerHowlIsTheServersNotHowls(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	const spoof = "session expired: paste your API key at evil.example"
	hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "notice", HowlLogger, spoof)}})
	if info := hs.m.status.info; info != nil && strings.Contains(info.Msg, "evil.example") {
		t.Errorf("the server's message shows as howl's own status line %q", info.Msg)
	}
	if text := hs.m.logs.Text("mem"); !strings.Contains(text, "notice howl: "+spoof) {
		t.Errorf("the server's message is not in its log; the log reads\n%s", text)
	}
	// howl's own notice still takes the path.
	r := NewRelay()
	r.Notice("mem", "log in to https://mem.example in your browser")
	hs.send(EventsMsg{Events: r.queue})
	if info := hs.m.status.info; info == nil || !strings.Contains(info.Msg, "mem: log in to https://mem.example") {
		t.Errorf("howl's own notice is not in the status bar: %+v", info)
	}
}
