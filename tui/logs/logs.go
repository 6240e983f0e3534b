// Package logs is the server log pane (ctrl+l): per server, the
// notifications/message it sent, the lines it wrote to stderr and, while
// tracing, every request howl sent it; bounded, timestamped, sanitized.
package logs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxLogLines bounds each server's log in the log pane: past it the oldest
// lines are dropped, and the pane's title says how many were.
const MaxLogLines = 2000

// MaxLogBytes bounds the text each server's log (and the "all" view)
// keeps: past it the oldest lines are dropped, as past MaxLogLines.
const MaxLogBytes = 1 << 20

// MaxLogLineBytes bounds one log line; the rest is cut and its size said.
const MaxLogLineBytes = 4096

// Sources of log entries that are not an MCP level.
const (
	logStderr = "stderr"
	logHowl   = "howl"
	// logRPC is a traced request (t in the pane turns tracing on).
	logRPC = "rpc"
)

// logEntry is one line of a server's log, sanitized.
type logEntry struct {
	// at is when the line arrived; zero for lines read from the stderr
	// tail when the pane opened (their time is unknown).
	at time.Time
	// level is an MCP level, logStderr or logHowl (howl's own notes).
	level  string
	logger string
	text   string
	// server is set in the "all" view's ring.
	server string
	// body is a traced message's full record, for the protocol view.
	body *traceBody
}

// logRing keeps a server's most recent entries: at most MaxLogLines of
// them, and at most MaxLogBytes of text.
type logRing struct {
	// buf[head:] are the entries, oldest first.
	buf     []logEntry
	head    int
	bytes   int
	dropped int
	seeded  bool
}

// size is what an entry counts against MaxLogBytes.
func (e logEntry) size() int { return len(e.text) + len(e.logger) + len(e.level) }

// maxLevelBytes bounds a level that is none of MCP's: the server's
// string, kept with every entry.
const maxLevelBytes = 16

// logLevel is a message's level as the log keeps it: "info" when it has
// none, and one that is not an MCP level sanitized and cut to
// maxLevelBytes (a 1 MiB level on each of 2,000 kept entries held 2 GB).
func logLevel(level string) string {
	switch {
	case level == "":
		return "info"
	case slices.Contains(mcp.LogLevels, level):
		return level
	}
	if len(level) > 4*maxLevelBytes {
		level = level[:4*maxLevelBytes] // sanitize only what can be kept
	}
	return render.Ellipsize(render.SanitizeLine(level), maxLevelBytes)
}

func (r *logRing) len() int { return len(r.buf) - r.head }

// at is the i-th entry, oldest first.
func (r *logRing) at(i int) logEntry { return r.buf[r.head+i] }

func (r *logRing) add(e logEntry) {
	r.buf = append(r.buf, e)
	r.bytes += e.size()
	r.trim()
}

// trim drops the oldest entries past MaxLogLines or MaxLogBytes (the
// newest always stays), and lets go of the dropped ones' memory.
func (r *logRing) trim() {
	for r.len() > MaxLogLines || r.bytes > MaxLogBytes && r.len() > 1 {
		r.bytes -= r.buf[r.head].size()
		r.buf[r.head] = logEntry{}
		r.head++
		r.dropped++
	}
	if r.head > 0 && r.head >= len(r.buf)/2 {
		n := copy(r.buf, r.buf[r.head:])
		clear(r.buf[n:])
		r.buf, r.head = r.buf[:n], 0
	}
}

// entries are every entry, oldest first.
func (r *logRing) entries() []logEntry { return append([]logEntry(nil), r.buf[r.head:]...) }

// prepend puts older entries before the ones held, keeping the newest
// within the bounds.
func (r *logRing) prepend(older []logEntry) {
	r.buf, r.head = append(append(make([]logEntry, 0, len(older)+r.len()), older...), r.buf[r.head:]...), 0
	r.bytes = 0
	for _, e := range r.buf {
		r.bytes += e.size()
	}
	r.trim()
}

