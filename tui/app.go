// Package tui is howl's full-screen terminal interface: one root model that
// routes every message to plain child structs (the catalog browser, the
// detail pane, the viewer, the chat with its input line and completion
// popup, the status bar) and to a stack of dialogs.
//
// The chat is a tab beside the catalog's four (c or ctrl+t): a transcript
// of items rendered once per width, the model's turn streamed from an
// llm.Agent through a re-armed command that coalesces tokens per frame,
// and a command line whose `.` commands come from one table.
//
// Every MCP call runs in a tea.Cmd through the Runtime interface, the same
// functions the model's meta-functions use; results carry their owner and a
// request id, and stale ones are dropped. Runtime events enter through one
// Relay goroutine, and so do servers' questions: elicitations (a form built
// from the requested schema, or a URL to open) and sampling requests (sent
// to the chat model only when the person approves), each in its own dialog. Each finished chat turn is written to the SessionStore
// in a command, in order; ctrl+r (or .sessions) lists, opens, searches,
// renames and deletes stored conversations. Update does no I/O.
package tui

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
	"github.com/howl-mcp/howl/tui/logs"
	"github.com/howl-mcp/howl/tui/viewer"
)

// Options configure the TUI.
type Options struct {
	// Runtime is the MCP side (an *mcp.Runtime in production).
	Runtime common.Runtime
	// Servers are the enabled servers' names, in display order.
	Servers []string
	// Theme is the built theme (theme.New(theme.Detect(...)) in production).
	Theme *theme.Theme
	// Keys is the keymap (DefaultKeyMap when nil).
	Keys *common.KeyMap
	// Images is how images are drawn (DetectImageMode in production).
	Images common.ImageMode
	// Clipboard receives copies (none when nil: y then says so).
	Clipboard common.Clipboard
	// DisplayPath shortens paths for display (as they are when nil).
	DisplayPath func(string) string
	// Context bounds every request (Background when nil).
	Context context.Context
	// Tick replaces timers (tests pass one that never fires).
	Tick func(d time.Duration, msg tea.Msg) tea.Cmd
	// Model is the chat's model; nil leaves the chat explaining how to
	// configure one (ModelError's Fix), and everything else works.
	Model      llm.Model
	ModelError error
	// ModelRuntime is what the chat's model calls from its own goroutine
	// (Runtime when nil). Tests that guard Runtime against use from Update
	// pass the unguarded one here: the model's calls overlap Update.
	ModelRuntime common.Runtime
	// MaxSteps bounds the model requests of one chat turn (0: the default).
	MaxSteps int
	// Decide rules on each of the model's tool calls before it runs (nil:
	// every call runs). Permissions, when set, replaces it.
	Decide llm.DecideFunc
	// Permissions are the config's rules for the model's calls; the chat
	// asks the person about every call they do not allow.
	Permissions *llm.Permissions
	// ConfigPath is the config file an "always allow" answer is saved to
	// ("" in demo mode: such answers last the session).
	ConfigPath string
	// Now is the clock (time.Now when nil; tests step it past the
	// permission dialog's grace period).
	Now func() time.Time
	// SwitchModel resolves `.model provider/name` (unavailable when nil).
	SwitchModel func(ctx context.Context, spec string) (llm.Model, error)
	// CompletionTimeout bounds each completion request (mcp.CompletionTimeout when 0).
	CompletionTimeout time.Duration
	// Editor is what ctrl+o runs on the draft ($EDITOR; "" disables it).
	Editor string
	// StartInChat opens on the chat instead of the catalog.
	StartInChat bool
	// Log receives debug output; DumpMessages also logs every message.
	Log          *log.Logger
	DumpMessages bool
	// Trace starts with request tracing shown in the log pane (howl
	// --trace); the runtime's tracing must be on as well.
	Trace bool
	// Store keeps the chat's conversations: each finished turn is written
	// in a command. Nil means nothing is saved; StoreError (the reason the
	// store could not be opened) is then said once in the chat.
	Store      common.SessionStore
	StoreError error
	// Resume opens a stored conversation in the chat (howl --continue).
	Resume *Resume
	// Location is the time zone dates are shown in (time.Local when nil).
	Location *time.Location
	// Trust, when it has files, asks at start whether the project's
	// config files may be used.
	Trust *ProjectTrust
}

