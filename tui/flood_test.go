package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
	"github.com/howl-mcp/howl/tui/logs"
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
// keeps at most logs.MaxLogBytes, and a cut line says how big it was.
func TestLogPaneFloodedWithMegabyteLinesStaysUnderItsByteBound(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	const n, size = 1500, 1 << 20
	retained := retainedAfter(func() {
		for i := range n {
			data := fmt.Sprintf("flood %d\n", i) + strings.Repeat(string(rune('a'+i%26)), size) // a fresh megabyte each time
			hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "info", "flood", data)}})
		}
	})
	_, held, _ := hs.m.logs.Held("mem")
	_, all, _ := hs.m.logs.Held("")
	if held > logs.MaxLogBytes || all > logs.MaxLogBytes {
		t.Errorf("the log counts %s (all: %s), want at most %s (logs.MaxLogBytes)", render.HumanBytes(int64(held)), render.HumanBytes(int64(all)), render.HumanBytes(logs.MaxLogBytes))
	}
	if bound := int64(2 * logs.MaxLogBytes); retained > bound {
		t.Errorf("after %d log lines of %s, the heap holds %s more, want under %s", n, render.HumanBytes(size), render.HumanBytes(retained), render.HumanBytes(bound))
	}
	text := strings.TrimRight(hs.m.logs.Text("mem"), "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	last = last[strings.Index(last, "flood: ")+len("flood: "):] // the line's text, after its time, level and logger
	if want := "… (1.0 MiB line cut to 4.0 KiB)"; !strings.HasSuffix(last, want) || len(last) > logs.MaxLogLineBytes+len(want) {
		t.Errorf("the last line ends %q (%d bytes), want it cut to %d bytes, ending %q", last[max(len(last)-60, 0):], len(last), logs.MaxLogLineBytes, want)
	}
	lines, held, dropped := hs.m.logs.Held("mem")
	t.Logf("retained %s; the log keeps %d lines, %s; %d dropped", render.HumanBytes(retained), lines, render.HumanBytes(int64(held)), dropped)
}

// While the program is busy (drawing, say), the relay queues what the
// servers send. It kept up to MaxRelayQueue events of any size: 1,500 log
// messages of 1 MiB waited in full. It now keeps at most MaxRelayBytes,
// dropping the oldest and saying how many went.
func TestRelayKeepsAtMostMaxRelayBytesWhileTheProgramIsBusy(t *testing.T) {
	r := NewRelay()
	const n, size = 1500, 1 << 20
	retained := retainedAfter(func() {
		for i := range n {
			r.Push(logMessage("mem", "info", "flood", strings.Repeat(string(rune('a'+i%26)), size)))
		}
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bytes > MaxRelayBytes || r.dropped == 0 {
		t.Errorf("the relay holds %s with %d dropped, want at most %s (MaxRelayBytes) and the rest dropped", render.HumanBytes(int64(r.bytes)), r.dropped, render.HumanBytes(MaxRelayBytes))
	}
	if bound := int64(MaxRelayBytes + 4<<20); retained > bound {
		t.Errorf("with %d messages of %s waiting, the heap holds %s more, want under %s", n, render.HumanBytes(size), render.HumanBytes(retained), render.HumanBytes(bound))
	}
}

// A server's megabyte warning or progress message shows as its first
// MaxStatusBytes, and only those are kept.
func TestStatusAndProgressKeepOnlyTheStartOfAMegabyteServerMessage(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	huge := "disk full " + strings.Repeat("x", 1<<20)
	hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "warning", "", huge)}})
	if info := hs.m.status.info; info == nil {
		t.Error("the warning is not in the status bar")
	} else if len(info.Msg) > common.MaxStatusBytes+64 || !strings.Contains(info.Msg, "disk full") {
		t.Errorf("the status keeps %d bytes, want the start within %d (MaxStatusBytes)", len(info.Msg), common.MaxStatusBytes)
	}
	hs.m.com.Progress.Begin("viewer:1")
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventProgress, Server: "mem", Progress: &mcp.Progress{Server: "mem", Owner: "viewer:1", Progress: 1, Message: huge}}}})
	if p, _ := hs.m.com.Progress.Get("viewer:1"); len(p.Message) > common.MaxStatusBytes+64 || !strings.HasPrefix(p.Message, "disk full") {
		t.Errorf("the progress keeps %d bytes, want the start within %d (MaxStatusBytes)", len(p.Message), common.MaxStatusBytes)
	}
}

