package tui

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// TestViewerSubscriptionRereadsOnUpdateKeepsTheScrollAndOutlivesTheViewer
// opens the demo's log, scrolls, subscribes with s, has the server report
// changes (its touch tool sends notifications/resources/updated), and
// checks the viewer counted them and re-read the page where it was, that
// closing the viewer kept the subscription, and that d in the
// subscriptions dialog ended it at the server, on both protocol eras.
func TestViewerSubscriptionRereadsOnUpdateKeepsTheScrollAndOutlivesTheViewer(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			relay := NewRelay()
			sc := demoServer("demo")
			sc.Era = era
			rt := newRuntime(t, relay.Push, sc)
			defer rt.Close()
			m := New(Options{Runtime: rt, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
			p := runProgram(t, m, relay)
			tm, wait := p.tm, p.wait
			wait("Resources 126")
			tm.Send(keyMsg("2"))
			tm.Send(keyMsg("enter"))
			wait("of 2097152")
			for range 5 {
				tm.Send(keyMsg("down"))
			}
			tm.Send(keyMsg("s"))
			wait("● live")
			if got := rt.Subscriptions("demo"); len(got) != 1 || got[0] != demo.LogURI {
				t.Fatalf("subscriptions at the runtime: %v, want [%s]", got, demo.LogURI)
			}
			touch := func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				args, _ := json.Marshal(map[string]any{"tool": demo.TouchTool, "arguments": map[string]string{"uri": demo.LogURI}})
				if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					t.Error(err)
				}
			}
			// A modern listen stream opens asynchronously: touch until the
			// first update lands, then once more.
			deadline := time.Now().Add(20 * time.Second)
			for !p.waitBriefly("● live · 1 update", 300*time.Millisecond) && time.Now().Before(deadline) {
				touch()
			}
			wait("● live · 1 update")
			touch()
			wait("● live · 2 updates")
			tm.Send(keyMsg("esc"))
			wait("Resources 126")
			tm.Send(keyMsg("U"))
			wait("2 updates · last ")
			if got := rt.Subscriptions("demo"); len(got) != 1 {
				t.Errorf("closing the viewer ended the subscription: the runtime follows %v", got)
			}
			touch() // counted while the dialog is open
			wait("3 updates · last ")
			tm.Send(keyMsg("d"))
			wait("Subscriptions (0)")
			deadline = time.Now().Add(10 * time.Second)
			for len(rt.Subscriptions("demo")) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := rt.Subscriptions("demo"); len(got) != 0 {
				t.Errorf("d in the subscriptions dialog left subscriptions %v", got)
			}
			tm.Send(keyMsg("esc"))
			tm.Send(keyMsg("q"))
			final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
			if final.viewer.Open() {
				t.Error("the viewer is still open")
			}
			m.Close()
		})
	}
}
