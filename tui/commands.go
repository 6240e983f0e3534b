package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
	"github.com/howl-mcp/howl/tui/viewer"
)

// runners are the `.` commands' handlers, by name; the table itself (names,
// usage, descriptions) is chat.Commands.
var runners = map[string]func(m *Model, words []string) tea.Cmd{
	".prompt": (*Model).cmdPrompt, ".list": (*Model).cmdList, ".read": (*Model).cmdRead, ".call": (*Model).cmdCall,
	".mcp": (*Model).cmdMCP, ".loglevel": (*Model).cmdLogLevel, ".tasks": (*Model).cmdTasks, ".roots": (*Model).cmdRoots,
	".model": (*Model).cmdModel, ".clear": (*Model).cmdClear, ".sessions": (*Model).cmdSessions, ".export": (*Model).cmdExport,
	".help": (*Model).cmdHelp, ".quit": (*Model).cmdQuit, ".context": (*Model).cmdContext,
}

// runLine handles one line from the input: a command when it starts with
// ".", otherwise a chat message.
func (m *Model) runLine(line string) tea.Cmd {
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if !strings.HasPrefix(line, ".") {
		if cmd := m.sendWithMentions(line); cmd != nil {
			return cmd
		}
		return m.chat.Submit(line)
	}
	words, err := mcp.SplitArgs(line)
	if err != nil {
		m.chat.Error(err.Error())
		return nil
	}
	if len(words) == 0 {
		return nil
	}
	c, ok := chat.FindCommand(words[0])
	if !ok {
		msg := fmt.Sprintf("unknown command %s", render.SanitizeLine(words[0]))
		if s := chat.SuggestCommand(words[0]); s != "" {
			msg += fmt.Sprintf(": did you mean %s? (.help lists the commands)", s)
		} else {
			msg += ": .help lists the commands"
		}
		m.chat.Error(msg)
		return nil
	}
	return runners[c.Name](m, words[1:])
}

// readyServer checks that name is a known, enabled and ready server.
func (m *Model) readyServer(name, cmd string) (*catalog.Server, error) {
	for _, sv := range m.catalog.Servers() {
		if sv.Name() != name {
			continue
		}
		if m.com.Hidden[name] {
			return nil, fmt.Errorf("%s: server %q is switched off: .mcp enable %s switches it on", cmd, name, name)
		}
		if sv.Status().State != mcp.StateReady {
			return nil, fmt.Errorf("%s: server %q is %s: .mcp reconnect %s restarts it", cmd, name, sv.Status().State, name)
		}
		return sv, nil
	}
	return nil, fmt.Errorf("%s: no server is named %q: the servers are %s", cmd, name, strings.Join(m.serverNames(), ", "))
}

// serverNames are every configured server's names.
func (m *Model) serverNames() []string {
	var out []string
	for _, sv := range m.catalog.Servers() {
		out = append(out, sv.Name())
	}
	return out
}

// cmdPrompt gets a prompt. With every required argument given it is sent
// at once; otherwise the argument form opens, filled with what was typed.
func (m *Model) cmdPrompt(words []string) tea.Cmd {
	if len(words) < 2 {
		m.chat.Error("usage: " + chat.Usage(".prompt") + " (tab completes servers, prompts and argument names)")
		return nil
	}
	if _, err := m.readyServer(words[0], ".prompt"); err != nil {
		m.chat.Error(err.Error())
		return nil
	}
	args, err := mcp.ParseKeyValues(words[2:])
	if err != nil {
		m.chat.Error(".prompt: " + err.Error())
		return nil
	}
	return common.Deliver(common.OwnerRoot, m.com.NewID(), lookupPromptCmd(m.com.Ctx, m.com.RT, words[0], words[1], args))
}

// promptFoundMsg: the prompt's catalog entry, to check its arguments.
type promptFoundMsg struct {
	item mcp.CatalogItem
	args map[string]string
	err  error
}

// lookupPromptCmd finds a prompt in its server's catalog.
func lookupPromptCmd(ctx context.Context, rt common.Runtime, server, name string, args map[string]string) tea.Cmd {
	return func() tea.Msg {
		cat, err := rt.Catalog(ctx, server, false)
		if err != nil {
			return promptFoundMsg{err: err}
		}
		it, ok := cat.Lookup(mcp.KindPrompt, name)
		if !ok {
			var names []string
			for _, x := range cat.Items {
				if x.Kind == mcp.KindPrompt {
					names = append(names, x.Name)
				}
			}
			return promptFoundMsg{err: fmt.Errorf(".prompt: %s has no prompt %q: its prompts are %s", server, name, strings.Join(names, ", "))}
		}
		return promptFoundMsg{item: it, args: args}
	}
}

