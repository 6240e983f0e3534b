package dialog

import (
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// NewStack is an empty dialog stack; pushed dialogs get their owners from
// com's one id source.
func NewStack(com *common.Common) Stack { return Stack{com: com} }

// Items are the open dialogs, the top last.
func (s *Stack) Items() []Dialog { return s.items }

// RemoveIf closes every dialog that drop picks; it reports whether any did.
func (s *Stack) RemoveIf(drop func(Dialog) bool) bool {
	n, was := len(s.items), s.Top()
	s.items = slices.DeleteFunc(s.items, drop)
	s.revealed(was)
	return len(s.items) != n
}

// NewHelp shows the bindings of groups (common.KeyMap.FullHelp).
func NewHelp(com *common.Common, groups []common.HelpGroup) *HelpDialog {
	return &HelpDialog{com: com, groups: groups}
}

// NewServers lists the servers and reconnects the chosen one.
func NewServers(com *common.Common, servers []*catalog.Server) *ServersDialog {
	return &ServersDialog{com: com, servers: servers}
}

// Open asks the runtime which roots each server is offered (call it once
// the dialog is pushed: the answer is addressed to its owner).
func (d *ServersDialog) Open() tea.Cmd {
	rt := d.com.RT
	return common.Deliver(d.Owner(), d.com.NewID(), func() tea.Msg {
		roots := serverRootsMsg{}
		for _, st := range rt.Status() {
			roots[st.Name] = st.Roots
		}
		return roots
	})
}

// NewSessions lists the stored sessions, current marked; Open lists them.
func NewSessions(com *common.Common, current *chat.SessionRec) *SessionsDialog {
	return &SessionsDialog{com: com, current: current}
}

// Open starts listing the sessions (call it once the dialog is pushed:
// the answer is addressed to its owner).
func (d *SessionsDialog) Open() tea.Cmd { return d.reload() }

// NewMentionFailed says which of a message's mentions could not be read.
func NewMentionFailed(com *common.Common, msg chat.MentionsRead) *MentionFailedDialog {
	return &MentionFailedDialog{com: com, msg: msg, grace: grace{com.Now()}}
}

// NewPromptPreview shows a prompt's flattened result before it is sent.
func NewPromptPreview(com *common.Common, item mcp.CatalogItem, res *mcp.PromptResult) *PromptPreviewDialog {
	return &PromptPreviewDialog{com: com, item: item, res: res}
}

// NewPermission asks whether one of the model's calls may run;
// canPersist: there is a config file an "always" answer is saved to.
func NewPermission(com *common.Common, req *chat.PermissionRequest, canPersist bool) *PermissionDialog {
	return &PermissionDialog{com: com, req: req, grace: grace{com.Now()}, canPersist: canPersist}
}

// Req is the call the dialog asks about.
func (d *PermissionDialog) Req() *chat.PermissionRequest { return d.req }

// NewTrust asks whether a project's config file may be used.
func NewTrust(com *common.Common, file mcp.ConfigFile) *TrustDialog {
	return &TrustDialog{com: com, file: file, grace: grace{com.Now()}}
}

// NewQuestion is the dialog of a server's question: a form or a URL for
// an elicitation, the approval of a sampling request (model nil: noModel
// says why nothing can answer). asked is how many questions its server
// has asked.
func NewQuestion(com *common.Common, q *Question, asked int, model llm.Model, noModel error) Dialog {
	base := QuestionBase{com: com, q: q, grace: grace{com.Now()}, asked: asked}
	if q.Elicit != nil {
		return NewElicitDialog(base)
	}
	return &SamplingDialog{QuestionBase: base, model: model, noModel: noModel, scroll: dialogScroll{overlap: 1}}
}

// Form is the elicitation's form (nil for a URL request).
func (d *ElicitDialog) Form() *Form { return d.form }

// URLFailed shows why the browser did not open the URL; the person can
// then decline.
func (d *ElicitDialog) URLFailed(err error) { d.err, d.opening = err.Error(), false }

// Form is the dialog's form.
func (d *FormDialog) Form() *Form { return d.form }

// ForMention makes a template's form insert its expanded URI as an
// @-mention after prefix, instead of reading it.
func (d *FormDialog) ForMention(prefix string) {
	d.mention, d.mentionPrefix = true, prefix
	d.form.Title = "mention " + render.SanitizeLine(d.item.Name)
}

var _ = time.Now
