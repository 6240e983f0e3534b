package viewer

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestViewerRereadKeepsTheScrollPosition(t *testing.T) {
	h := newBench(t, 80, 38)
	rt := h.rt
	rt.texts["mem://log"] = bigLog(400)
	h.open("mem://log")
	for range 7 {
		h.keys("down")
	}
	d := h.v.doc
	top := d.top
	if top == 0 {
		t.Fatal("the viewer did not scroll")
	}
	h.keys("s")
	if d.sub == nil {
		t.Fatal("s did not subscribe")
	}
	h.run(h.v.HandleResourceUpdated(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://log"}))
	nd := h.v.doc
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
	h.run(h.v.HandleResourceUpdated(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://small"}))
	h.run(h.v.HandleResourceUpdated(mcp.Event{Kind: mcp.EventResourceUpdated, Server: "other", URI: "mem://log"}))
	if h.v.doc.sub.updates != 1 {
		t.Errorf("unrelated updates counted: %d", h.v.doc.sub.updates)
	}
	h.keys("s")
	if h.v.doc.sub != nil || rt.callCount("unsubscribe mem://log") != 1 {
		t.Errorf("s again should unsubscribe once (calls %v)", rt.calls)
	}
}

// reads counts the fake runtime's reads of uri.
func reads(rt *fakeRuntime, uri string) int {
	return rt.callCount(`mcp_read_mem {"uri":"` + uri + `"`)
}

func TestViewerRereadsWhatChangedDuringALoadAndUnderAnotherDocument(t *testing.T) {
	h := newBench(t, 80, 38)
	rt := h.rt
	rt.texts["mem://log"] = bigLog(50)
	h.open("mem://log")
	h.keys("s")
	update := mcp.Event{Kind: mcp.EventResourceUpdated, Server: "mem", URI: "mem://log"}
	base := reads(rt, "mem://log")

	// A change while another document covers it is counted, not read.
	h.run(h.v.Request(Request{kind: reqText, text: "pushed", title: "other", mode: openPush}, "opening"))
	h.run(h.v.HandleResourceUpdated(update))
	if got := reads(rt, "mem://log"); got != base {
		t.Fatalf("a document under another one was re-read at once (%d reads)", got-base)
	}
	sub := h.v.stack[0].sub
	if sub == nil || sub.updates != 1 || sub.read != 0 {
		t.Fatalf("the covered document's subscription: %+v", sub)
	}
	h.keys("esc") // back to the log: what changed meanwhile is read now
	if got := reads(rt, "mem://log"); got != base+1 {
		t.Errorf("coming back to a changed document re-read it %d times, want 1", got-base)
	}
	if d := h.v.doc; d.sub == nil || d.sub.read != 1 {
		t.Errorf("after the re-read: %+v", d.sub)
	}

	// Open the same resource again on top and subscribe: one subscription
	// at the server, shared; closing the top one keeps it.
	h.run(h.v.Request(Request{kind: reqRead, server: "mem", uri: "mem://log", title: "again", mode: openPush}, "reading"))
	h.keys("s")
	top, under := h.v.doc, h.v.stack[0]
	if top.sub == nil || top.sub != under.sub || top.sub.refs != 2 || rt.callCount("subscribe mem://log") != 1 {
		t.Fatalf("the second view should share the subscription: top %+v under %+v, %d subscribes", top.sub, under.sub, rt.callCount("subscribe mem://log"))
	}
	h.keys("esc")
	if rt.callCount("unsubscribe mem://log") != 0 || h.v.doc.sub == nil {
		t.Fatalf("closing one of two views ended the subscription (calls %v)", rt.calls)
	}
	h.keys("esc")
	if rt.callCount("unsubscribe mem://log") != 1 {
		t.Errorf("closing the last view should unsubscribe once (calls %v)", rt.calls)
	}
}