// handlePromptFound opens the form when required arguments are missing (or
// an argument is unknown), and otherwise gets the prompt.
func (m *Model) handlePromptFound(msg promptFoundMsg) tea.Cmd {
	if msg.err != nil {
		m.chat.Error(render.Sanitize(msg.err.Error()))
		return nil
	}
	known := map[string]bool{}
	for _, a := range msg.item.Arguments {
		known[a.Name] = true
	}
	for k := range msg.args {
		if !known[k] {
			var names []string
			for _, a := range msg.item.Arguments {
				names = append(names, a.Name)
			}
			m.chat.Error(fmt.Sprintf(".prompt: %s takes no argument %q: its arguments are %s", render.SanitizeLine(msg.item.Name), render.SanitizeLine(k), common.OrDefault(strings.Join(names, ", "), "none")))
			return nil
		}
	}
	if len(mcp.MissingArguments(msg.item, msg.args)) > 0 {
		d := dialog.NewChatPromptForm(m.com, msg.item)
		for k, v := range msg.args {
			d.Form().SetValue(k, v)
		}
		return m.pushForm(d)
	}
	return m.getPromptCmd(msg.item, msg.args, false)
}

// promptResultMsg is a prompt's flattened result, to preview or to send.
type promptResultMsg struct {
	item    mcp.CatalogItem
	res     *mcp.PromptResult
	err     error
	preview bool
}

// getPromptCmd gets and flattens a prompt, as a chat request (ctrl+c
// cancels it).
func (m *Model) getPromptCmd(it mcp.CatalogItem, args map[string]string, preview bool) tea.Cmd {
	what := "getting the prompt " + render.SanitizeLine(it.Name)
	ctx, id := m.chatReqs.Start(what)
	rt := m.com.RT
	return tea.Batch(common.Deliver(common.OwnerRoot, id, func() tea.Msg {
		res, err := rt.GetPrompt(ctx, it.Server, it.Name, args)
		return promptResultMsg{item: it, res: res, err: err, preview: preview}
	}), common.ReportInfo(what+" · ctrl+c cancels"))
}

// handlePromptResult previews the result (from the form) or sends it. The
// text goes to the chat as the person's message directly, never through
// runLine: a prompt starting with "." or "!" is chatted, never run.
func (m *Model) handlePromptResult(id common.RequestID, msg promptResultMsg) tea.Cmd {
	if !m.chatReqs.Done(id) {
		return nil // cancelled: it said so then
	}
	if msg.err != nil {
		m.chat.Error(render.Sanitize(msg.err.Error()))
		return nil
	}
	if msg.preview {
		m.dialogs.Push(dialog.NewPromptPreview(m.com, msg.item, msg.res))
		return nil
	}
	return m.chat.Submit(msg.res.Text)
}

// cmdList prints a table of what the enabled servers offer.
func (m *Model) cmdList(words []string) tea.Cmd {
	if len(words) != 1 || !contains(chat.ListKinds, words[0]) {
		m.chat.Error("usage: .list " + strings.Join(chat.ListKinds, "|"))
		return nil
	}
	if words[0] == "servers" {
		m.chat.Table(m.serversTable())
		return nil
	}
	var servers, skipped []string
	for _, sv := range m.catalog.Servers() {
		switch {
		case m.com.Hidden[sv.Name()]:
		case sv.Status().State == mcp.StateReady:
			servers = append(servers, sv.Name())
		default:
			skipped = append(skipped, fmt.Sprintf("%s is %s: not listed (.mcp reconnect %s restarts it)", render.SanitizeLine(sv.Name()), sv.Status().State, render.SanitizeLine(sv.Name())))
		}
	}
	return common.Deliver(common.OwnerRoot, m.com.NewID(), listCmd(m.com.Ctx, m.com.RT, servers, words[0], skipped))
}

// tableMsg is a finished table for the transcript.
type tableMsg struct{ lines []string }

