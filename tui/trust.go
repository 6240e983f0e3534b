package tui

import (
	"cmp"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
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
		m.dialogs.Push(dialog.NewTrust(m.com, t.Files[i]))
	}
}

// answerTrust closes the dialog and, when the person allowed the file,
// records it and starts its servers in a command.
func (m *Model) answerTrust(d dialog.Dialog, a dialog.TrustProject) tea.Cmd {
	m.dialogs.Remove(d)
	path := render.SanitizeLine(m.com.DisplayPath(a.File.Path))
	if !a.Use {
		return common.ReportInfo(fmt.Sprintf("%s is not used: its servers stay off (howl trust %s, or --trust-project, to use it)", path, path))
	}
	allow, f, remember := m.trust.Allow, a.File, a.Remember
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		started, err := allow(f, remember)
		return projectTrustedMsg{file: f, remember: remember, started: started, err: err}
	})
}

// handleProjectTrusted says what trusting the file did.
func (m *Model) handleProjectTrusted(msg projectTrustedMsg) tea.Cmd {
	path := render.SanitizeLine(m.com.DisplayPath(cmp.Or(msg.file.Key, msg.file.Path)))
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
