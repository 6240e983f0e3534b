package tui

import (
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// reloadErrorTTL is how long a config that did not reload stays in the
// status bar: long enough to read a file, line and column.
const reloadErrorTTL = 20 * time.Second

// cmdReload reads the config files again (`.mcp reload`) in a command;
// the chat says what changed, or why nothing did.
func (m *Model) cmdReload() tea.Cmd {
	reload := m.reload
	if reload == nil {
		m.chat.Error(".mcp reload: these servers come from the command line (--url, --stdio), not from a config file: there is nothing to reload")
		return nil
	}
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		res, err := reload()
		if err != nil && res.Err == "" { // not reported as an event
			return commandDoneMsg{err: render.Sanitize(".mcp reload: " + err.Error())}
		}
		if !res.Changed() { // a change (or an error) is said by handleReload
			return commandDoneMsg{notice: render.Sanitize(res.String())}
		}
		return nil
	})
}

// handleReload follows a reload of the config (`.mcp reload` or the
// watch of the files): the catalog and the chat get the servers it left,
// a tool switched in the file shows as switched, a project file that is
// new or changed is asked about, and the status bar and the chat say what
// changed (the chat's line stays; it is not part of the conversation),
// and an MCP App whose server was removed, stopped or restarted closes,
// saying so.
// The model's declarations come from the runtime at its next request.
func (m *Model) handleReload(res mcp.ReloadResult) tea.Cmd {
	if res.Err != "" {
		m.chat.Error(render.Sanitize(res.String()))
		return m.status.Set(common.InfoMsg{Type: common.InfoError, Msg: render.SanitizeLine("config not reloaded: " + res.Err), TTL: reloadErrorTTL})
	}
	cmds := []tea.Cmd{m.catalog.SetServers(res.Servers)}
	m.chat.SetServers(res.Servers)
	for _, s := range m.com.Subs.List() {
		if slices.Contains(res.Removed, s.Server) { // the runtime forgot it with its server
			m.com.Subs.Remove(s.Server, s.URI)
		}
	}
	for _, n := range res.Tools {
		cmds = append(cmds, m.catalog.Reload(n, false)) // the runtime's cached listing: no request
	}
	if m.trust != nil && len(res.Untrusted) > 0 {
		m.openTrustDialogs(&ProjectTrust{Files: res.Untrusted, Allow: m.trust.Allow})
		m.updateKeys()
	}
	closeApps, closed := m.closeAppsOfReload(res)
	cmds = append(cmds, closeApps)
	if res.Changed() {
		// An app closing is the news a person may not expect: first, so
		// a narrow status bar does not cut it off.
		said := strings.Join(append(closed, res.String()), " · ")
		m.chat.Notice(render.Sanitize(said))
		cmds = append(cmds, m.status.Set(common.InfoMsg{Type: common.InfoPlain, Msg: render.SanitizeLine(said), TTL: 2 * common.DefaultInfoTTL}))
	}
	return tea.Batch(cmds...)
}
