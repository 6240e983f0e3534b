package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// ProjectTrust lets the TUI ask, once per run, whether the project's config
// files may be used: until the person says so, their servers do not start
// and their settings do not apply.
type ProjectTrust struct {
	// Files are the untrusted project files (mcp.Config.Untrusted).
	Files []mcp.ConfigFile
	// Allow lets f be used: it records the approval when remember is set
	// (so the next start does not ask until the file changes), then starts
	// its servers, and returns their names. It does I/O: the TUI calls it
	// from a command.
	Allow func(f mcp.ConfigFile, remember bool) (started []string, err error)
}

// actionTrustProject answers the trust dialog on top.
type actionTrustProject struct {
	file mcp.ConfigFile
	// use: the person allowed it; remember: for good (t), not once (o).
	use, remember bool
}

func (actionTrustProject) isAction() {}

// trustDialog shows what a project config file would run and set, and asks
// whether to use it. It opens as howl starts, so it ignores keys for
// PermissionGrace: a key typed before it was seen never trusts anything.
type trustDialog struct {
	dialogBase
	com    *common.Common
	file   mcp.ConfigFile
	opened time.Time
	scroll dialogScroll
}

func (d *trustDialog) ID() string { return "trust:" + d.file.Path }

// HandleKey answers on t/o/n (esc: not now) and scrolls the list.
func (d *trustDialog) HandleKey(km tea.KeyMsg) Action {
	if d.com.Now().Sub(d.opened) < common.PermissionGrace {
		return actionNone{}
	}
	switch {
	case key.Matches(km, d.com.Keys.Cancel, d.com.Keys.Trust.No):
		return actionTrustProject{file: d.file}
	case key.Matches(km, d.com.Keys.Trust.Trust):
		return actionTrustProject{file: d.file, use: true, remember: true}
	case key.Matches(km, d.com.Keys.Trust.Once):
		return actionTrustProject{file: d.file, use: true}
	default:
		d.scroll.HandleKey(km, d.com.Keys)
	}
	return actionNone{}
}

// Render draws the file, why it is asked about, everything it would run
// and set (as written: ${VAR}s are not filled in), and the answers.
func (d *trustDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 100)
	inner := w - 2
	wrap := func(s string, indent int) []string {
		var out []string
		for _, l := range common.WrapText(render.SanitizeLine(s), max(inner-indent-1, 10)) {
			out = append(out, " "+strings.Repeat(" ", indent)+l)
		}
		return out
	}
	head := []string{""}
	head = append(head, wrap("This project has its own MCP config, written by whoever wrote the project:", 0)...)
	head = append(head, " "+st.Strong.Render(common.Truncate(render.SanitizeLine(d.com.DisplayPath(d.file.Path)), inner-2)))
	head = append(head, wrap(fmt.Sprintf("(%s). Nothing from it runs until you say so. If you trust it, it will:", d.file.Why), 0)...)
	var body []string
	for _, l := range d.file.Summary() {
		body = append(body, wrap("• "+l, 1)...)
	}
	var tail []string
	if len(d.file.Keys) > 0 {
		tail = append(tail, wrap("Its settings apply from howl's next start; its servers start now.", 0)...)
	}
	tail = append(tail, "")
	opts := []string{"t trust it (asked again if the file changes)", "o this run only", "n/esc not now"}
	for _, l := range common.WrapText(strings.Join(opts, " · "), max(inner-2, 10)) {
		tail = append(tail, " "+st.Dialog.Hint.Render(l))
	}
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(tail))
	content := append(append(append([]string(nil), head...), shown...), tail...)
	return frameDialog(d.com, "Trust this project's servers?", content, w, maxH, -1)
}

// projectTrustedMsg reports the answer's effect: the servers now starting.
type projectTrustedMsg struct {
	file     mcp.ConfigFile
	remember bool
	started  []string
	err      error
}

// openTrustDialogs asks about each untrusted project file, first file on top.
func (m *Model) openTrustDialogs(t *ProjectTrust) {
	if t == nil || t.Allow == nil {
		return
	}
	for i := len(t.Files) - 1; i >= 0; i-- {
		m.dialogs.Push(&trustDialog{com: m.com, file: t.Files[i], opened: m.com.Now()})
	}
}

// answerTrust closes the dialog and, when the person allowed the file,
// records it and starts its servers in a command.
func (m *Model) answerTrust(a actionTrustProject) tea.Cmd {
	if d, ok := m.dialogs.Top().(*trustDialog); ok && d.file.Path == a.file.Path {
		m.dialogs.Pop()
	}
	path := render.SanitizeLine(m.com.DisplayPath(a.file.Path))
	if !a.use {
		return common.ReportInfo(fmt.Sprintf("%s is not used: its servers stay off (howl trust %s, or --trust-project, to use it)", path, path))
	}
	allow, f, remember := m.trust.Allow, a.file, a.remember
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		started, err := allow(f, remember)
		return projectTrustedMsg{file: f, remember: remember, started: started, err: err}
	})
}

// handleProjectTrusted says what trusting the file did.
func (m *Model) handleProjectTrusted(msg projectTrustedMsg) tea.Cmd {
	path := render.SanitizeLine(m.com.DisplayPath(msg.file.Path))
	if msg.err != nil {
		return common.ReportError(fmt.Errorf("could not trust %s: %s", path, render.SanitizeLine(msg.err.Error())))
	}
	how := "for this run"
	if msg.remember {
		how = "until it changes"
	}
	started := "it declares no servers"
	if len(msg.started) > 0 {
		started = "starting " + render.SanitizeLine(strings.Join(msg.started, ", "))
	}
	return common.ReportInfo(fmt.Sprintf("trusted %s %s: %s", path, how, started))
}
