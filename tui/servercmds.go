package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// This file holds the commands that act on a server's session rather
// than its catalog: `.loglevel`, `.tasks` and `.mcp auth`.

// commandDoneMsg is a command's answer: what the chat says, and a line
// for a server's log.
type commandDoneMsg struct {
	notice, err string
	table       []string
	// logServer and logNote: a line of howl's own for that server's log.
	logServer, logNote string
	// login is the server whose `.mcp auth` this answers.
	login string
}

// handleCommandDone shows a command's answer.
func (m *Model) handleCommandDone(msg commandDoneMsg) {
	if msg.err != "" {
		m.chat.Error(msg.err)
		if msg.login != "" {
			delete(m.logins, msg.login) // no state change will follow
		}
	}
	if msg.notice != "" {
		m.chat.Notice(msg.notice)
	}
	if msg.table != nil {
		m.chat.Table(msg.table)
	}
	if msg.logNote != "" {
		m.logs.Note(msg.logServer, msg.logNote, m.com.Now())
	}
}

// cmdLogLevel asks a server for log messages at a level and above.
func (m *Model) cmdLogLevel(words []string) tea.Cmd {
	levels := strings.Join(mcp.LogLevels, ", ")
	if len(words) != 2 {
		m.chat.Error("usage: " + chat.Usage(".loglevel") + ": the levels are " + levels + " (tab completes servers and levels)")
		return nil
	}
	server, level := words[0], strings.ToLower(words[1])
	if !slices.Contains(mcp.LogLevels, level) {
		m.chat.Error(fmt.Sprintf(".loglevel: %q is not a log level: use one of %s", render.SanitizeLine(words[1]), levels))
		return nil
	}
	sv, err := m.readyServer(server, ".loglevel")
	if err != nil {
		m.chat.Error(err.Error())
		return nil
	}
	if f := sv.Status().Features; f != nil && !f.Logging {
		m.chat.Error(fmt.Sprintf(".loglevel: server %s does not offer logging (its handshake has no logging capability), so it cannot be asked for log messages; what it writes to stderr still shows in the log (ctrl+l)", render.SanitizeLine(server)))
		return nil
	}
	rt, ctx := m.com.RT, m.com.Ctx
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		if err := rt.SetLogLevel(ctx, server, level); err != nil {
			return commandDoneMsg{err: render.Sanitize(".loglevel: " + err.Error())}
		}
		return commandDoneMsg{
			notice:    fmt.Sprintf("%s now sends log messages at %s and above: ctrl+l shows them", render.SanitizeLine(server), level),
			logServer: server, logNote: "log level set to " + level,
		}
	})
}

// cmdTasks lists the running tasks, or cancels one.
func (m *Model) cmdTasks(words []string) tea.Cmd {
	rt, now := m.com.RT, m.com.Now()
	switch {
	case len(words) == 0:
		return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg { return tasksTable(rt.Tasks(), now) })
	case len(words) == 2 && words[0] == "cancel":
		id := words[1]
		return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg { return cancelTask(rt, id) })
	}
	m.chat.Error("usage: " + chat.Usage(".tasks") + ": .tasks lists the running tasks with their ids")
	return nil
}

// tasksTable lists tasks, or says there are none.
func tasksTable(ts []mcp.RunningTask, now time.Time) commandDoneMsg {
	if len(ts) == 0 {
		return commandDoneMsg{notice: "no tasks running: a tool its server runs as a task shows here while it runs"}
	}
	rows := [][]string{{"server", "tool", "task", "status", "age", "message"}}
	for _, t := range ts {
		rows = append(rows, []string{render.SanitizeLine(t.Server), render.SanitizeLine(t.Tool), render.SanitizeLine(t.TaskID),
			render.SanitizeLine(t.Status), age(now.Sub(t.Started)), render.SanitizeLine(common.FirstLine(t.Message))})
	}
	return commandDoneMsg{table: append(formatTable(rows), ".tasks cancel <task> cancels one")}
}

// cancelTask cancels the task with id (a task id, or its progress token).
func cancelTask(rt common.Runtime, id string) commandDoneMsg {
	ts := rt.Tasks()
	var ids []string
	for _, t := range ts {
		if t.TaskID != id && t.Token != id {
			ids = append(ids, render.SanitizeLine(t.TaskID))
			continue
		}
		what := fmt.Sprintf("task %s (%s on %s)", render.SanitizeLine(t.TaskID), render.SanitizeLine(t.Tool), render.SanitizeLine(t.Server))
		if !rt.Cancel(t.Token) {
			return commandDoneMsg{err: ".tasks cancel: " + what + " has already ended"}
		}
		return commandDoneMsg{notice: "cancelling " + what + ": its call ends as cancelled", logServer: t.Server, logNote: "cancelled " + what}
	}
	if len(ids) == 0 {
		return commandDoneMsg{err: fmt.Sprintf(".tasks cancel: no task %q: no tasks are running", render.SanitizeLine(id))}
	}
	return commandDoneMsg{err: fmt.Sprintf(".tasks cancel: no task %q: the running tasks are %s (.tasks lists them)", render.SanitizeLine(id), strings.Join(ids, ", "))}
}

