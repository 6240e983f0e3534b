package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// traceFlag is --trace: bare (or summary, true) prints one line per
// request; full prints every message with its bodies as JSON lines; off
// (false) prints nothing.
type traceFlag struct{ g *globalFlags }

func (f traceFlag) String() string {
	switch {
	case f.g == nil || !f.g.trace:
		return "off"
	case f.g.traceFull:
		return "full"
	}
	return "summary"
}

func (f traceFlag) Set(s string) error {
	switch s {
	case "summary", "true", "on":
		f.g.trace, f.g.traceFull = true, false
	case "full":
		f.g.trace, f.g.traceFull = true, true
	case "off", "false":
		f.g.trace, f.g.traceFull = false, false
	default:
		return fmt.Errorf("--trace=%q: use --trace (one line per request), --trace=full (every message with its bodies, as JSON lines) or --trace=off", s)
	}
	return nil
}

func (f traceFlag) Type() string { return "summary|full" }

// addTraceFlag declares --trace on root.
func addTraceFlag(fs *pflag.FlagSet, g *globalFlags) {
	fl := fs.VarPF(traceFlag{g}, "trace", "", "print every request to a server on stderr as it ends (method, tool or URI, time, size or error); --trace=full prints every request, answer and notification with its bodies as JSON lines (bodies over 1 MiB cut); the TUI shows them in its log pane (ctrl+l; t toggles, enter opens one)")
	fl.NoOptDefVal = "summary"
}

// fullTraceWriter prints --trace=full's JSON lines: one mcp.TraceRecord
// per request (with its answer) and per notification, each line passing
// render.EscapeTerminalControls (the writer is sanitizing as well).
func fullTraceWriter(w io.Writer) func(mcp.Event) {
	var mu sync.Mutex
	return func(e mcp.Event) {
		var rec mcp.TraceRecord
		switch {
		case e.Kind == mcp.EventTrace && e.Trace != nil:
			rec = e.Trace.Record(e.Server)
		case e.Kind == mcp.EventNotification:
			rec = mcp.NotificationRecord(e.Server, e.Method, e.Body, time.Now())
		default:
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write(render.EscapeTerminalControls(b.Bytes()))
	}
}