// listCmd lists one kind across servers as a table: server, name,
// description and (for prompts) the arguments, every server string
// sanitized.
func listCmd(ctx context.Context, rt common.Runtime, servers []string, kind string, notes []string) tea.Cmd {
	k := map[string]mcp.Kind{"prompts": mcp.KindPrompt, "tools": mcp.KindTool, "resources": mcp.KindResource, "templates": mcp.KindTemplate}[kind]
	return func() tea.Msg {
		rows := [][]string{{"server", "name", "description"}}
		if k == mcp.KindPrompt {
			rows[0] = append(rows[0], "arguments")
		}
		for _, s := range servers {
			cat, err := rt.Catalog(ctx, s, false)
			if err != nil {
				notes = append(notes, render.SanitizeLine(s+": "+err.Error()))
				continue
			}
			for _, it := range cat.Items {
				if it.Kind != k {
					continue
				}
				name := it.Name
				if k == mcp.KindResource || k == mcp.KindTemplate {
					name = it.URI
				}
				row := []string{render.SanitizeLine(s), render.SanitizeLine(name), render.SanitizeLine(common.FirstLine(it.Description))}
				if k == mcp.KindPrompt {
					var args []string
					for _, a := range it.Arguments {
						n := render.SanitizeLine(a.Name)
						if a.Required {
							n += "*"
						}
						args = append(args, n)
					}
					row = append(row, strings.Join(args, " "))
				}
				rows = append(rows, row)
			}
		}
		lines := formatTable(rows)
		if len(rows) == 1 {
			lines = []string{"no " + kind + " on the enabled servers"}
		}
		if k == mcp.KindPrompt && len(rows) > 1 {
			lines = append(lines, "* required · .prompt <server> <name> key=value sends one")
		}
		return tableMsg{lines: append(lines, notes...)}
	}
}

// serversTable is every server with its state.
func (m *Model) serversTable() []string {
	rows := [][]string{{"server", "state", "chat", "reason"}}
	for _, sv := range m.catalog.Servers() {
		chat := "shown"
		if m.com.Hidden[sv.Name()] {
			chat = "hidden"
		}
		rows = append(rows, []string{render.SanitizeLine(sv.Name()), string(sv.Status().State), chat, serverReason(sv)})
	}
	return formatTable(rows)
}

// formatTable aligns rows in columns (the last column is not padded).
func formatTable(rows [][]string) []string {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], min(common.WidthOf(c), 60))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(common.Fit(c, widths[i]) + "  ")
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cmdRead reads a resource, or a template with key=value variables, in
// the viewer.
func (m *Model) cmdRead(words []string) tea.Cmd {
	if len(words) < 2 {
		m.chat.Error("usage: " + chat.Usage(".read") + " (tab completes servers and URIs)")
		return nil
	}
	if _, err := m.readyServer(words[0], ".read"); err != nil {
		m.chat.Error(err.Error())
		return nil
	}
	args, err := mcp.ParseKeyValues(words[2:])
	if err != nil {
		m.chat.Error(".read: " + err.Error())
		return nil
	}
	if len(args) == 0 {
		args = nil
	}
	return m.openFromChat(viewer.Read(words[0], words[1], args), "reading")
}

// cmdCall calls a tool with key=value arguments, typed from its schema.
func (m *Model) cmdCall(words []string) tea.Cmd {
	if len(words) < 2 {
		m.chat.Error("usage: " + chat.Usage(".call") + " (tab completes servers, tools and argument names)")
		return nil
	}
	if _, err := m.readyServer(words[0], ".call"); err != nil {
		m.chat.Error(err.Error())
		return nil
	}
	kv, err := mcp.ParseKeyValues(words[2:])
	if err != nil {
		m.chat.Error(".call: " + err.Error())
		return nil
	}
	// Typed from the schema in the load command: the catalog on screen
	// may still be listing when the line is sent.
	return m.openFromChat(viewer.CallTyped(words[0], words[1], kv), "calling "+render.SanitizeLine(words[1]))
}

