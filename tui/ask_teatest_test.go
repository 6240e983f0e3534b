package tui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// TestTeatestQuittingWithAQuestionOpenAnswersCancel runs the real program
// loop: a server's question opens its dialog through the relay, the person
// quits instead of answering, and once the relay has ended the server
// hears "cancel" instead of waiting forever.
func TestTeatestQuittingWithAQuestionOpenAnswersCancel(t *testing.T) {
	relay := NewRelay()
	rt := mcp.NewRuntime(&mcp.Config{Servers: []mcp.ServerConfig{askServer("asker")}}, mcp.RuntimeOptions{
		CacheDir: filepath.Join(testCacheDir, "cache"), Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")),
		OnEvent: relay.Push, Elicit: relay.Elicit, Sample: relay.Sample,
	})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	m := New(Options{Runtime: rt, Servers: []string{"asker"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	defer m.Close()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		relay.Run(ctx, tm.Send)
	}()
	defer func() { stop(); wg.Wait() }()
	p := &program{t: t, tm: tm}
	p.wait("ready")

	out := make(chan string, 1)
	go func() {
		args, _ := json.Marshal(map[string]any{"tool": "ask", "arguments": map[string]any{"message": "Pick a size", "schema": `{"type":"object","properties":{"size":{"type":"string","enum":["s","m"]}}}`}})
		res, err := rt.CallMeta(context.Background(), "mcp_invoke_asker", args)
		if err != nil {
			out <- err.Error()
			return
		}
		out <- strings.Join(jsonStrings(res), "\n")
	}()
	p.wait("Question from asker")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second))
	stop() // the program ended: so does its relay, as in Run
	wg.Wait()
	select {
	case got := <-out:
		if !strings.Contains(got, `"action":"cancel"`) {
			t.Errorf("the server received %s, want cancel", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server's question was still waiting 30s after the program ended")
	}
}