// A traced message keeps its ID, request and answer (each up to
// mcp.MaxTraceBodyBytes), a notification its Body: the relay counted none
// of them, so 1,000 traces holding 2,000 MiB of bodies counted as 103 KiB
// against MaxRelayBytes. Every byte an event holds now counts.
func TestRelayCountsTracedBodiesAgainstMaxRelayBytes(t *testing.T) {
	body := json.RawMessage(`"` + strings.Repeat("b", mcp.MaxTraceBodyBytes-2) + `"`)
	r := NewRelay()
	const n = 100
	for i := range n {
		r.Push(mcp.Event{Kind: mcp.EventTrace, Server: "mem", Trace: &mcp.RPCTrace{Method: "tools/call", ID: json.RawMessage(fmt.Sprint(i)), Request: body, Response: body}})
		r.Push(mcp.Event{Kind: mcp.EventNotification, Server: "mem", Method: "notifications/resources/updated", Body: body})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var held int
	for _, e := range r.queue {
		held += len(e.Body)
		if e.Trace != nil {
			held += len(e.Trace.Request) + len(e.Trace.Response)
		}
	}
	if held > MaxRelayBytes || r.bytes > MaxRelayBytes || r.dropped == 0 {
		t.Errorf("the relay holds %s of bodies in %d events (counted %s), %d dropped; want at most %s (MaxRelayBytes) and the rest dropped",
			render.HumanBytes(int64(held)), len(r.queue), render.HumanBytes(int64(r.bytes)), r.dropped, render.HumanBytes(MaxRelayBytes))
	}
}

// One big log message was sanitized and split whole before the log kept
// its last MaxLogLines: a 90 MiB message of 45 million lines allocated
// 721 MB to keep 2,000, and a warning's whole data was formatted and
// sanitized before the status bar kept its first MaxStatusBytes. Now only
// what is kept is copied: a 64 MiB message, of short lines or one long
// line, costs a small multiple of logs.MaxLogBytes.
func TestA64MiBLogMessageAllocatesWhatTheLogKeepsNotItsSize(t *testing.T) {
	const size = 64 << 20
	short := strings.Repeat("a warning line\n", size/15)
	long := strings.Repeat("x", size)
	for _, c := range []struct{ name, logger, data, last string }{
		{"short lines", "flood", short, "a warning line"},
		{"one long line", "flood", long, "… (64.0 MiB line cut to 4.0 KiB)"},
		{"a long logger", long, long, "… (64.0 MiB line cut to 4.0 KiB)"}, // the logger's name is the server's string too
	} {
		t.Run(c.name, func(t *testing.T) {
			hs, _ := logHarness(t, 120, 40)
			alloc := commontest.AllocatedBy(func() {
				hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "warning", c.logger, c.data)}})
			})
			if bound := uint64(4 * logs.MaxLogBytes); alloc > bound {
				t.Errorf("a %s message allocated %s, want under %s (4 × logs.MaxLogBytes)", render.HumanBytes(size), render.HumanBytes(int64(alloc)), render.HumanBytes(int64(bound)))
			}
			lines, held, dropped := hs.m.logs.Held("mem")
			text := strings.TrimRight(hs.m.logs.Text("mem"), "\n")
			if !strings.HasSuffix(text, c.last) || held > logs.MaxLogBytes || lines > logs.MaxLogLines {
				t.Errorf("the log keeps %d lines (%s), %d dropped, ending %q; want at most %d lines ending %q", lines, render.HumanBytes(int64(held)), dropped, text[max(len(text)-60, 0):], logs.MaxLogLines, c.last)
			}
			if c.data == short && lines+dropped != strings.Count(short, "\n") {
				t.Errorf("the log keeps %d lines and counts %d dropped, want %d in all", lines, dropped, strings.Count(short, "\n"))
			}
			if info := hs.m.status.info; info == nil || len(info.Msg) > common.MaxStatusBytes || !strings.Contains(info.Msg, "message cut to") {
				t.Errorf("the status bar shows %+v, want the warning's start within %d bytes (MaxStatusBytes), its cut stated", info, common.MaxStatusBytes)
			}
			t.Logf("allocated %s; the log keeps %d lines, %s; %d dropped", render.HumanBytes(int64(alloc)), lines, render.HumanBytes(int64(held)), dropped)
		})
	}
}

