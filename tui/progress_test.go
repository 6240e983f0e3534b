package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// inProcessDemo serves the demo over streamable HTTP from this process, so
// a test can see what the server saw (demo.SlowCancellations). It ends
// with the test.
func inProcessDemo(t *testing.T, name string) mcp.ServerConfig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := demo.ServeHTTP(ctx, demo.New(demo.Options{}), "127.0.0.1:0", func(u string) { urls <- u }); err != nil {
			t.Error(err)
			urls <- ""
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	u := <-urls
	if u == "" {
		t.FailNow()
	}
	return mcp.ServerConfig{Name: name, Transport: mcp.TransportHTTP, URL: u, Era: mcp.EraModern, StartTimeout: 30 * time.Second}
}

// waitCancelled waits until the demo has counted more cancellations than before.
func waitCancelled(t *testing.T, before int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for demo.SlowCancellations() <= before {
		if time.Now().After(deadline) {
			t.Fatalf("the server never saw the cancellation (%d cancelled calls, as before)", demo.SlowCancellations())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestViewerShowsProgressAndEscCancelsTheCallAtTheServer(t *testing.T) {
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, inProcessDemo(t, "demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, StartInChat: true})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	before := demo.SlowCancellations()
	tm.Type(".call demo slow duration_ms=50000 steps=100")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	// The bar and the server's message, in the viewer and the status bar.
	wait("/100 step ")
	wait("esc cancels")
	wait("demo ▕")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	wait("cancelled calling slow after")
	waitCancelled(t, before)
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if n := final.com.Progress.Len(); n != 0 {
		t.Errorf("%d progress entries left after the call was cancelled", n)
	}
	v := final.View()
	if !strings.Contains(v, "cancelled") || strings.Contains(v, "/100 step") {
		t.Errorf("the viewer should say the call was cancelled, and show no progress:\n%s", v)
	}
	m.Close()
}

func TestChatToolBlockShowsProgressAndCtrlCCancelsTheCallAtTheServer(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(
		llmtest.Turn{Text: "Running it.", ToolCalls: []llmtest.ToolCall{{ID: "call_slow", Name: "mcp_invoke_demo", Arguments: `{"tool":"slow","arguments":{"duration_ms":50000,"steps":100}}`}}},
		llmtest.Turn{Text: "never reached"},
	))
	relay := NewRelay()
	rt := newRuntime(t, relay.Push, inProcessDemo(t, "demo"))
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, Model: model, StartInChat: true})
	p := runProgram(t, m, relay)
	tm, wait := p.tm, p.wait
	wait("ready")
	before := demo.SlowCancellations()
	tm.Type("run the slow tool")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("mcp_invoke_demo")
	wait("/100 step ") // the block's bar and message
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	wait("ctrl+c again quits")
	waitCancelled(t, before)
	wait("cancelled by the user")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if n := final.com.Progress.Len(); n != 0 {
		t.Errorf("%d progress entries left after the turn ended", n)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests: a cancelled turn must not go on", n)
	}
	m.Close()
}
