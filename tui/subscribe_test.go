package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// TestViewerSubscriptionRereadsOnUpdateKeepsTheScrollAndEndsOnClose opens
// the demo's log, scrolls, subscribes with s, has the server report
// changes (its touch tool sends notifications/resources/updated), and
// checks the viewer counted them, re-read the page where it was, and that
// closing the viewer unsubscribed at the server, on both protocol eras.
func TestViewerSubscriptionRereadsOnUpdateKeepsTheScrollAndEndsOnClose(t *testing.T) {
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
			wait("Resources 125")
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
			wait("Resources 125")
			deadline = time.Now().Add(10 * time.Second)
			for len(rt.Subscriptions("demo")) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := rt.Subscriptions("demo"); len(got) != 0 {
				t.Errorf("closing the viewer left subscriptions %v", got)
			}
			tm.Send(keyMsg("q"))
			final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
			if final.viewer.Open() {
				t.Error("the viewer is still open")
			}
			m.Close()
		})
	}
}

func TestViewerRereadKeepsTheScrollPosition(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("mem", sampleItems()...)
	rt.texts["mem://log"] = bigLog(400)
	h := newHarness(t, rt, []string{"mem"}, 120, 40)
	h.keys("2")
	h.selectItem("mem://log")
	h.keys("enter")
	for range 7 {
		h.keys("down")
	}
	d := h.m.viewer.doc
	top := d.top
	if top == 0 {
		t.Fatal("the viewer did not scroll")
	}
	h.keys("s")
	if d.sub == nil {
		t.Fatal("s did not subscribe")
	}
	h.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://log"}}})
	nd := h.m.viewer.doc
	if nd == d || nd.sub == nil || nd.sub.updates != 1 {
		t.Fatalf("after an update: new document %v, subscription %+v", nd != d, nd.sub)
	}
	if nd.top != top {
		t.Errorf("the re-read moved the view from row %d to %d", top, nd.top)
	}
	if !strings.Contains(h.view(), "● live · 1 update") {
		t.Errorf("the title does not count the update:\n%s", h.view())
	}
	// An update to another resource, or from another server, changes nothing.
	h.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://small"}, {Kind: mcp.EventResourceUpdated, Server: "other", URI: "mem://log"}}})
	if h.m.viewer.doc.sub.updates != 1 {
		t.Errorf("unrelated updates counted: %d", h.m.viewer.doc.sub.updates)
	}
	h.keys("s")
	if h.m.viewer.doc.sub != nil || rt.callCount("unsubscribe mem://log") != 1 {
		t.Errorf("s again should unsubscribe once (calls %v)", rt.calls)
	}
}

// reads counts the fake runtime's reads of uri.
func reads(rt *fakeRuntime, uri string) int {
	return rt.callCount(`mcp_read_mem {"uri":"` + uri + `"`)
}

func TestViewerRereadsWhatChangedDuringALoadAndUnderAnotherDocument(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("mem", sampleItems()...)
	rt.texts["mem://log"] = bigLog(50)
	h := newHarness(t, rt, []string{"mem"}, 120, 40)
	h.keys("2")
	h.selectItem("mem://log")
	h.keys("enter", "s")
	update := EventsMsg{Events: []mcp.Event{{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://log"}}}
	base := reads(rt, "mem://log")

	// A change while another document covers it is counted, not read.
	h.run(h.m.viewer.Request(docRequest{kind: reqText, text: "pushed", title: "other", mode: openPush}, "opening"))
	h.send(update)
	if got := reads(rt, "mem://log"); got != base {
		t.Fatalf("a document under another one was re-read at once (%d reads)", got-base)
	}
	sub := h.m.viewer.stack[0].sub
	if sub == nil || sub.updates != 1 || sub.read != 0 {
		t.Fatalf("the covered document's subscription: %+v", sub)
	}
	h.keys("esc") // back to the log: what changed meanwhile is read now
	if got := reads(rt, "mem://log"); got != base+1 {
		t.Errorf("coming back to a changed document re-read it %d times, want 1", got-base)
	}
	if d := h.m.viewer.doc; d.sub == nil || d.sub.read != 1 {
		t.Errorf("after the re-read: %+v", d.sub)
	}

	// Open the same resource again on top and subscribe: one subscription
	// at the server, shared; closing the top one keeps it.
	h.run(h.m.viewer.Request(docRequest{kind: reqRead, server: "mem", uri: "mem://log", title: "again", mode: openPush}, "reading"))
	h.keys("s")
	top, under := h.m.viewer.doc, h.m.viewer.stack[0]
	if top.sub == nil || top.sub != under.sub || top.sub.refs != 2 || rt.callCount("subscribe mem://log") != 1 {
		t.Fatalf("the second view should share the subscription: top %+v under %+v, %d subscribes", top.sub, under.sub, rt.callCount("subscribe mem://log"))
	}
	h.keys("esc")
	if rt.callCount("unsubscribe mem://log") != 0 || h.m.viewer.doc.sub == nil {
		t.Fatalf("closing one of two views ended the subscription (calls %v)", rt.calls)
	}
	h.keys("esc")
	if rt.callCount("unsubscribe mem://log") != 1 {
		t.Errorf("closing the last view should unsubscribe once (calls %v)", rt.calls)
	}
}