// A log message whose data is not a string (a 2-million-entry array,
// 30.5 MiB as JSON) was marshalled whole for the log, and formatted whole
// (fmt.Sprint) for the status bar, before either cut it. Now each formats
// only what it keeps: the log its one line's start, the status bar its
// MaxStatusBytes, both saying the data was cut (612 MiB allocated before,
// a quarter of a MiB now).
func TestALogMessageOfHugeNonStringDataFormatsOnlyWhatIsKept(t *testing.T) {
	entries := make([]any, 2_000_000)
	for i := range entries {
		entries[i] = map[string]any{"disk": "full"}
	}
	hs, _ := logHarness(t, 120, 40)
	alloc := commontest.AllocatedBy(func() {
		hs.send(EventsMsg{Events: []mcp.Event{logMessage("mem", "warning", "flood", entries)}})
	})
	if bound := uint64(4 * logs.MaxLogBytes); alloc > bound {
		t.Errorf("a message of %d entries allocated %s, want under %s (4 × logs.MaxLogBytes)", len(entries), render.HumanBytes(int64(alloc)), render.HumanBytes(int64(bound)))
	}
	text := strings.TrimRight(hs.m.logs.Text("mem"), "\n")
	if !strings.Contains(text, `[{"disk":"full"},{"disk":"full"}`) || !strings.Contains(text, "data over") || len(text) > 2*logs.MaxLogLineBytes {
		t.Errorf("the log shows %.80q … %q (%d bytes), want the JSON's start within MaxLogLineBytes, its cut stated", text, text[max(len(text)-60, 0):], len(text))
	}
	if info := hs.m.status.info; info == nil || len(info.Msg) > common.MaxStatusBytes || !strings.Contains(info.Msg, `[{"disk":"full"}`) || !strings.Contains(info.Msg, "cut to") {
		t.Errorf("the status bar shows %.120q (%d bytes), want the JSON's start within %d bytes (MaxStatusBytes), its cut stated", msgOf(info), len(msgOf(info)), common.MaxStatusBytes)
	}
	t.Logf("allocated %s", render.HumanBytes(int64(alloc)))
}

// A resources/updated URI is a server's string of any length: the status
// line keeps its start within MaxStatusBytes and says it was cut.
func TestAHugeUpdatedURIIsCutForTheStatusLine(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	uri := "demo://" + strings.Repeat("u", 16<<20)
	hs.send(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventNotification, Server: "mem", Method: "notifications/resources/updated",
		Params: map[string]any{"uri": uri}}}})
	if info := hs.m.status.info; info == nil || len(info.Msg) > common.MaxStatusBytes || !strings.Contains(info.Msg, "message cut to") || !strings.HasPrefix(info.Msg, "mem: demo://uuu") {
		t.Errorf("the status bar shows %.120q (%d bytes), want the URI's start within %d bytes (MaxStatusBytes), its cut stated", msgOf(info), len(msgOf(info)), common.MaxStatusBytes)
	}
}

func msgOf(i *common.InfoMsg) string {
	if i == nil {
		return ""
	}
	return i.Msg
}

// A batch of a server's notifications asks for one status line, not one
// each: each was a message through bubbletea and a frame drawn after it,
// so 4,096 list_changed or warnings held a key behind seconds of frames.
// The line shown is the most severe, and says how many more there were.
func TestABatchOfNotificationsIsOneStatusLine(t *testing.T) {
	hs, _ := logHarness(t, 120, 40)
	var events []mcp.Event
	for i := range 4096 {
		events = append(events, mcp.Event{Kind: mcp.EventNotification, Server: "mem", Method: "notifications/tools/list_changed"})
		if i == 100 {
			events = append(events, logMessage("mem", "error", "", "disk full"))
		}
	}
	var infos []common.InfoMsg
	var collect func(cmd tea.Cmd)
	collect = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				collect(c)
			}
		case common.InfoMsg:
			infos = append(infos, msg)
		}
	}
	collect(hs.m.handleEvents(EventsMsg{Events: events}))
	if len(infos) != 1 || infos[0].Type != common.InfoWarn || !strings.Contains(infos[0].Msg, "disk full") || !strings.Contains(infos[0].Msg, "+4096 more in the log") {
		t.Errorf("%d status lines for 4,097 notifications, the first %+v; want one, the error, counting the rest", len(infos), infos[:min(len(infos), 1)])
	}
}