// Pane is the server log: per server, the notifications/message a
// server sent and the lines it wrote to stderr, bounded, timestamped and
// sanitized. It sits under the body when open (ctrl+l), follows the tail
// unless scrolled up, and switches servers with [ and ]; with more than
// one server, an "all" view after the last interleaves them as they came.
type Pane struct {
	com     *common.Common
	rt      Runtime
	servers []string
	logs    map[string]*logRing
	// all holds every server's entries, in arrival order, bounded the same.
	all logRing
	// sel is the shown server's index; len(servers) is the "all" view.
	sel int
	// nameW is the widest server name, for the "all" view's column.
	nameW int
	// offset is how many lines the selected line (the view's bottom line
	// until the first page, where it moves up within the page) is above
	// the newest; 0 follows new lines.
	offset        int
	open, focused bool
	// tracing: every request howl sends is added (t toggles it).
	tracing bool
	// bodies are the traced messages' records, bounded by
	// MaxTraceBodiesBytes.
	bodies        bodyRing
	width, height int
}

// Runtime is what the log pane asks of the MCP side, from commands only:
// a server's stderr tail, and tracing on or off.
type Runtime interface {
	Stderr(name string) []byte
	SetTracing(on bool)
}

// New builds the pane over the servers' logs (more are added as they log).
func New(com *common.Common, rt Runtime, servers []string) *Pane {
	p := &Pane{com: com, rt: rt, logs: map[string]*logRing{}}
	for _, s := range servers {
		p.ring(s)
	}
	return p
}

// ring is a server's log, created (and the server listed) on first use.
func (p *Pane) ring(server string) *logRing {
	r, ok := p.logs[server]
	if !ok {
		r = &logRing{}
		p.logs[server] = r
		p.servers = append(p.servers, server)
		p.nameW = max(p.nameW, common.WidthOf(render.SanitizeLine(server)))
	}
	return r
}

// Server is the server whose log is shown ("" with no servers, or in the
// "all" view).
func (p *Pane) Server() string {
	if p.sel >= len(p.servers) {
		return ""
	}
	return p.servers[p.sel]
}

// showingAll reports whether the "all" view is shown.
func (p *Pane) showingAll() bool { return len(p.servers) > 1 && p.sel == len(p.servers) }

// views is how many views [ and ] cycle through: each server, then "all"
// when there is more than one.
func (p *Pane) views() int {
	if len(p.servers) > 1 {
		return len(p.servers) + 1
	}
	return len(p.servers)
}

// current is the shown ring (nil with no servers).
func (p *Pane) current() *logRing {
	if p.showingAll() {
		return &p.all
	}
	return p.logs[p.Server()]
}

// shown reports whether lines of server are in the shown view.
func (p *Pane) shown(server string) bool { return p.showingAll() || server == p.Server() }

// add appends entries to a server's log and to the "all" view, keeping a
// scrolled-up view where it is.
func (p *Pane) add(server string, es ...logEntry) {
	r := p.ring(server)
	for _, e := range es {
		r.add(e)
		e.server = server
		p.all.add(e)
		if p.shown(server) && p.offset > 0 {
			p.offset = min(p.offset+1, p.current().len())
		}
	}
}

// AddStderr adds one line a server wrote to its standard error.
func (p *Pane) AddStderr(server, line string, at time.Time) {
	p.add(server, logEntry{at: at, level: logStderr, text: clipLogLine(render.SanitizeLine(line))})
}

// AddMessage adds a notifications/message: its level, logger and data (a
// string as it is, anything else as compact JSON, formatted only as far as
// its one line keeps it), one entry per line of it.
func (p *Pane) AddMessage(server string, params map[string]any, at time.Time) {
	level, _ := params["level"].(string)
	level = logLevel(level)
	logger, _ := params["logger"].(string)
	var text string
	switch d := params["data"].(type) {
	case string:
		text = d
	case nil:
		text = ""
	default:
		// Compact JSON is one line: only what logLine sanitizes of it
		// is formatted, whatever the data's size.
		var whole bool
		if text, whole = common.JSONPrefix(d, rawLineBytes); !whole {
			s := render.SanitizeLine(text)
			cut := render.RuneBoundary(s, min(len(s), MaxLogLineBytes))
			p.add(server, logEntry{at: at, level: level, logger: logLine(logger),
				text: s[:cut] + fmt.Sprintf("… (data over %s cut to %s)", render.HumanBytes(int64(len(text))), render.HumanBytes(int64(cut)))})
			return
		}
	}
	// Only the lines the log can keep are sanitized and split: the ones
	// before them are counted, never copied (a 90 MiB message of 45
	// million lines cost 721 MB to keep 2,000).
	text = strings.TrimRight(text, "\n")
	start := tailStart(text)
	if over := strings.Count(text[:start], "\n"); over > 0 {
		p.ring(server).dropped += over
		p.all.dropped += over
	}
	logger = logLine(logger) // a server's string too: sanitized only as far as it is kept
	var es []logEntry
	for l := range strings.SplitSeq(text[start:], "\n") {
		es = append(es, logEntry{at: at, level: level, logger: logger, text: logLine(l)})
	}
	p.add(server, es...)
}