// Model is the root model.
type Model struct {
	com    *common.Common
	cancel context.CancelFunc
	dump   bool

	width, height int
	layout        Layout
	focus         focusPane

	catalog *catalog.Pane
	detail  *catalog.Detail
	viewer  *viewer.Pane
	status  *statusBar
	dialogs dialog.Stack
	// mentionReq is the read of a message's @-mentions in flight.
	mentionReq common.RequestID
	// chatReqs are the chat's requests outside a turn (prompt gets,
	// mention reads): ctrl+c cancels them.
	chatReqs chat.Requests
	help     help.Model

	// The chat: its pane, the input line and the completion popup.
	// chatMode shows it instead of the catalog; returnToChat brings it
	// back when a viewer opened from the chat closes.
	chat         *chat.Pane
	input        *chat.Input
	comp         chat.Completer
	chatMode     bool
	returnToChat bool

	// asks are servers' questions waiting for the open dialog to close
	// (at most MaxQueuedQuestions); asked counts each server's questions
	// since the person last accepted one; declining are the servers whose
	// questions are declined unasked, with how many so far.
	asks      []*dialog.Question
	asked     map[string]int
	declining map[string]int

	// loadSeq is the session load waited for (0: none).
	loadSeq common.RequestID
	// modelReq is the `.model` switch waited for (0: none); modelTurn
	// the chat's turn when it was asked (a turn since makes it stale).
	modelReq, modelTurn common.RequestID

	// logs is the server log pane (ctrl+l); logins are the servers whose
	// `.mcp auth` result the chat still waits for.
	logs   *logs.Pane
	logins map[string]bool
	// rootsMu makes each .roots change (read, change, set: in a command)
	// one step, so two typed quickly do not lose one.
	rootsMu sync.Mutex

	frame    int
	spinning bool
	quitting bool
	// viewerWasOpen notices the viewer closing, to give the list focus back.
	viewerWasOpen bool
	// trust lets the project's config files be used (nil: none to ask about).
	trust *ProjectTrust
}

// New builds the root model. It does nothing outside itself: the first
// server states arrive from Init's command and the relay.
func New(o Options) *Model {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	th := o.Theme
	if th == nil {
		th = theme.New(theme.Options{Dark: true})
	}
	keys := o.Keys
	if keys == nil {
		keys = common.DefaultKeyMap()
	}
	com := &common.Common{Ctx: ctx, RT: o.Runtime, Theme: th, Styles: th.Styles, Keys: keys, Images: o.Images,
		Clipboard: o.Clipboard, DisplayPath: o.DisplayPath, Tick: o.Tick, Clock: o.Now, Log: o.Log,
		ModelRT: o.ModelRuntime, Hidden: map[string]bool{}, CompletionTimeout: o.CompletionTimeout, SwitchModel: o.SwitchModel, Editor: o.Editor,
		Store: o.Store, StoreErr: o.StoreError, Location: o.Location, Writes: &common.WriteGate{}, Progress: &common.ProgressBoard{}}
	if com.DisplayPath == nil {
		com.DisplayPath = func(s string) string { return s }
	}
	if o.Permissions != nil {
		com.Approvals = o.Permissions.Approvals
	}
	if com.Tick == nil {
		com.Tick = common.DefaultTick
	}
	if com.Log == nil {
		com.Log = common.DiscardLogger()
	}
	if com.ModelRT == nil {
		com.ModelRT = o.Runtime
	}
	m := &Model{com: com, cancel: cancel, dump: o.DumpMessages, dialogs: dialog.NewStack(com)}
	m.catalog = catalog.New(com, o.Runtime, o.Servers)
	m.detail = catalog.NewDetail(com)
	m.viewer = viewer.New(com, o.Runtime)
	m.status = &statusBar{com: com}
	m.logs = logs.New(com, o.Runtime, o.Servers)
	m.logs.SetTracing(o.Trace)
	m.chatReqs = chat.NewRequests(com)
	m.logins = map[string]bool{}
	m.asked, m.declining = map[string]int{}, map[string]int{}
	m.help = help.New()
	m.help.Styles = th.Styles.Help
	m.chat = chat.New(com, o.Model, o.ModelError, o.MaxSteps)
	m.chat.SetRules(o.Servers, o.Decide, o.Permissions, o.ConfigPath)
	if com.Store == nil && com.StoreErr != nil {
		m.chat.Notice("Conversations are not being saved in this run: " + com.StoreErr.Error() + ". The chat works; nothing of it is kept.")
	}
	m.input = chat.NewInput(com)
	m.comp = chat.NewCompleter(com)
	m.chatMode = o.StartInChat
	if o.Resume != nil && o.Resume.Conv != nil {
		m.chat.LoadSession(o.Resume.Session, o.Resume.Conv)
		m.chatMode = true
	}
	m.catalog.Focus()
	m.trust = o.Trust
	m.openTrustDialogs(o.Trust)
	m.updateKeys()
	return m
}