// cmdMCP lists the servers with their states and fixes; with an action
// it hides a server from the chat, shows it again, restarts it, or starts
// its login.
func (m *Model) cmdMCP(words []string) tea.Cmd {
	if len(words) == 0 {
		m.chat.Table(m.serversTable())
		return nil
	}
	if len(words) == 1 && words[0] == "reload" {
		return m.cmdReload()
	}
	switchAction := len(words) > 2 && (words[0] == "enable" || words[0] == "disable")
	if (len(words) != 2 && !switchAction) || !contains(chat.MCPActions, words[0]) {
		m.chat.Error("usage: " + chat.Usage(".mcp"))
		return nil
	}
	name := words[1]
	if !contains(m.serverNames(), name) {
		m.chat.Error(fmt.Sprintf(".mcp: no server is named %q: the servers are %s", name, strings.Join(m.serverNames(), ", ")))
		return nil
	}
	switch words[0] {
	case "disable", "enable":
		off, tools := words[0] == "disable", words[2:]
		if len(tools) == 0 {
			if off {
				m.com.Hidden[name] = true
			} else {
				delete(m.com.Hidden, name)
			}
		}
		return m.switchCmd(name, tools, off)
	case "reload":
		m.chat.Error(".mcp reload takes no server: it reads every config file in use again")
	case "reconnect":
		m.chat.Notice("reconnecting " + name)
		return reconnectCmd(m.com.RT, name)
	case "auth":
		return m.login(name)
	case "decline":
		return m.declineAll(name)
	case "ask":
		m.askAgain(name)
	}
	return nil
}

// modelSwitchedMsg is the answer to `.model`.
type modelSwitchedMsg struct {
	spec  string
	model llm.Model
	err   error
}

// cmdModel switches the model; resolving it runs in a command.
func (m *Model) cmdModel(words []string) tea.Cmd {
	if len(words) != 1 {
		m.chat.Error("usage: " + chat.Usage(".model") + "; the providers are " + strings.Join(llm.ProviderNames(), ", "))
		return nil
	}
	if m.chat.Running() {
		m.chat.Error(".model: a turn is running: press esc to cancel it first")
		return nil
	}
	if m.com.SwitchModel == nil {
		m.chat.Error(".model: switching models is not available here")
		return nil
	}
	sw, ctx, spec := m.com.SwitchModel, m.com.Ctx, words[0]
	// Only the latest .model applies, and only before a turn starts.
	m.modelReq, m.modelTurn = m.com.NewID(), m.chat.Turn()
	return common.Deliver(common.OwnerRoot, m.modelReq, func() tea.Msg {
		model, err := sw(ctx, spec)
		return modelSwitchedMsg{spec: spec, model: model, err: err}
	})
}

func (m *Model) cmdClear([]string) tea.Cmd {
	if err := m.chat.Clear(); err != nil {
		m.chat.Error(".clear: " + err.Error())
	}
	return nil
}

// cmdHelp prints the command table.
func (m *Model) cmdHelp([]string) tea.Cmd {
	rows := [][]string{}
	for _, c := range chat.Commands() {
		desc := c.Desc
		if c.When != "" {
			desc += " (needs " + c.When + ")"
		}
		rows = append(rows, []string{strings.TrimSpace(c.Name + " " + c.Args), desc})
	}
	// Drawn at the chat's width, the descriptions wrapped: none is cut.
	m.chat.Rows(rows, "", "enter sends · alt+enter or ctrl+j: new line · ↑/↓ history · tab completes · ctrl+o $EDITOR",
		"esc cancels a turn · pgup/pgdn scroll · shift+tab selects tool blocks (space expands, enter opens) · ctrl+t catalog · ctrl+l server log")
	return nil
}

func (m *Model) cmdQuit([]string) tea.Cmd { return m.quit() }

// switchCmd switches a server, or some of its tools, off or on: in the
// runtime and in the entry's config file (mcp.Runtime.Switch); the chat
// says where it was written.
func (m *Model) switchCmd(name string, tools []string, off bool) tea.Cmd {
	rt := m.com.RT
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		file, err := rt.Switch(name, tools, off)
		return switchedMsg(name, tools, off, file, err)
	})
}

// switchedMsg says what a switch did and where it was written.
func switchedMsg(name string, tools []string, off bool, file string, err error) commandDoneMsg {
	what, state, undo := name, "off", "enable"
	if len(tools) > 0 {
		what = "tools " + strings.Join(tools, ", ") + " of " + name
	}
	if !off {
		state, undo = "on", "disable"
	}
	again := ".mcp " + undo + " " + strings.Join(append([]string{name}, tools...), " ")
	if err != nil {
		return commandDoneMsg{err: render.Sanitize(fmt.Sprintf(".mcp: switching %s %s: %v", what, state, err))}
	}
	if file == "" {
		return commandDoneMsg{notice: render.Sanitize(fmt.Sprintf("%s switched %s for this session only: %s comes from no config file (%s undoes it)", what, state, name, again))}
	}
	return commandDoneMsg{notice: render.Sanitize(fmt.Sprintf("%s switched %s, written to %s (%s undoes it)", what, state, file, again))}
}
