package viewer

import (
	"strings"
	"testing"
	"time"
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
	if h.sub("mem://log") == nil {
		t.Fatal("s did not subscribe")
	}
	h.update("mem", "mem://log")
	nd := h.v.doc
	if nd == d || nd.read != 1 || h.sub("mem://log").Updates != 1 {
		t.Fatalf("after an update: new document %v, read %d, subscription %+v", nd != d, nd.read, h.sub("mem://log"))
	}
	if nd.top != top {
		t.Errorf("the re-read moved the view from row %d to %d", top, nd.top)
	}
	if !strings.Contains(h.view(), "● live · 1 update") {
		t.Errorf("the title does not count the update:\n%s", h.view())
	}
	// An update to another resource, or from another server, changes nothing.
	h.update("mem", "mem://small")
	h.update("other", "mem://log")
	if h.sub("mem://log").Updates != 1 || h.v.doc != nd {
		t.Errorf("unrelated updates counted: %d", h.sub("mem://log").Updates)
	}
	h.keys("s")
	if h.sub("mem://log") != nil || len(h.subscribeMsgs) != 2 || h.subscribeMsgs[1].On {
		t.Errorf("s again should ask to unsubscribe once (asked %+v)", h.subscribeMsgs)
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
	base := reads(rt, "mem://log")

	// A change while another document covers it is counted, not read.
	h.run(h.v.Request(Request{kind: reqText, text: "pushed", title: "other", mode: openPush}, "opening"))
	h.update("mem", "mem://log")
	if got := reads(rt, "mem://log"); got != base {
		t.Fatalf("a document under another one was re-read at once (%d reads)", got-base)
	}
	if under := h.v.stack[0]; under.read != 0 || h.sub("mem://log").Updates != 1 {
		t.Fatalf("the covered document read %d of %+v", under.read, h.sub("mem://log"))
	}
	h.keys("esc") // back to the log: what changed meanwhile is read now
	if got := reads(rt, "mem://log"); got != base+1 {
		t.Errorf("coming back to a changed document re-read it %d times, want 1", got-base)
	}
	if d := h.v.doc; d.read != 1 {
		t.Errorf("after the re-read the document covers %d changes, want 1", d.read)
	}

	// The same resource opened again on top shows the one subscription;
	// closing either view keeps it: it is the person's, not the view's.
	h.run(h.v.Request(Request{kind: reqRead, server: "mem", uri: "mem://log", title: "again", mode: openPush}, "reading"))
	if !strings.Contains(h.view(), "● live · 1 update") {
		t.Errorf("the second view does not show the subscription:\n%s", h.view())
	}
	h.keys("esc", "esc")
	if h.v.Open() || h.sub("mem://log") == nil || len(h.subscribeMsgs) != 1 {
		t.Errorf("closing the views should keep the subscription (open %v, asked %+v)", h.v.Open(), h.subscribeMsgs)
	}
}

// A server that reports a change right after answering each read (or
// every 5 ms) had howl re-read, decode and draw its resource back to back
// for as long as it ran. Now a re-read starts no sooner than RereadGap
// after the last one ended: the changes within the gap are read by one
// re-read at its end.
func TestViewerRereadsAFollowedResourceAtMostOnceARereadGap(t *testing.T) {
	h := newBench(t, 80, 38)
	h.fakeClock()
	h.rt.texts["mem://log"] = bigLog(50)
	h.open("mem://log")
	h.keys("s")
	base := reads(h.rt, "mem://log")

	const updates = 50
	for range updates {
		h.update("mem", "mem://log")
	}
	if got := reads(h.rt, "mem://log") - base; got != 1 || len(h.ticks) != 1 {
		t.Fatalf("%d changes within RereadGap: %d re-reads at once and %d scheduled, want 1 and 1", updates, got, len(h.ticks))
	}
	h.later(RereadGap - time.Millisecond)
	if got := reads(h.rt, "mem://log") - base; got != 1 {
		t.Fatalf("%d re-reads before the gap ended, want 1", got)
	}
	h.later(time.Millisecond)
	if got := reads(h.rt, "mem://log") - base; got != 2 || h.v.doc.read != updates || len(h.ticks) != 0 {
		t.Fatalf("at the end of the gap: %d re-reads covering %d of %d changes, %d ticks left; want 2 covering all, none left", got, h.v.doc.read, updates, len(h.ticks))
	}
	// The gap runs from the end of that re-read: a change now waits for
	// it, a change after it is read at once.
	h.update("mem", "mem://log")
	if got := reads(h.rt, "mem://log") - base; got != 2 || len(h.ticks) != 1 {
		t.Errorf("a change just after a re-read: %d re-reads, %d scheduled; want 2 and 1", got, len(h.ticks))
	}
	h.later(RereadGap)
	h.later(RereadGap)
	h.update("mem", "mem://log")
	if got := reads(h.rt, "mem://log") - base; got != 4 || len(h.ticks) != 0 {
		t.Errorf("a change a gap after the last re-read: %d re-reads, %d scheduled; want 4 and none", got, len(h.ticks))
	}
}