// statusSnapshotMsg carries every server's state, asked for once at start.
type statusSnapshotMsg struct{ statuses []mcp.Status }

// Init asks for the servers' states; events keep them current after that.
func (m *Model) Init() tea.Cmd {
	rt := m.com.RT
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg { return statusSnapshotMsg{rt.Status()} })
}

// Close cancels everything in flight and closes open files. Call it after
// the program has ended.
func (m *Model) Close() {
	m.cancel()
	m.com.Writes.Close() // a finished turn being written is written
	m.viewer.CloseFiles()
}

// Update routes one message. Each case names the handler that owns it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.dump {
		m.com.Log.Printf("msg %T %s", msg, clipMsg(msg))
	}
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		cmd = m.handleKey(msg)
	case tea.MouseMsg:
		cmd = m.handleMouse(msg)
	case EventsMsg:
		cmd = m.handleEvents(msg)
	case common.Result:
		cmd = m.deliver(msg)
	case common.InfoMsg:
		cmd = m.status.Set(msg)
	case clearInfoMsg:
		m.status.Clear(msg.id)
	case spinnerTickMsg:
		m.frame++
		m.spinning = false
		m.chat.Tick(m.frame)
	case askMsg:
		cmd = m.handleAsk(msg)
	case askGoneMsg:
		cmd = m.handleAskGone(msg)
	}
	if m.quitting {
		return m, cmd
	}
	return m, tea.Batch(cmd, m.afterUpdate())
}

// deliver hands an asynchronous result to its owner: a pane, the root's
// own handlers, or a dialog wherever it is in the stack. A result whose
// owner is gone (a closed dialog) is dropped.
func (m *Model) deliver(r common.Result) tea.Cmd {
	switch r.Owner {
	case common.OwnerCatalog:
		return m.catalog.HandleResult(r)
	case common.OwnerViewer:
		return m.viewer.HandleResult(r)
	case common.OwnerChat:
		return m.handleChatResult(r)
	case common.OwnerLogs:
		return m.logs.HandleResult(r)
	case common.OwnerRoot:
		return m.handleResult(r)
	}
	if d := m.dialogs.ByOwner(r.Owner); d != nil {
		return m.applyAction(d, d.HandleResult(r))
	}
	return nil
}

// handleChatResult takes the answers to the chat's requests: the pane's
// own (a turn's events and saves), and the input's and completion's,
// which the root applies (they touch the input line).
func (m *Model) handleChatResult(r common.Result) tea.Cmd {
	switch msg := r.Msg.(type) {
	case chat.Completions:
		m.comp.HandleResult(r.ID, msg, m.input.Value())
		return nil
	case chat.MentionsRead:
		return m.handleMentionsRead(r.ID, msg)
	case chat.EditorReady:
		return m.handleEditorReady(msg)
	case chat.EditorDone:
		m.handleEditorDone(msg)
		return nil
	}
	cmd := m.chat.HandleResult(r)
	if ask := m.chat.TakeAsk(); ask != nil {
		m.openPermission(ask)
	}
	return cmd
}

