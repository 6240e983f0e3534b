package logs

import (
	"bytes"
	"fmt"
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
// A message nested deep enough that indenting would multiply its size is
// kept on one line (render.IndentJSON).
func recordJSON(rec mcp.TraceRecord, raw bool) []byte {
	var b bytes.Buffer
	if compact, err := render.Marshal(rec); err == nil {
		_, _ = render.IndentJSON(&b, compact, "", "  ")
		b.WriteByte('\n')
	}
	if raw {
		return b.Bytes()
	}
	return render.EscapeTerminalControls(b.Bytes())
}

// saveSelected writes the bottom line's record, raw, to a new file under
// the cache directory's traces/ (in a command) and says where.
func (p *Pane) saveSelected() tea.Cmd {
	b, warn := p.selectedBody()
	if warn != nil {
		return warn
	}
	at := b.rec.At
	if at.IsZero() {
		at = p.com.Now()
	}
	name := common.FileName(at, ".json", b.rec.Server, strings.ReplaceAll(b.rec.Method, "/", "."))
	return common.SaveCmd("traces", name, recordJSON(b.rec, true), "message, raw,", p.com.DisplayPath)
}

// copySelected copies the bottom line's record, pretty-printed.
func (p *Pane) copySelected() tea.Cmd {
	b, warn := p.selectedBody()
	if warn != nil {
		return warn
	}
	return common.CopyCmd(p.com.Clipboard, string(recordJSON(b.rec, false)), "message")
}

// selectedBody is the selected message with its bodies, or a warning
// saying why there is none.
func (p *Pane) selectedBody() (*traceBody, tea.Cmd) {
	b, ok := p.selected()
	switch {
	case !ok:
		return nil, common.ReportWarn(noSelection())
	case b.dropped:
		return nil, common.ReportWarn(droppedNote())
	}
	return b, nil
}

func noSelection() string {
	return "the bottom line of the log is not a traced message: t traces them, ↑/↓ moves to one"
}
