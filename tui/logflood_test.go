package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// retainedAfter is how much more live heap there is after f than before.
func retainedAfter(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// A server that logs 1,500 messages of 1 MiB each, each a short line and
// a long one, used to hold them all (a gigabyte): the short line was kept
// as a slice of the whole message, which kept the message alive, and the
// log kept 2,000 lines of any size. Now each line is its own copy, a log
// keeps at most MaxLogBytes, and a cut line says how big it was.
func TestLogPaneFloodedWithMegabyteLinesStaysUnderItsByteBound(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	const n, size = 1500, 1 << 20
	retained := retainedAfter(func() {
		for i := range n {
			data := fmt.Sprintf("flood %d\n", i) + strings.Repeat(string(rune('a'+i%26)), size) // a fresh megabyte each time
			hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "info", "flood", data)}})
		}
	})
	r := hs.m.logs.logs["mem"]
	if r.bytes > MaxLogBytes || hs.m.logs.all.bytes > MaxLogBytes {
		t.Errorf("the log counts %s (all: %s), want at most %s (MaxLogBytes)", render.HumanBytes(int64(r.bytes)), render.HumanBytes(int64(hs.m.logs.all.bytes)), render.HumanBytes(MaxLogBytes))
	}
	if bound := int64(2 * MaxLogBytes); retained > bound {
		t.Errorf("after %d log lines of %s, the heap holds %s more, want under %s", n, render.HumanBytes(size), render.HumanBytes(retained), render.HumanBytes(bound))
	}
	last := r.at(r.len() - 1).text
	if want := "… (1.0 MiB line cut to 4.0 KiB)"; !strings.HasSuffix(last, want) || len(last) > MaxLogLineBytes+len(want) {
		t.Errorf("the last line ends %q (%d bytes), want it cut to %d bytes, ending %q", last[max(len(last)-60, 0):], len(last), MaxLogLineBytes, want)
	}
	t.Logf("retained %s; the log keeps %d lines, %s; %d dropped", render.HumanBytes(retained), r.len(), render.HumanBytes(int64(r.bytes)), r.dropped)
}