// handleResult takes the answers to the root's own requests: the command
// handlers', the servers' states, and the questions' side effects.
func (m *Model) handleResult(r common.Result) tea.Cmd {
	switch msg := r.Msg.(type) {
	case statusSnapshotMsg:
		return m.handleSnapshot(msg)
	case projectTrustedMsg:
		return m.handleProjectTrusted(msg)
	case promptFoundMsg:
		return m.handlePromptFound(msg)
	case promptResultMsg:
		return m.handlePromptResult(r.ID, msg)
	case tableMsg:
		m.chat.Table(msg.lines)
	case modelSwitchedMsg:
		return m.handleModelSwitched(r.ID, msg)
	case sessionLoadedMsg:
		return m.handleSessionLoaded(r.ID, msg)
	case exportedMsg:
		m.handleExported(msg)
	case commandDoneMsg:
		m.handleCommandDone(msg)
	case urlOpenedMsg:
		return m.handleURLOpened(msg)
	case sampledMsg:
		return m.handleSampled(msg)
	}
	return nil
}

// afterUpdate brings derived state up to date after any message: the
// layout (it depends on focus and the viewer), the detail pane's item,
// the bindings' enabled states and the spinner.
func (m *Model) afterUpdate() tea.Cmd {
	m.nextQuestion()
	if m.viewerWasOpen && !m.viewer.Open() {
		m.setFocus(focusList)
		if m.returnToChat {
			m.returnToChat = false
			m.chatMode = true
		}
	}
	m.viewerWasOpen = m.viewer.Open()
	cmd := m.relayout()
	m.detail.SetEntry(m.catalog.Selected())
	m.status.chat = m.chatStatus()
	m.updateKeys()
	if !m.spinning && (m.catalog.Busy() || m.viewer.Busy() || m.chat.Running() || m.com.Progress.Len() > 0) {
		m.spinning = true
		cmd = tea.Batch(cmd, m.com.Tick(common.SpinnerInterval, spinnerTickMsg{}))
	}
	return cmd
}

// relayout computes the layout and pushes sizes to the panes.
func (m *Model) relayout() tea.Cmd {
	if m.focus == focusRight && !m.viewer.Open() && m.catalog.Selected() == nil {
		m.setFocus(focusList)
	}
	m.layout = ComputeLayout(m.width, m.height, LayoutState{ViewerOpen: m.viewer.Open(), Focus: m.focus, Chat: m.chatMode, InputH: m.input.Height(), Logs: m.logs.IsOpen()})
	l := m.layout
	m.logs.SetSize(l.Logs.W, l.Logs.H)
	if m.chatMode {
		m.chat.SetSize(l.Chat.W, l.Chat.H)
		m.input.SetWidth(l.Input.W)
	}
	m.catalog.SetSize(l.List.W, l.List.H)
	m.detail.SetSize(l.Right.W, l.Right.H)
	m.help.Width = l.Help.W - 1 // after the one-cell margin
	return m.viewer.SetSize(l.Right.W, l.Right.H)
}

func (m *Model) setFocus(f focusPane) {
	m.focus = f
	m.catalog.Blur()
	m.detail.Blur()
	m.viewer.Blur()
	switch {
	case f == focusList:
		m.catalog.Focus()
	case m.viewer.Open():
		m.viewer.Focus()
	default:
		m.detail.Focus()
	}
}