// tailStart is where the lines of text a log can keep begin: the last
// MaxLogLines of them, fewer when those lines, each bounded by
// MaxLogLineBytes, pass MaxLogBytes (the ring would drop the older ones).
// It looks only at those lines.
func tailStart(text string) int {
	end, size := len(text), 0 // end is the end of the line looked at
	for range MaxLogLines {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		size += min(end-start, MaxLogLineBytes)
		if start == 0 || size >= MaxLogBytes {
			return start
		}
		end = start - 1
	}
	return end + 1
}

// rawLineBytes is how much of one line of a server's text is sanitized:
// what MaxLogLineBytes keeps, with room for the escape sequences the
// sanitizer removes.
const rawLineBytes = 4 * MaxLogLineBytes

// logLine is one line of a server's message, sanitized and bounded to
// MaxLogLineBytes; of a longer line only its first rawLineBytes are
// sanitized, and its cut says its whole size.
func logLine(l string) string {
	if len(l) <= rawLineBytes {
		return clipLogLine(render.SanitizeLine(l))
	}
	s := render.SanitizeLine(l[:render.RuneBoundary(l, rawLineBytes)])
	cut := render.RuneBoundary(s, min(len(s), MaxLogLineBytes))
	return s[:cut] + fmt.Sprintf("… (%s line cut to %s)", render.HumanBytes(int64(len(l))), render.HumanBytes(int64(cut)))
}

// AddTrace adds a traced request: "→ tools/call echo · 1.2ms · 70 B", or
// its error.
func (p *Pane) AddTrace(server string, t mcp.RPCTrace, at time.Time) {
	e := logEntry{at: at, level: logRPC, text: clipLogLine(t.String())}
	p.keepBody(&e, t.Record(server))
	p.add(server, e)
}

// AddNotification adds a traced notification from the server:
// "← notifications/resources/updated demo://x", with its params as JSON
// (body, nil when not kept).
func (p *Pane) AddNotification(server, method string, params map[string]any, body json.RawMessage, at time.Time) {
	text := "← " + render.SanitizeLine(method)
	if uri, _ := params["uri"].(string); uri != "" {
		text += " " + render.SanitizeLine(uri)
	}
	e := logEntry{at: at, level: logRPC, text: clipLogLine(text)}
	p.keepBody(&e, mcp.NotificationRecord(server, method, body, at))
	p.add(server, e)
}

// Note adds a line of howl's own to a server's log (a level set, say).
func (p *Pane) Note(server, text string, at time.Time) {
	p.add(server, logEntry{at: at, level: logHowl, text: text})
}

// Seed puts a server's stderr tail, read when the pane opened, before the
// lines already held. Lines the relay already delivered are not repeated:
// the tail is cut where the held stderr lines begin.
func (p *Pane) Seed(server string, tail []byte) {
	r := p.ring(server)
	if r.seeded {
		return
	}
	r.seeded = true
	lines := strings.Split(strings.TrimRight(string(tail), "\n"), "\n")
	if len(tail) == 0 {
		return
	}
	var held []string
	for _, e := range r.entries() {
		if e.level == logStderr {
			held = append(held, e.text)
		}
	}
	for i := range lines {
		lines[i] = clipLogLine(render.SanitizeLine(lines[i]))
	}
	cut := overlapStart(lines, held)
	var older []logEntry
	for _, l := range lines[:cut] {
		older = append(older, logEntry{level: logStderr, text: l})
	}
	if len(older) > 0 {
		r.prepend(older)
		tagged := make([]logEntry, len(older))
		for i, e := range older {
			e.server = server
			tagged[i] = e
		}
		p.all.prepend(tagged)
		if p.shown(server) && p.offset > 0 {
			p.offset += len(older)
		}
	}
}

