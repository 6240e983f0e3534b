package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
	"github.com/howl-mcp/howl/tui/viewer"
)

// What the catalog's enter and the dialogs' actions do.

// openSelected runs the selected item's action: read a resource, or open
// the form of a template, a tool or a prompt with arguments.
func (m *Model) openSelected() tea.Cmd {
	e := m.catalog.Selected()
	if e == nil {
		return nil
	}
	it := e.Item()
	switch it.Kind {
	case mcp.KindResource:
		return m.openViewer(viewer.Read(it.Server, it.URI, nil), "reading")
	case mcp.KindTemplate:
		return m.pushForm(dialog.NewTemplateForm(m.com, it))
	case mcp.KindTool:
		return m.pushForm(dialog.NewToolForm(m.com, it))
	case mcp.KindPrompt:
		if len(it.Arguments) == 0 {
			return m.openViewer(viewer.Prompt(it.Server, it.Name, nil), "getting the prompt")
		}
		return m.pushForm(dialog.NewPromptForm(m.com, it))
	}
	return nil
}

// pushForm opens a form and asks the server at once to complete its first
// field, so the choices show before anything is typed.
func (m *Model) pushForm(d *dialog.FormDialog) tea.Cmd {
	m.dialogs.Push(d)
	return d.CompleteFocused()
}

// openViewer starts a fresh load in the viewer and focuses it.
func (m *Model) openViewer(req viewer.Request, what string) tea.Cmd {
	cmd := m.viewer.Request(req, what)
	m.setFocus(focusRight)
	return cmd
}

// refreshSelected lists the selected server's catalog again, from the server.
func (m *Model) refreshSelected() tea.Cmd {
	sv := m.catalog.SelectedServer()
	if sv == nil {
		return nil
	}
	if sv.Status().State != mcp.StateReady {
		return common.ReportWarn(fmt.Sprintf("%s is %s: S opens the servers list, where enter reconnects it", render.SanitizeLine(sv.Name()), sv.Status().State))
	}
	return tea.Batch(m.catalog.Reload(sv.Name(), true), common.ReportInfo("refreshing "+render.SanitizeLine(sv.Name())+"'s catalog"))
}

// applyAction carries out what dialog d asked for; closing closes d,
// wherever it is in the stack.
func (m *Model) applyAction(d dialog.Dialog, a dialog.Action) tea.Cmd {
	switch a := a.(type) {
	case dialog.Close:
		m.dialogs.Remove(d)
	case dialog.Cmd:
		return a.Cmd
	case dialog.CallTool:
		m.dialogs.Remove(d)
		req := viewer.Call(a.Item.Server, a.Item.Name, a.Args)
		if a.Item.AppURI != "" {
			req = req.ForApp(a.Item.AppURI) // its app opens in the browser with the result
		}
		cmd := m.openViewer(req, "calling "+render.SanitizeLine(a.Item.Name))
		if a.Unchecked != "" {
			cmd = tea.Batch(cmd, common.ReportWarn("arguments sent unchecked: "+render.SanitizeLine(a.Unchecked)))
		}
		return cmd
	case dialog.ReadTemplate:
		m.dialogs.Remove(d)
		return m.openViewer(viewer.Read(a.Item.Server, a.Item.URI, a.Values), "reading")
	case dialog.GetPrompt:
		m.dialogs.Remove(d)
		return m.openViewer(viewer.Prompt(a.Item.Server, a.Item.Name, a.Values), "getting the prompt")
	case dialog.PreviewPrompt:
		m.dialogs.Remove(d)
		return m.getPromptCmd(a.Item, a.Values, true)
	case dialog.SendChat:
		m.dialogs.Remove(d)
		m.setChatMode(true)
		return m.chat.Submit(a.Text)
	case dialog.OpenResource:
		m.dialogs.Remove(d)
		return m.openViewer(viewer.Read(a.Server, a.URI, nil), "reading")
	case dialog.Reconnect:
		m.dialogs.Remove(d)
		return reconnectCmd(m.com.RT, a.Server)
	case dialog.SwitchServer:
		m.dialogs.Remove(d)
		return m.switchServer(a.Server)
	case dialog.OpenAttachment:
		m.dialogs.Remove(d)
		if atts := m.viewer.Attachments(); a.Index < len(atts) {
			return m.viewer.OpenAttachment(atts[a.Index])
		}
	case dialog.TrustProject:
		return m.answerTrust(d, a)
	case dialog.AnswerPermission:
		m.dialogs.Remove(d)
		if a.Req.App != "" {
			m.answerAppPermission(a.Req)
		}
		return m.chat.AnswerPermission(a.Req, a.Answer)
	case dialog.AnswerAppMessage:
		m.dialogs.Remove(d)
		return m.answerAppMessage(a)
	case dialog.SendMentions:
		m.dialogs.Remove(d)
		return m.chat.SubmitWith(a.Msg.Text, a.Msg.Atts)
	case dialog.InsertMention:
		m.dialogs.Remove(d)
		m.input.SetValue(a.Text)
	case dialog.RestoreDraft:
		m.dialogs.Remove(d)
		m.input.SetValue(a.Text)
	case dialog.OpenSession:
		return m.applySessionAction(d, a)
	case dialog.SessionDeleted:
		m.handleSessionDeleted(a.ID)
		return a.Cmd
	case dialog.AnswerQuestion:
		return m.answerQuestion(a)
	case dialog.DeclineAll:
		return m.declineAll(a.Server)
	case dialog.OpenURL:
		return common.Deliver(common.OwnerRoot, m.com.NewID(), openURLCmd(a.Q.Ctx, a.Q, a.URL))
	case dialog.ApproveSampling:
		return m.approveSampling(a)
	}
	return nil
}

// reconnectCmd restarts a server; its new states arrive as events.
func reconnectCmd(rt common.Runtime, name string) tea.Cmd {
	return func() tea.Msg {
		if err := rt.Reconnect(name); err != nil {
			return common.InfoMsg{Type: common.InfoError, Msg: fmt.Sprintf("reconnecting %s: %v", name, err), TTL: common.DefaultInfoTTL}
		}
		return common.InfoMsg{Type: common.InfoPlain, Msg: "reconnecting " + name, TTL: common.DefaultInfoTTL}
	}
}