// handleKey routes a key in a fixed order: quit, the top dialog, a focused
// text input (exclusively), the focused pane, then the global keys.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	if key.Matches(msg, k.ForceQuit) {
		if cmd, ok := m.cancelRunning(); ok {
			return cmd
		}
		return m.quit()
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than one read arrive together ("jj"). Each is a
		// key of its own, in a text input too: a word typed fast arrives as
		// one message whose text can be a key's name ("delete", "up", "end"),
		// which bindings would take for that key.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if d := m.dialogs.Top(); d != nil {
		return m.applyAction(d, d.HandleKey(msg))
	}
	if m.layout.TooSmall {
		if key.Matches(msg, k.Quit) {
			return m.quit()
		}
		return nil
	}
	if cmd, ok := m.handleLogsKey(msg); ok {
		return cmd
	}
	if m.chatMode {
		return m.handleChatKey(msg)
	}
	if key.Matches(msg, k.ToggleChat, k.Chat) && !m.catalog.TextInputFocused() && !m.viewer.TextInputFocused() {
		m.setChatMode(true)
		return nil
	}
	if m.focus == focusList && m.catalog.TextInputFocused() {
		cmd, _ := m.catalog.HandleKey(msg)
		return cmd
	}
	if m.focus == focusRight && m.viewer.Open() && m.viewer.TextInputFocused() {
		cmd, _ := m.viewer.HandleKey(msg)
		return cmd
	}
	if cmd, ok := m.handlePaneKey(msg); ok {
		return cmd
	}
	return m.handleGlobalKey(msg)
}

// cancelRunning is ctrl+c while a call runs: it cancels the chat's turn
// (and with it the model's MCP calls) or the viewer's request, and the
// servers are told to stop. A second ctrl+c quits.
func (m *Model) cancelRunning() (tea.Cmd, bool) {
	switch {
	case m.chat.Running() && !m.chat.Cancelling():
		m.chat.Cancel()
		return common.ReportInfo("cancelling the turn: the servers are told to stop · ctrl+c again quits"), true
	case m.viewer.Loading():
		return m.viewer.CancelLoad(), true
	case m.chatReqs.Len() > 0:
		return m.chatReqs.CancelAll(), true
	}
	return nil, false
}

// handlePaneKey offers the key to the focused pane.
func (m *Model) handlePaneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.com.Keys
	switch {
	case m.focus == focusRight && m.viewer.Open():
		if atts := m.viewer.Attachments(); len(atts) > 1 && key.Matches(msg, k.OpenAttachment) {
			choices := make([]dialog.Choice, len(atts))
			for i, a := range atts {
				choices[i] = dialog.Choice{Label: a.Label(), Kind: a.Kind()}
			}
			m.dialogs.Push(dialog.NewPicker(m.com, choices))
			return nil, true
		}
		return m.viewer.HandleKey(msg)
	case m.focus == focusRight:
		if cmd, ok := m.detail.HandleKey(msg); ok {
			return cmd, true
		}
	default:
		if cmd, ok := m.catalog.HandleKey(msg); ok {
			return cmd, true
		}
	}
	switch {
	case key.Matches(msg, k.Open):
		return m.openSelected(), true
	case key.Matches(msg, k.Refresh):
		return m.refreshSelected(), true
	case key.Matches(msg, k.Mention) && m.focus == focusList:
		return m.mentionSelected(), true
	case key.Matches(msg, k.Filter):
		// From the detail pane: the filter belongs to the list.
		m.setFocus(focusList)
		cmd, _ := m.catalog.HandleKey(msg)
		return cmd, true
	}
	return nil, false
}

// handleGlobalKey handles the keys that work from any pane.
func (m *Model) handleGlobalKey(msg tea.KeyMsg) tea.Cmd {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.dialogs.Push(dialog.NewHelp(m.com, k.FullHelp()))
	case key.Matches(msg, k.Servers):
		m.dialogs.Push(dialog.NewServers(m.com, m.catalog.Servers()))
	case key.Matches(msg, k.Sessions):
		return m.openSessionsDialog()
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		m.cycleFocus()
	case key.Matches(msg, k.Tab1):
		m.catalog.SetTab(0)
	case key.Matches(msg, k.Tab2):
		m.catalog.SetTab(1)
	case key.Matches(msg, k.Tab3):
		m.catalog.SetTab(2)
	case key.Matches(msg, k.Tab4):
		m.catalog.SetTab(3)
	case key.Matches(msg, k.NextTab):
		m.catalog.SetTab(m.catalog.Tab() + 1)
	case key.Matches(msg, k.PrevTab):
		m.catalog.SetTab(m.catalog.Tab() - 1)
	case key.Matches(msg, k.Back) && m.viewer.Open():
		return m.viewer.Close()
	}
	return nil
}

