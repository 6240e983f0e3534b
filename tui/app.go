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
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
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
	// StartInChat opens on the chat even without a model. With a model
	// (configured, flagged or detected) howl opens on the chat anyway, so a
	// question typed at once is read as a question, not as catalog keys;
	// without one it opens on the catalog.
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
	// NoConfig are the config files looked for when none was found, the
	// one to create first (mcp.Config.Looked); the demo runs, and a line
	// under the tab bar says so. Nil when a config is in use.
	NoConfig []string
	// Reload reads the config files again and applies what changed
	// (mcp.Reloader.Reload; `.mcp reload`). It does I/O: the TUI calls it
	// from a command. Nil when the servers come from the command line.
	// Its result, and the watch's, also arrive as an mcp.EventReload.
	Reload func() (mcp.ReloadResult, error)
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
	// mentionList is the @-mention popup's items being built, and
	// stopMentionList what cancels that.
	mentionList     common.RequestID
	stopMentionList context.CancelFunc
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
	// noConfig are the config files looked for (nil: a config is in use).
	noConfig []string

	// apps are the MCP Apps open (or opening), by their document's app
	// id; appHost serves them.
	apps    map[common.RequestID]*openApp
	appHost *appHost
	// reload is Options.Reload.
	reload func() (mcp.ReloadResult, error)
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
		Store: o.Store, StoreErr: o.StoreError, Location: o.Location, Writes: &common.WriteGate{}, Progress: &common.ProgressBoard{}, Subs: &common.Subscriptions{}}
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
	m.apps, m.appHost = map[common.RequestID]*openApp{}, &appHost{}
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
	m.chatMode = o.StartInChat || o.Model != nil
	if o.Resume != nil && o.Resume.Conv != nil {
		m.chat.LoadSession(o.Resume.Session, o.Resume.Conv)
		m.chatMode = true
	}
	m.catalog.Focus()
	m.trust = o.Trust
	m.noConfig = o.NoConfig
	m.reload = o.Reload
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
	m.appHost.Close() // every app's page tears it down, within apphost.TeardownWait
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
		cmd = m.status.Clear(msg)
	case spinnerTickMsg:
		m.frame++
		m.spinning = false
		m.chat.Tick(m.frame)
	case common.SubscribeMsg:
		cmd = m.handleSubscribe(msg)
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
		cmd := m.viewer.HandleResult(r)
		if l := m.viewer.TakeAppLoad(); l != nil {
			cmd = tea.Batch(cmd, m.openAppFor(l))
		}
		return cmd
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
	case chat.MentionsNarrowed:
		m.comp.HandleNarrowed(r.ID, msg, m.input.Value())
		return nil
	case mentionsListed:
		return m.handleMentionsListed(r.ID, msg)
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
	case toolSwitchedMsg:
		return m.handleToolSwitched(msg)
	case urlOpenedMsg:
		return m.handleURLOpened(msg)
	case sampledMsg:
		return m.handleSampled(msg)
	case subscribedMsg:
		return m.handleSubscribed(msg)
	case appOpenedMsg:
		return m.handleAppOpened(r.ID, msg)
	case appNewsMsg:
		return m.handleAppNews(r.ID, msg)
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
	cmd := tea.Batch(m.closeGoneApps(), m.relayout())
	m.detail.SetEntry(m.catalog.Selected())
	m.detail.SetServer(m.catalog.SelectedServer(), m.catalog.Tab())
	m.status.chat = m.chatStatus()
	m.status.apps = m.openApps()
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
	m.layout = ComputeLayout(m.width, m.height, LayoutState{ViewerOpen: m.viewer.Open(), Focus: m.focus, Chat: m.chatMode, InputH: m.input.Height(), Logs: m.logs.IsOpen(),
		Banner: len(m.noConfig) > 0})
	l := m.layout
	m.logs.SetSize(l.Logs.W, l.Logs.H)
	var chatCmd tea.Cmd // a long answer's Markdown renders off the update path
	if m.chatMode {
		chatCmd = m.chat.SetSize(l.Chat.W, l.Chat.H)
		m.input.SetWidth(l.Input.W)
	}
	m.catalog.SetSize(l.List.W, l.List.H)
	m.detail.SetSize(l.Right.W, l.Right.H)
	m.help.Width = l.Help.W - 1 // after the one-cell margin
	return tea.Batch(chatCmd, m.viewer.SetSize(l.Right.W, l.Right.H))
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

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cancel() // ends every request in flight
	return tea.Quit
}

// clipMsg shortens a message for the debug log.
func clipMsg(msg tea.Msg) string {
	s := fmt.Sprintf("%+v", msg)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
