package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Runtime events from the relay: server states, notifications, progress.

// handleSnapshot applies the initial server states.
func (m *Model) handleSnapshot(msg statusSnapshotMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, st := range msg.statuses {
		if !m.catalog.Stale(st) {
			cmds = append(cmds, m.catalog.ApplyStatus(st))
		}
	}
	return tea.Batch(cmds...)
}

// handleEvents applies runtime events from the relay. The status lines
// its notifications ask for become one: the most severe (the latest of
// them), saying how many more there were. One a notification was one
// message through bubbletea each, and a frame drawn after each, so a
// server's flood of list_changed or warnings (4,096 an EventsMsg) held a
// key behind seconds of frames.
func (m *Model) handleEvents(msg EventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	var shown notice
	notices := 0
	for _, e := range msg.Events {
		m.logs.AddEvent(e)
		switch e.Kind {
		case mcp.EventState:
			if m.catalog.Stale(e.Status) {
				continue
			}
			cmds = append(cmds, m.catalog.ApplyStatus(e.Status), m.closeAppsOfState(e.Status))
			m.noteLogin(e.Status)
		case mcp.EventNotification:
			n, ok := m.handleNotification(e)
			switch {
			case ok && n.own:
				// howl's own news about a server (an app it closed, a
				// login's URL): few, and each one is shown.
				cmds = append(cmds, common.ReportInfo(n.text))
			case ok:
				if notices++; n.warn || !shown.warn {
					shown = n
				}
			}
		case mcp.EventProgress:
			m.handleProgress(e)
		case mcp.EventReload:
			if e.Reload != nil {
				cmds = append(cmds, m.handleReload(*e.Reload))
			}
		case mcp.EventCatalogChanged:
			cmds = append(cmds, m.catalog.HandleCatalogChanged(e.Server, e.Change))
		case mcp.EventResourceUpdated:
			if m.com.Subs.Updated(e.Server, e.URI, m.com.Now()) {
				cmds = append(cmds, m.viewer.HandleResourceUpdated())
			}
		}
	}
	if notices > 0 {
		text := shown.text
		if notices > 1 {
			text += fmt.Sprintf(" (+%d more in the log)", notices-1)
		}
		report := common.ReportInfo
		if shown.warn {
			report = common.ReportWarn
		}
		cmds = append(cmds, report(text))
	}
	if msg.Dropped > 0 {
		cmds = append(cmds, common.ReportWarn(fmt.Sprintf("%d server events were dropped: the servers sent more than howl could show", msg.Dropped)))
	}
	return tea.Batch(cmds...)
}

// notice is the status line a notification asks for; own is howl's own
// (see isOwnNotice).
type notice struct {
	text      string
	warn, own bool
}

// handleProgress records a request's progress on the board (the status
// bar and the viewer draw from it) and in the chat's tool block; progress
// for a request no pane waits on is dropped by the board.
func (m *Model) handleProgress(e mcp.Event) {
	if e.Progress == nil {
		return
	}
	p := *e.Progress
	p.Message = common.ClipText(p.Message, common.MaxStatusBytes, "message")
	if m.com.Progress.Apply(p) {
		m.chat.HandleProgress(p)
	}
}

// handleNotification is the status line a server notification asks for,
// if any.
func (m *Model) handleNotification(e mcp.Event) (notice, bool) {
	name := render.SanitizeLine(e.Server)
	switch e.Method {
	case "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed":
		// The runtime lists again (debounced) and reports what changed.
		return notice{text: name + ": the catalog changed, listing again"}, true
	case "notifications/resources/updated":
		// A server's URI of any length: only what the line keeps is sanitized.
		return notice{text: statusText(name+": ", fmt.Sprint(e.Params["uri"])+" was updated")}, true
	case "notifications/message":
		lvl, _ := e.Params["level"].(string)
		if isOwnNotice(e) { // never a server's: its logger's name proves nothing
			return notice{text: statusText(name+": ", e.Params["data"]), own: true}, true
		}
		switch lvl {
		case "warning", "error", "critical", "alert", "emergency":
			return notice{text: statusText(name+" "+render.SanitizeLine(lvl)+": ", e.Params["data"]), warn: true}, true
		}
	}
	return notice{}, false
}

// statusNoteBytes is room for statusText's note of a cut: "… (1023.9 MiB
// message cut to 1000 B)".
const statusNoteBytes = 48

// statusText is prefix (sanitized already) and a message's data as one
// status line of at most common.MaxStatusBytes. Of a long string only
// what the line keeps is sanitized (a warning of 64 MiB cost its size
// several times over before the status bar cut it); the cut says the
// whole size. Other data shows as compact JSON, formatted only as far as
// the line keeps it, so its cut says only that it was over what was
// formatted.
func statusText(prefix string, data any) string {
	s, isString := data.(string)
	var size string // the whole message's size, once it is known to be cut
	if !isString {
		var whole bool
		if s, whole = common.JSONPrefix(data, common.MaxStatusBytes); !whole {
			size = "message over " + render.HumanBytes(int64(len(prefix)+len(s)))
		}
	}
	if size == "" {
		if len(prefix)+len(s) <= common.MaxStatusBytes {
			return render.SanitizeLine(prefix + s)
		}
		size = render.HumanBytes(int64(len(prefix)+len(s))) + " message"
	}
	line := render.SanitizeLine(prefix + s[:render.RuneBoundary(s, common.MaxStatusBytes)])
	cut := render.RuneBoundary(line, common.MaxStatusBytes-statusNoteBytes)
	return line[:cut] + fmt.Sprintf("… (%s cut to %s)", size, render.HumanBytes(int64(cut)))
}