// cycleFocus moves between the list and the right-hand pane.
func (m *Model) cycleFocus() {
	if m.focus == focusList && (m.viewer.Open() || m.catalog.Selected() != nil) {
		m.setFocus(focusRight)
		return
	}
	m.setFocus(focusList)
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cancel() // ends every request in flight
	return tea.Quit
}

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
		cmd := m.openViewer(viewer.Call(a.Item.Server, a.Item.Name, a.Args), "calling "+render.SanitizeLine(a.Item.Name))
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
	case dialog.Reconnect:
		m.dialogs.Remove(d)
		return reconnectCmd(m.com.RT, a.Server)
	case dialog.OpenAttachment:
		m.dialogs.Remove(d)
		if atts := m.viewer.Attachments(); a.Index < len(atts) {
			return m.viewer.OpenAttachment(atts[a.Index])
		}
	case dialog.TrustProject:
		return m.answerTrust(d, a)
	case dialog.AnswerPermission:
		m.dialogs.Remove(d)
		return m.chat.AnswerPermission(a.Req, a.Answer)
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

// handleSnapshot applies the initial server states.
func (m *Model) handleSnapshot(msg statusSnapshotMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, st := range msg.statuses {
		cmds = append(cmds, m.catalog.ApplyStatus(st))
	}
	return tea.Batch(cmds...)
}

// handleEvents applies runtime events from the relay.
func (m *Model) handleEvents(msg EventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, e := range msg.Events {
		m.logs.AddEvent(e)
		switch e.Kind {
		case mcp.EventState:
			cmds = append(cmds, m.catalog.ApplyStatus(e.Status))
			m.noteLogin(e.Status)
		case mcp.EventNotification:
			cmds = append(cmds, m.handleNotification(e))
		case mcp.EventProgress:
			m.handleProgress(e)
		case mcp.EventCatalogChanged:
			cmds = append(cmds, m.catalog.HandleCatalogChanged(e.Server, e.Change))
		case mcp.EventResourceUpdated:
			cmds = append(cmds, m.viewer.HandleResourceUpdated(e))
		}
	}
	if msg.Dropped > 0 {
		cmds = append(cmds, common.ReportWarn(fmt.Sprintf("%d server events were dropped: the servers sent more than howl could show", msg.Dropped)))
	}
	return tea.Batch(cmds...)
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

// handleNotification reacts to a server notification.
func (m *Model) handleNotification(e mcp.Event) tea.Cmd {
	name := render.SanitizeLine(e.Server)
	switch e.Method {
	case "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed":
		// The runtime lists again (debounced) and reports what changed.
		return common.ReportInfo(name + ": the catalog changed, listing again")
	case "notifications/resources/updated":
		return common.ReportInfo(fmt.Sprintf("%s: %v was updated", name, render.SanitizeLine(fmt.Sprint(e.Params["uri"]))))
	case "notifications/message":
		lvl, _ := e.Params["level"].(string)
		if lg, _ := e.Params["logger"].(string); lg == HowlLogger {
			return common.ReportInfo(render.SanitizeLine(fmt.Sprintf("%s: %v", name, e.Params["data"])))
		}
		switch lvl {
		case "warning", "error", "critical", "alert", "emergency":
			return common.ReportWarn(render.SanitizeLine(fmt.Sprintf("%s %s: %v", name, lvl, e.Params["data"])))
		}
	}
	return nil
}

// handleMouse focuses and selects with clicks and scrolls with the wheel.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.dialogs.Len() > 0 || m.layout.TooSmall {
		return nil
	}
	l := m.layout
	x, y := msg.X, msg.Y
	wheel := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		wheel = -3
	case tea.MouseButtonWheelDown:
		wheel = 3
	}
	if m.logs.IsOpen() && l.Logs.Contains(x, y) {
		m.handleLogsMouse(msg, wheel)
		return nil
	}
	if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft {
		m.logs.Blur() // a click elsewhere takes the keys from the log
	}
	if m.chatMode {
		return m.handleChatMouse(msg, wheel)
	}
	switch {
	case wheel != 0 && l.List.Contains(x, y):
		m.catalog.Scroll(wheel)
	case wheel != 0 && l.Right.Contains(x, y) && m.viewer.Open():
		return m.viewer.Scroll(wheel)
	case wheel != 0 && l.Right.Contains(x, y):
		m.detail.Scroll(wheel)
	case msg.Action != tea.MouseActionPress || msg.Button != tea.MouseButtonLeft:
		// Only a left press selects or focuses.
	case l.Tabs.Contains(x, y):
		if t := tabAt(m.tabSpans(), x); t == len(catalog.TabTitles) {
			m.setChatMode(true)
		} else if t >= 0 {
			m.catalog.SetTab(t)
		}
	case l.List.Contains(x, y):
		was := m.catalog.Selected()
		m.setFocus(focusList)
		if m.catalog.Click(y-l.List.Y) && was != nil && m.catalog.Selected() == was {
			return m.openSelected()
		}
	case l.Right.Contains(x, y):
		m.setFocus(focusRight)
	}
	return nil
}