// age writes a duration shortly: 42s, 3m05s, 2h10m.
func age(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// login starts a server's OAuth login in a command. The chat waits for
// the server's next settled state (ready, failed or still auth-required)
// and says it.
func (m *Model) login(name string) tea.Cmd {
	rt := m.com.RT
	m.logins[name] = true
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		if err := rt.Login(name); err != nil {
			return commandDoneMsg{login: name, err: render.Sanitize(".mcp auth " + name + ": " + err.Error())}
		}
		return commandDoneMsg{login: name, notice: "logging in to " + render.SanitizeLine(name) +
			": finish the login in the browser that opened (or open the address howl printed); the result shows here"}
	})
}

// noteLogin says how a server's `.mcp auth` ended once its state settles.
func (m *Model) noteLogin(st mcp.Status) {
	if !m.logins[st.Name] {
		return
	}
	name := render.SanitizeLine(st.Name)
	switch st.State {
	case mcp.StateReady:
		m.chat.Notice(name + " is logged in and ready")
	case mcp.StateAuthRequired:
		m.chat.Error(fmt.Sprintf(".mcp auth %s: %s still needs authorization: %s (.mcp auth %s tries again)", name, name, common.OrDefault(render.SanitizeLine(st.Reason), "the login did not finish"), name))
	case mcp.StateFailed:
		m.chat.Error(fmt.Sprintf(".mcp auth %s: %s failed after the login: %s (.mcp auth %s tries again)", name, name, render.SanitizeLine(st.Reason), name))
	case mcp.StateStarting:
		return
	}
	delete(m.logins, st.Name)
}

// serverReason is a server's reason and the fix its state calls for, for
// the servers table.
func serverReason(sv *catalog.Server) string {
	name := render.SanitizeLine(sv.Name())
	var parts []string
	if r := render.SanitizeLine(sv.Status().Reason); r != "" {
		parts = append(parts, r)
	}
	switch sv.Status().State {
	case mcp.StateAuthRequired:
		parts = append(parts, "fix: .mcp auth "+name)
	case mcp.StateFailed:
		parts = append(parts, "fix: .mcp reconnect "+name)
	}
	return strings.Join(parts, " · ")
}

// toolSwitchedMsg is the answer to the SwitchOff key: on the Tools tab
// (a tool), or in the servers dialog (tool "": the whole server).
type toolSwitchedMsg struct {
	server, tool string
	off          bool
	done         commandDoneMsg
}

// switchSelectedTool switches the selected tool off (or back on) for the
// model, at once and in its server's config entry, in a command.
func (m *Model) switchSelectedTool() tea.Cmd {
	e := m.catalog.Selected()
	if e == nil || e.Item().Kind != mcp.KindTool {
		return common.ReportInfo("X switches a tool off or on for the model: select a tool on the Tools tab")
	}
	rt, it, off := m.com.RT, e.Item(), !e.Off()
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		file, err := rt.Switch(it.Server, []string{it.ID}, off)
		return toolSwitchedMsg{server: it.Server, tool: it.ID, off: off, done: switchedMsg(it.Server, []string{it.ID}, off, file, err)}
	})
}

// handleToolSwitched marks the tool and says where the switch was written.
func (m *Model) handleToolSwitched(msg toolSwitchedMsg) tea.Cmd {
	if msg.done.err != "" {
		return m.status.Set(common.InfoMsg{Type: common.InfoError, Msg: msg.done.err, TTL: common.DefaultInfoTTL})
	}
	m.catalog.SetToolOff(msg.server, msg.tool, msg.off)
	return m.status.Set(common.InfoMsg{Type: common.InfoPlain, Msg: msg.done.notice, TTL: common.DefaultInfoTTL})
}

// switchServer switches a server off (hidden from the chat, "disabled"
// in its entry) or back on, from the servers dialog; the status line
// says where it was written.
func (m *Model) switchServer(name string) tea.Cmd {
	disabledAtStart := false
	for _, sv := range m.catalog.Servers() {
		if st := sv.Status(); sv.Name() == name && st.State == mcp.StateStopped && st.Reason == "disabled in config" {
			disabledAtStart = true
		}
	}
	off := !(m.com.Hidden[name] || disabledAtStart)
	if off {
		m.com.Hidden[name] = true
	} else {
		delete(m.com.Hidden, name)
	}
	rt := m.com.RT
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		file, err := rt.Switch(name, nil, off)
		return toolSwitchedMsg{server: name, off: off, done: switchedMsg(name, nil, off, file, err)}
	})
}