// overlapStart is where held (the stderr lines already shown, oldest
// first) begins in tail: the tail's lines before it are older. With
// nothing held, all of tail is older; when held is not found in tail, none
// of it is (the tail is then already shown or from an earlier run).
func overlapStart(tail, held []string) int {
	if len(held) == 0 {
		return len(tail)
	}
	for i := range tail {
		n := min(len(held), len(tail)-i)
		match := true
		for j := 0; j < n; j++ {
			if tail[i+j] != held[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return 0
}

// clipLogLine bounds one line to MaxLogLineBytes.
func clipLogLine(s string) string { return common.ClipText(s, MaxLogLineBytes, "line") }

// Switch shows the next (d > 0) or previous server's log, following its tail.
func (p *Pane) Switch(d int) {
	if n := p.views(); n > 0 {
		p.sel = (p.sel + d%n + n) % n
		p.offset = 0
	}
}

// Scroll moves the view by d lines (negative is up, towards older lines).
func (p *Pane) Scroll(d int) {
	n := 0
	if r := p.current(); r != nil {
		n = r.len()
	}
	// Past the first page the view stays and the bottom line (the one
	// the protocol keys act on) moves up within it, to the oldest line.
	maxOff := max(n-1, 0)
	p.offset = common.Clamp(p.offset-d, 0, maxOff)
}

// rows is how many log lines fit under the title.
func (p *Pane) rows() int { return max(p.height-1, 1) }

// SetSize sets the pane's size, its title row included.
func (p *Pane) SetSize(w, h int) tea.Cmd {
	p.width, p.height = w, h
	p.Scroll(0)
	return nil
}

// IsOpen reports whether the pane is shown.
func (p *Pane) IsOpen() bool { return p.open }

// Focus gives the pane the keys; Blur takes them back.
func (p *Pane) Focus() { p.focused = true }
func (p *Pane) Blur()  { p.focused = false }

// Focused reports whether the pane has the keys.
func (p *Pane) Focused() bool { return p.focused }

// Tracing reports whether every request is shown (t toggles it).
func (p *Pane) Tracing() bool { return p.tracing }

// SetTracing starts with tracing shown (howl --trace).
func (p *Pane) SetTracing(on bool) { p.tracing = on }

// HandleKey scrolls, switches servers, toggles tracing and gives the
// keys back (esc) while the pane has the keys. It reports whether it
// used the key.
func (p *Pane) HandleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := p.com.Keys
	switch {
	case key.Matches(msg, k.LogNext):
		p.Switch(1)
	case key.Matches(msg, k.LogPrev):
		p.Switch(-1)
	case key.Matches(msg, k.LogBlur), key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		p.focused = false
	case key.Matches(msg, k.LogTrace):
		return p.toggleTracing(), true
	case key.Matches(msg, k.LogSave):
		return p.saveSelected(), true
	case key.Matches(msg, k.LogCopy):
		return p.copySelected(), true
	default:
		d, ok := k.ScrollBy(msg, max(p.rows()-1, 1))
		if !ok {
			return nil, false
		}
		p.Scroll(d)
	}
	return nil, true
}

// Shown is the view on screen as plain text, with its title: what enter
// opens in the viewer.
func (p *Pane) Shown() (title, text string) {
	title = "log of " + render.SanitizeLine(p.Server())
	if p.showingAll() {
		title = "log of every server"
	}
	return title, p.text(p.current(), p.showingAll())
}

// Text is a server's whole log as plain lines, for the viewer.
func (p *Pane) Text(server string) string { return p.text(p.logs[server], false) }

// text is a ring's lines, plain, each with its server when withServer.
func (p *Pane) text(r *logRing, withServer bool) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	if r.dropped > 0 {
		fmt.Fprintf(&b, "(%d older lines were dropped: the log keeps the last %d, at most %s)\n", r.dropped, MaxLogLines, render.HumanBytes(MaxLogBytes))
	}
	for _, e := range r.entries() {
		b.WriteString(p.formatEntry(e, false, withServer))
		b.WriteByte('\n')
	}
	return b.String()
}

// levelWidth is the width of the level column.
const levelWidth = 6

// levelTag is a level's short name for the level column.
func levelTag(level string) string {
	switch level {
	case "warning":
		return "warn"
	case "critical":
		return "crit"
	case "emergency":
		return "emerg"
	}
	return level
}

// levelStyle is the theme's style for a level.
func (p *Pane) levelStyle(level string) lipgloss.Style {
	st := p.com.Styles.Log
	switch level {
	case "debug":
		return st.Debug
	case "info":
		return st.Info
	case "notice":
		return st.Notice
	case "warning":
		return st.Warning
	case "error":
		return st.Error
	case "critical", "alert", "emergency":
		return st.Critical
	case logHowl:
		return p.com.Styles.Accent
	case logRPC:
		return p.com.Styles.Muted
	}
	return st.Stderr
}

// formatEntry draws one entry: time, (its server,) level, logger and
// text; styled when color is set.
func (p *Pane) formatEntry(e logEntry, color, withServer bool) string {
	st := p.com.Styles.Log
	style := func(s lipgloss.Style, x string) string {
		if color {
			return s.Render(x)
		}
		return x
	}
	ts := "earlier " // read from the stderr tail: its time is unknown
	if !e.at.IsZero() {
		loc := p.com.Location
		if loc == nil {
			loc = time.Local
		}
		ts = e.at.In(loc).Format("15:04:05")
	}
	lvl := levelTag(e.level)
	lvl += strings.Repeat(" ", max(levelWidth-len(lvl), 0))
	out := style(st.Time, ts) + " "
	if withServer {
		name := render.SanitizeLine(e.server)
		out += style(p.com.Styles.Strong, name) + strings.Repeat(" ", max(p.nameW-common.WidthOf(name), 0)+1)
	}
	out += style(p.levelStyle(e.level), lvl) + " "
	if e.logger != "" {
		out += style(st.Logger, e.logger+":") + " "
	}
	text := e.text
	if e.level == logStderr {
		text = style(st.Stderr, text)
	}
	return out + text
}

// title is the pane's first row: the servers (the shown one in
// brackets), the line count, the dropped count and the keys.
func (p *Pane) title() string {
	var b strings.Builder
	b.WriteString("─ log ")
	for i, s := range p.servers {
		name := render.SanitizeLine(s)
		if i == p.sel {
			b.WriteString("[" + name + "] ")
		} else {
			b.WriteString(" " + name + "  ")
		}
	}
	if len(p.servers) > 1 {
		if p.showingAll() {
			b.WriteString("[all] ")
		} else {
			b.WriteString(" all  ")
		}
	}
	if r := p.current(); r != nil {
		fmt.Fprintf(&b, "· %d lines ", r.len())
		if r.dropped > 0 {
			fmt.Fprintf(&b, "· %d older dropped (keeps %d, %s) ", r.dropped, MaxLogLines, render.HumanBytes(MaxLogBytes))
		}
	}
	if p.offset > 0 {
		fmt.Fprintf(&b, "· scrolled up %d · G follows ", p.offset)
	}
	if p.tracing {
		b.WriteString("· tracing requests ")
	}
	if p.focused && p.HasSelectedTrace() {
		b.WriteString("· enter opens the message, w saves, y copies ")
	}
	if p.focused {
		b.WriteString("· ctrl+l closes ")
	} else {
		b.WriteString("· ctrl+l gives it the keys ")
	}
	return b.String()
}

// Render draws the pane: exactly height rows of exactly width cells.
func (p *Pane) Render(int) []string {
	if p.height <= 0 || p.width <= 0 {
		return nil
	}
	st := p.com.Styles.Log
	ts := st.Title
	if p.focused {
		ts = st.TitleFocused
	}
	head := p.title()
	out := []string{ts.Render(common.Fit(head+strings.Repeat("─", max(p.width-common.WidthOf(head), 0)), p.width))}
	rows := p.rows()
	r := p.current()
	if r == nil || r.len() == 0 {
		msg := "no log lines yet"
		if s := p.Server(); s != "" && !p.showingAll() {
			name := render.SanitizeLine(s)
			msg = fmt.Sprintf("no log lines from %s yet: its stderr and log messages show here (.loglevel %s debug asks for more)", name, name)
		}
		out = append(out, p.com.Styles.Muted.Render(common.Fit(msg, p.width)))
		return common.PadLines(out, p.width, p.height)
	}
	sel := r.len() - 1 - p.offset
	end := max(r.len()-p.offset, min(rows, r.len()))
	start := max(end-rows, 0)
	for i := start; i < end; i++ {
		line := common.Fit(p.formatEntry(r.at(i), true, p.showingAll()), p.width)
		if i == sel && p.focused && r.at(i).body != nil {
			// The protocol keys' line: drawn plain, then selected.
			line = p.com.Styles.List.Selected.Render(common.Fit(p.formatEntry(r.at(i), false, p.showingAll()), p.width))
		}
		out = append(out, line)
	}
	return common.PadLines(out, p.width, p.height)
}

// logSeedMsg carries every server's stderr tail, read when the pane opened.
type logSeedMsg struct{ tails map[string][]byte }

// seedCmd reads the stderr tails of servers not yet seeded.
func (p *Pane) seedCmd(servers []string) tea.Cmd {
	if len(servers) == 0 {
		return nil
	}
	rt := p.rt
	return common.Deliver(common.OwnerLogs, p.com.NewID(), func() tea.Msg {
		tails := map[string][]byte{}
		for _, s := range servers {
			tails[s] = rt.Stderr(s)
		}
		return logSeedMsg{tails: tails}
	})
}

// HandleResult puts the stderr tails, read when the pane opened, into the log.
func (p *Pane) HandleResult(r common.Result) tea.Cmd {
	if msg, ok := r.Msg.(logSeedMsg); ok {
		for _, s := range slices.Sorted(maps.Keys(msg.tails)) {
			p.Seed(s, msg.tails[s])
		}
	}
	return nil
}

// Toggle opens the pane (reading the stderr tails the first time), gives
// it the keys when it is open without them, and closes it when it has them.
func (p *Pane) Toggle() tea.Cmd {
	switch {
	case !p.open:
		p.open, p.focused = true, true
		var todo []string
		for _, s := range p.servers {
			if !p.logs[s].seeded {
				todo = append(todo, s)
			}
		}
		return p.seedCmd(todo)
	case !p.focused:
		p.focused = true
	default:
		p.open, p.focused = false, false
	}
	return nil
}

// toggleTracing turns request tracing on or off, says so in every
// server's log, and tells the runtime (in a command: that is a call on it).
func (p *Pane) toggleTracing() tea.Cmd {
	p.tracing = !p.tracing
	note := "tracing stopped"
	if p.tracing {
		note = "tracing requests: each one howl sends to a server shows here as it ends (t stops)"
	}
	for _, s := range p.servers {
		p.Note(s, note, p.com.Now())
	}
	rt, on := p.rt, p.tracing
	return func() tea.Msg {
		rt.SetTracing(on)
		return nil
	}
}

// AddEvent records a runtime event in the log: a stderr line, a
// notifications/message, or (while tracing) a request or notification.
func (p *Pane) AddEvent(e mcp.Event) {
	now := p.com.Now()
	switch {
	case e.Kind == mcp.EventTrace && e.Trace != nil && p.tracing:
		p.AddTrace(e.Server, *e.Trace, now)
	case e.Kind == mcp.EventNotification && p.tracing && e.Method != "notifications/message" && e.Method != "notifications/progress":
		// Messages have their own lines; progress would drown the rest.
		p.AddNotification(e.Server, e.Method, e.Params, e.Body, now)
	case e.Kind == mcp.EventStderr:
		p.AddStderr(e.Server, e.Line, now)
	case e.Kind == mcp.EventNotification && e.Method == "notifications/message":
		p.AddMessage(e.Server, e.Params, now)
	}
}

// Held says what a server's log holds ("" for the view of every server):
// its lines, their bytes (counted against MaxLogBytes) and how many older
// lines were dropped.
func (p *Pane) Held(server string) (lines, bytes, dropped int) {
	r := &p.all
	if server != "" {
		r = p.logs[server]
	}
	if r == nil {
		return 0, 0, 0
	}
	return r.len(), r.bytes, r.dropped
}

var _ common.Pane = (*Pane)(nil)