// updateKeys enables the bindings that apply in the current state, so the
// help line, the help screen and key matching agree.
func (m *Model) updateKeys() {
	k := m.com.Keys
	inViewer := m.focus == focusRight && m.viewer.Open()
	var vk viewer.KeyState
	if inViewer {
		vk = m.viewer.Keys()
	}
	common.SetEnabled(!inViewer, &k.Open, &k.Refresh, &k.Filter)
	common.SetEnabled(m.catalog.Selected() != nil || inViewer, &k.FocusNext, &k.FocusPrev)
	common.SetEnabled(vk.NextPage, &k.NextPage)
	common.SetEnabled(vk.PrevPage, &k.PrevPage)
	common.SetEnabled(vk.Lines, &k.Search)
	common.SetEnabled(vk.Hits, &k.NextMatch, &k.PrevMatch)
	common.SetEnabled(vk.Paged, &k.Pattern)
	common.SetEnabled(vk.Filtered, &k.ClearPattern)
	common.SetEnabled(vk.Lines, &k.Wrap, &k.Left, &k.Right)
	common.SetEnabled(vk.Hex, &k.HexToggle)
	common.SetEnabled(vk.Attachments, &k.OpenAttachment)
	common.SetEnabled(vk.Doc, &k.Copy)
	common.SetEnabled(vk.Subscribable, &k.Subscribe)
	if m.viewer.Keys().Subscribed {
		k.Subscribe.SetHelp(k.Subscribe.Help().Key, "unsubscribe")
	} else {
		k.Subscribe.SetHelp(k.Subscribe.Help().Key, "subscribe")
	}
	common.SetEnabled(m.viewer.Open() || m.catalog.Query() != "", &k.Back)
	common.SetEnabled(m.logs.IsOpen() && m.logs.Focused(), &k.LogNext, &k.LogPrev, &k.LogOpen, &k.LogBlur)
}

