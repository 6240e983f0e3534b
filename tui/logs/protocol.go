package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxTraceBodiesBytes bounds the message bodies the log keeps while
// tracing (each one at most mcp.MaxTraceBodyBytes): past it the oldest
// bodies are let go, and their lines say so when opened.
const MaxTraceBodiesBytes = 8 << 20

// traceBody is the full record of one traced message, kept for the
// protocol view. dropped: its bodies were let go (MaxTraceBodiesBytes).
type traceBody struct {
	rec     mcp.TraceRecord
	dropped bool
}

func (b *traceBody) size() int { return len(b.rec.Request) + len(b.rec.Response) }

// bodyRing keeps the bodies of traced messages, oldest first, within
// MaxTraceBodiesBytes.
type bodyRing struct {
	held  []*traceBody
	bytes int
	// dropped counts the bodies let go.
	dropped int
}

func (r *bodyRing) add(b *traceBody) {
	r.held = append(r.held, b)
	r.bytes += b.size()
	for r.bytes > MaxTraceBodiesBytes && len(r.held) > 1 {
		old := r.held[0]
		r.held[0] = nil
		r.held = r.held[1:]
		r.bytes -= old.size()
		old.rec.Request, old.rec.Response, old.dropped = nil, nil, true
		r.dropped++
	}
}

// keepBody attaches rec to the entry (as its body) when it has bodies.
func (p *Pane) keepBody(e *logEntry, rec mcp.TraceRecord) {
	if rec.Request == nil && rec.Response == nil {
		return
	}
	b := &traceBody{rec: rec}
	e.body = b
	p.bodies.add(b)
}

// selected is the entry the protocol keys act on: the selected line (the
// view's bottom line, see Pane.offset), when it is a traced message with
// its record.
func (p *Pane) selected() (*traceBody, bool) {
	r := p.current()
	if r == nil || r.len() == 0 {
		return nil, false
	}
	i := r.len() - 1 - p.offset
	if i < 0 {
		return nil, false
	}
	b := r.at(i).body
	return b, b != nil
}

// HasSelectedTrace reports whether the bottom line is a traced message
// whose record enter opens.
func (p *Pane) HasSelectedTrace() bool {
	_, ok := p.selected()
	return ok
}

// SelectedTrace is the bottom line's traced message as the protocol view
// shows it: a title (direction, method, timing, size) and the record as
// JSON (which the viewer pretty-prints and highlights). ok is false when
// the bottom line is no traced message; a message whose bodies were let
// go returns a warning instead.
func (p *Pane) SelectedTrace() (title, text string, warn tea.Cmd, ok bool) {
	b, ok := p.selected()
	if !ok {
		return "", "", nil, false
	}
	if b.dropped {
		return "", "", common.ReportWarn(droppedNote()), true
	}
	return traceTitle(b.rec), string(recordJSON(b.rec, false)), nil, true
}

func droppedNote() string {
	return fmt.Sprintf("the bodies of this message were let go: the log keeps the last %s of them (MaxTraceBodiesBytes)", render.HumanBytes(MaxTraceBodiesBytes))
}

// traceTitle is the protocol view's title: "demo → tools/call echo ·
// 1.2ms · 70 B sent, 173 B received".
func traceTitle(rec mcp.TraceRecord) string {
	arrow := "→"
	switch rec.Direction {
	case mcp.TraceReceived, mcp.TraceNotification:
		arrow = "←"
	}
	s := render.SanitizeLine(rec.Server) + " " + arrow + " " + render.SanitizeLine(rec.Method)
	if rec.Target != "" {
		s += " " + render.SanitizeLine(render.Ellipsize(rec.Target, 80))
	}
	if rec.Direction != mcp.TraceNotification {
		s += " · " + time.Duration(rec.DurationMS*float64(time.Millisecond)).Round(100*time.Microsecond).String()
		s += fmt.Sprintf(" · %s out, %s back", render.HumanBytes(int64(rec.RequestBytes)), render.HumanBytes(int64(rec.ResponseBytes)))
	} else {
		s += " · " + render.HumanBytes(int64(rec.RequestBytes))
	}
	return s + " · " + rec.Outcome
}

// recordJSON encodes a record: raw for a saved file (the server's bytes
// as they came), else with every character a terminal would act on
// escaped (for the screen and the clipboard).
func recordJSON(rec mcp.TraceRecord, raw bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(rec)
	if raw {
		return b.Bytes()
	}
	return render.EscapeTerminalControls(b.Bytes())
}

// saveSelected writes the bottom line's record, raw, to a new file under
// the cache directory's traces/ (in a command) and says where.
func (p *Pane) saveSelected() tea.Cmd {
	b, ok := p.selected()
	switch {
	case !ok:
		return common.ReportWarn(noSelection())
	case b.dropped:
		return common.ReportWarn(droppedNote())
	}
	data, name := recordJSON(b.rec, true), traceFileName(b.rec)
	show := p.com.DisplayPath
	return func() tea.Msg {
		dir, err := render.CacheDir()
		if err == nil {
			dir = filepath.Join(dir, "traces")
			err = render.PrivateDir(dir)
		}
		if err != nil {
			return common.InfoMsg{Type: common.InfoError, Msg: fmt.Sprintf("could not save the message: %v", err), TTL: common.DefaultInfoTTL}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return common.InfoMsg{Type: common.InfoError, Msg: fmt.Sprintf("could not save the message: %v", err), TTL: common.DefaultInfoTTL}
		}
		if show != nil {
			path = show(path)
		}
		return common.InfoMsg{Type: common.InfoPlain, Msg: "saved the message, raw, to " + render.SanitizeLine(path), TTL: common.DefaultInfoTTL}
	}
}

// copySelected copies the bottom line's record, pretty-printed.
func (p *Pane) copySelected() tea.Cmd {
	b, ok := p.selected()
	switch {
	case !ok:
		return common.ReportWarn(noSelection())
	case b.dropped:
		return common.ReportWarn(droppedNote())
	}
	return common.CopyCmd(p.com.Clipboard, string(recordJSON(b.rec, false)), "message")
}

func noSelection() string {
	return "the bottom line of the log is not a traced message: t traces them, ↑/↓ moves to one"
}

// traceFileName names a saved record: time, server, method; only
// [A-Za-z0-9._-].
func traceFileName(rec mcp.TraceRecord) string {
	safe := func(s string, n int) string {
		var b strings.Builder
		for _, r := range s {
			if b.Len() >= n {
				break
			}
			if r < 0x80 && (r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		return b.String()
	}
	at := rec.At
	if at.IsZero() {
		at = time.Now()
	}
	return fmt.Sprintf("%s-%s-%s.json", at.UTC().Format("20060102T150405.000000Z"), safe(rec.Server, 40), safe(strings.ReplaceAll(rec.Method, "/", "."), 60))
}