// View draws the screen. It reads the model and never changes it beyond
// render caches.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	l := m.layout
	if l.TooSmall {
		return m.tooSmallView()
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.renderTabs())
	var body []string
	switch {
	case m.chatMode:
		body = m.chatBody()
	case l.List.Empty():
		body = m.rightPane()
	default:
		body = common.JoinColumns(m.catalog.Render(m.frame), m.rightPane())
	}
	lines = append(lines, body...)
	if m.logs.IsOpen() {
		lines = append(lines, m.logs.Render(m.frame)...)
	}
	if !l.Help.Empty() {
		lines = append(lines, common.Fit(" "+m.help.ShortHelpView(m.com.Keys.ShortHelp(m.helpState())), l.Help.W))
	}
	lines = append(lines, m.status.Render(l.Status.W, m.catalog.Servers(), m.frame))
	if d := m.dialogs.Top(); d != nil {
		// Between the tabs and the help line: a tall dialog must not hide
		// the keys that answer it.
		avail := m.height - 2
		if !l.Help.Empty() {
			avail--
		}
		frame := d.Render(m.width, avail)
		x := max((m.width-common.WidthOf(frame[0]))/2, 0)
		y := max(min((m.height-len(frame))/2, 1+avail-len(frame)), 1)
		lines = common.Overlay(lines, frame, x, y)
	}
	if m.com.Images == common.ImageITerm2 {
		lines = common.ITerm2Seal(lines)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) helpState() common.HelpState {
	top := ""
	if d := m.dialogs.Top(); d != nil {
		top = d.ID()
	}
	return common.HelpState{
		Dialog:        top,
		TextInput:     m.catalog.TextInputFocused() || m.viewer.TextInputFocused(),
		ViewerFocused: m.focus == focusRight && m.viewer.Open(),
		Chat:          m.chatMode,
		Blocks:        m.chat.Focused(),
		Running:       m.chat.Running(),
		Popup:         m.comp.IsOpen(),
		Logs:          m.logs.IsOpen() && m.logs.Focused(),
	}
}

func (m *Model) rightPane() []string {
	if m.viewer.Open() {
		return m.viewer.Render(m.frame)
	}
	return m.detail.Render(m.frame)
}

// brand starts the tab bar.
const brand = " howl "

// tabSpans are the columns of each tab in the tab bar: one pure function
// serves drawing and mouse hits.
func (m *Model) tabSpans() [][2]int {
	x := common.WidthOf(brand) + 1
	spans := make([][2]int, len(catalog.TabTitles))
	for i := range catalog.TabTitles {
		w := common.WidthOf(m.catalog.TabTitle(i)) + 2
		spans[i] = [2]int{x, x + w}
		x += w + 1
	}
	// The chat tab, one blank further.
	x++
	return append(spans, [2]int{x, x + common.WidthOf(chatTabTitle) + 2})
}

// tabAt is the tab at column x, or -1.
func tabAt(spans [][2]int, x int) int {
	for i, s := range spans {
		if x >= s[0] && x < s[1] {
			return i
		}
	}
	return -1
}

// renderTabs draws the tab bar: the active tab in brackets (visible
// without colour too).
func (m *Model) renderTabs() string {
	st := m.com.Styles
	var b strings.Builder
	b.WriteString(st.Tabs.Brand.Render(brand))
	b.WriteString(" ")
	for i := range catalog.TabTitles {
		title := m.catalog.TabTitle(i)
		if i == m.catalog.Tab() && !m.chatMode {
			b.WriteString(st.Tabs.Active.Render("[" + title + "]"))
		} else {
			b.WriteString(st.Tabs.Inactive.Render(" " + title + " "))
		}
		b.WriteString(" ")
	}
	b.WriteString(" ")
	if m.chatMode {
		b.WriteString(st.Tabs.Active.Render("[" + chatTabTitle + "]"))
	} else {
		b.WriteString(st.Tabs.Inactive.Render(" " + chatTabTitle + " "))
	}
	return common.Fit(b.String(), m.width)
}

// tooSmallView asks for a bigger terminal instead of drawing a broken layout.
func (m *Model) tooSmallView() string {
	st := m.com.Styles
	msg := []string{
		st.Strong.Render("Make me bigger"),
		"",
		fmt.Sprintf("howl needs at least %d×%d;", MinWidth, MinHeight),
		fmt.Sprintf("this terminal is %d×%d.", m.width, m.height),
		"",
		st.Muted.Render("q quits"),
	}
	lines := make([]string, m.height)
	top := max((m.height-len(msg))/2, 0)
	for i := range lines {
		s := ""
		if j := i - top; j >= 0 && j < len(msg) {
			s = msg[j]
			pad := max((m.width-ansi.StringWidthWc(s))/2, 0)
			s = strings.Repeat(" ", pad) + s
		}
		lines[i] = common.Fit(s, m.width)
	}
	return strings.Join(lines, "\n")
}

// clipMsg shortens a message for the debug log.
func clipMsg(msg tea.Msg) string {
	s := fmt.Sprintf("%+v", msg)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
