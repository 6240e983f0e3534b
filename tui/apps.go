package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/apphost"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
	"github.com/howl-mcp/howl/tui/viewer"
)

// MCP Apps in the TUI: a call of an app tool (or a read of a ui://
// resource with o) opens its document in the viewer and its app in the
// browser, served by mcp/apphost. The app lives as long as its document;
// what it does through the bridge reaches the program through its appLink,
// a bounded queue read by a re-armed command (results in the root's
// envelope): bridge events become log lines, relayed calls the rules do
// not allow and ui/message become dialogs.

// Bounds on what one app can make the program hold. An app that asks for
// more is refused at once, with the bound's name in its error.
const (
	// MaxAppAsks bounds the questions (relayed calls to allow, messages
	// to post) one app has waiting for the person, shown or not.
	MaxAppAsks = 8
	// MaxAppAskBytes bounds their bytes (arguments and texts).
	MaxAppAskBytes = 2 << 20
	// MaxAppEvents and MaxAppEventBytes bound the bridge events waiting
	// for the log pane; past them the oldest are dropped and counted.
	MaxAppEvents     = 256
	MaxAppEventBytes = 256 << 10
)

// appRuntime is what opening an app needs beyond common.Runtime (an
// *mcp.Runtime has it): the app's interface, and the calls and reads it
// relays.
type appRuntime interface {
	apphost.Server
	ReadApp(ctx context.Context, server, uri string) (mcp.AppView, error)
}

// appHost is the one apphost.Host of the program, started by the first
// app opened (in a command) and closed when the program ends.
type appHost struct {
	mu     sync.Mutex
	h      *apphost.Host
	closed bool
}

func (a *appHost) get() (*apphost.Host, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errors.New("howl is closing: no app opens now")
	}
	if a.h == nil {
		h, err := apphost.New()
		if err != nil {
			return nil, err
		}
		a.h = h
	}
	return a.h, nil
}

// Close tears down every open app (each within apphost.TeardownWait, all
// at once) and stops the host.
func (a *appHost) Close() {
	a.mu.Lock()
	h := a.h
	a.h, a.closed = nil, true
	a.mu.Unlock()
	if h != nil {
		_ = h.Close()
	}
}

// appAsk is one question an app waits on: a relayed call to allow, or a
// message to post.
type appAsk struct {
	perm *chat.PermissionRequest
	msg  *dialog.AppMessage
	size int
}

// appLink is one app's line into the program. The host's goroutines add
// to it (never blocking: past the bounds they are refused or the oldest
// event dropped); wait, a command, hands what arrived to the root.
type appLink struct {
	id     common.RequestID
	server string
	uri    string

	mu         sync.Mutex
	events     []apphost.Event
	eventBytes int
	dropped    int
	queued     []appAsk
	// context is the app's latest ui/update-model-context not yet handed
	// to the root (nil: none since the last read).
	context *string
	// perms are the relayed calls put to the person, with their sizes.
	perms map[*chat.PermissionRequest]int
	// held counts the asks queued or on screen, and their bytes, until
	// the person answers them or the app closes.
	held, heldBytes int

	wake     chan struct{}
	done     chan struct{}
	doneOnce sync.Once
}

func newAppLink(id common.RequestID, server, uri string) *appLink {
	return &appLink{id: id, server: server, uri: uri, perms: map[*chat.PermissionRequest]int{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (l *appLink) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func eventBytes(e apphost.Event) int { return 32 + len(e.Method) + len(e.Detail) + len(e.Err) }

// maxAppEventField bounds each field of an event as queued: the log line
// shows 400 bytes of them, and an app names the tool in a detail and the
// method in its own request (up to apphost.MaxRequestBytes).
const maxAppEventField = 1024

// event queues a bridge event for the log.
func (l *appLink) event(e apphost.Event) {
	for _, f := range []*string{&e.Method, &e.Detail, &e.Err} {
		*f = render.Ellipsize(*f, maxAppEventField)
	}
	l.mu.Lock()
	l.events = append(l.events, e)
	l.eventBytes += eventBytes(e)
	for len(l.events) > MaxAppEvents || l.eventBytes > MaxAppEventBytes && len(l.events) > 1 {
		l.eventBytes -= eventBytes(l.events[0])
		l.events = l.events[1:]
		l.dropped++
	}
	l.mu.Unlock()
	l.poke()
}

// ask queues a question for the person, or refuses it past the bounds.
func (l *appLink) ask(a appAsk) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		return errors.New("the app was closed")
	default:
	}
	switch {
	case l.held >= MaxAppAsks:
		return fmt.Errorf("refused: this app already has %d questions waiting for the person (howl's MaxAppAsks = %d): wait for the answers", l.held, MaxAppAsks)
	case l.heldBytes+a.size > MaxAppAskBytes:
		return fmt.Errorf("refused: this app's questions waiting for the person would hold %d bytes, over howl's MaxAppAskBytes = %d", l.heldBytes+a.size, MaxAppAskBytes)
	}
	l.held++
	l.heldBytes += a.size
	l.queued = append(l.queued, a)
	if a.perm != nil {
		l.perms[a.perm] = a.size
	}
	defer l.poke()
	return nil
}

// answered releases an ask the person answered.
func (l *appLink) answered(size int) {
	l.mu.Lock()
	l.held = max(l.held-1, 0)
	l.heldBytes = max(l.heldBytes-size, 0)
	l.mu.Unlock()
}

// postPermission is the chat rules' way to ask about one relayed call.
func (l *appLink) postPermission(_ context.Context, req *chat.PermissionRequest) error {
	return l.ask(appAsk{perm: req, size: len(req.Call.Arguments)})
}

// owns reports whether req is one of this app's relayed calls.
func (l *appLink) owns(req *chat.PermissionRequest) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.perms[req]
	return ok
}

// release releases the relayed call the person answered.
func (l *appLink) release(req *chat.PermissionRequest) {
	l.mu.Lock()
	size, ok := l.perms[req]
	delete(l.perms, req)
	l.mu.Unlock()
	if ok {
		l.answered(size)
	}
}

// message is the app's ui/message: asked, then waited for.
// openLink asks the person before the browser opens a link the app asks
// for (mcp.CheckBrowserURL has passed it): the link is the app's one way
// out of its sandbox, and each needs its own yes, so no app opens tabs in
// a loop.
func (l *appLink) openLink(ctx context.Context, link string) error {
	m := dialog.NewAppLink(l.id, l.server, l.uri, link)
	if err := l.ask(appAsk{msg: m, size: len(link)}); err != nil {
		return err
	}
	if err := m.Wait(ctx); err != nil {
		return err
	}
	return mcp.OpenBrowser(ctx, link)
}

func (l *appLink) message(ctx context.Context, text string) error {
	m := dialog.NewAppMessage(l.id, l.server, l.uri, text)
	if err := l.ask(appAsk{msg: m, size: len(text)}); err != nil {
		return err
	}
	return m.Wait(ctx)
}

// modelContext keeps the app's latest model context for the root to
// hand to the chat: a newer one replaces it (each is at most
// apphost.MaxModelContextBytes).
func (l *appLink) modelContext(_ context.Context, text string) error {
	l.mu.Lock()
	l.context = &text
	l.mu.Unlock()
	l.poke()
	return nil
}

func (l *appLink) close() { l.doneOnce.Do(func() { close(l.done) }) }

// appNewsMsg is what an app did since the last read: bridge events (and
// how many were dropped), questions, and whether it asked to close.
type appNewsMsg struct {
	events  []apphost.Event
	dropped int
	asks    []appAsk
	// context is the app's latest model context, when it sent one.
	context *string
	// ended: the app asked to be closed (or was); no more news comes.
	ended bool
}

// wait is the command that reads the link once; the root re-arms it.
func (l *appLink) wait(appDone <-chan struct{}) tea.Cmd {
	return common.Deliver(common.OwnerRoot, l.id, func() tea.Msg {
		ended := false
		select {
		case <-l.wake:
		case <-l.done:
			ended = true
		case <-appDone:
			ended = true
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		msg := appNewsMsg{events: l.events, dropped: l.dropped, asks: l.queued, context: l.context, ended: ended}
		l.events, l.eventBytes, l.dropped, l.queued, l.context = nil, 0, 0, nil, nil
		return msg
	})
}

// openApp is one app the root keeps while its document is in the viewer.
type openApp struct {
	link *appLink
	// app is nil while it opens.
	app *apphost.App
}

// appOpenedMsg is the end of opening an app: its page is served (app),
// or why not (err); browserErr says the browser did not start.
type appOpenedMsg struct {
	app        *apphost.App
	err        error
	browserErr error
}

// openAppFor opens the app a finished viewer load names.
func (m *Model) openAppFor(l *viewer.AppLoad) tea.Cmd {
	rt, ok := m.com.RT.(appRuntime)
	if !ok {
		return common.ReportWarn("this howl's runtime cannot open MCP Apps")
	}
	link := newAppLink(l.App, l.Server, l.URI)
	m.apps[l.App] = &openApp{link: link}
	spec := apphost.Spec{
		Server: l.Server, Backend: rt, Input: l.Args, Result: l.Result,
		Theme:        "light",
		Decide:       llm.AppDecider(m.chat.AppDecider(l.URI, link.postPermission), l.Server, l.Tool),
		Message:      link.message,
		OpenLink:     link.openLink,
		ModelContext: link.modelContext,
		Event:        link.event,
	}
	if m.com.Theme.Dark {
		spec.Theme = "dark"
	}
	holder, tool, cut, crt := m.appHost, l.Tool, l.Cut, m.com.RT
	ctx, uri := m.com.Ctx, l.URI
	if cut {
		m.logs.Note(l.Server, fmt.Sprintf("app %s: the tool's result is over mcp.MaxRawResultBytes = %d, so the app opens without it", render.SanitizeLine(uri), mcp.MaxRawResultBytes), m.com.Now())
	}
	return common.Deliver(common.OwnerRoot, l.App, func() tea.Msg {
		var err error
		if spec.View, err = rt.ReadApp(ctx, spec.Server, uri); err != nil {
			return appOpenedMsg{err: err}
		}
		if tool != "" {
			if cat, err := crt.Catalog(ctx, spec.Server, false); err == nil {
				spec.Tool, _ = cat.Lookup(mcp.KindTool, tool)
			}
		}
		host, err := holder.get()
		if err != nil {
			return appOpenedMsg{err: err}
		}
		app, err := host.Open(spec)
		if err != nil {
			return appOpenedMsg{err: err}
		}
		return appOpenedMsg{app: app, browserErr: mcp.OpenBrowser(ctx, app.URL())}
	})
}

// handleAppOpened keeps an opened app, or closes it when its document went
// away while it opened.
func (m *Model) handleAppOpened(id common.RequestID, msg appOpenedMsg) tea.Cmd {
	oa := m.apps[id]
	if oa == nil {
		return closeAppCmd(msg.app)
	}
	server, uri := oa.link.server, render.SanitizeLine(oa.link.uri)
	if msg.err != nil {
		delete(m.apps, id)
		oa.link.close()
		m.logs.Note(server, "app "+uri+" did not open: "+render.SanitizeLine(msg.err.Error()), m.com.Now())
		return common.ReportError(fmt.Errorf("the app %s did not open: %w", uri, msg.err))
	}
	oa.app = msg.app
	m.logs.Note(server, "app "+uri+" open at "+msg.app.URL()+" (closing its document closes it)", m.com.Now())
	cmd := common.ReportInfo("app " + uri + " open in your browser · closing its document closes it")
	if msg.browserErr != nil {
		cmd = common.ReportWarn(render.SanitizeLine(msg.browserErr.Error()) + " · the app is at " + msg.app.URL())
	}
	return tea.Batch(cmd, oa.link.wait(msg.app.Done()))
}

// handleAppNews logs what an app did and opens its questions' dialogs.
func (m *Model) handleAppNews(id common.RequestID, msg appNewsMsg) tea.Cmd {
	oa := m.apps[id]
	if oa == nil {
		return nil // closed: its questions were withdrawn with it
	}
	l := oa.link
	now := m.com.Now()
	prefix := "app " + render.SanitizeLine(l.uri) + ": "
	if msg.dropped > 0 {
		m.logs.Note(l.server, fmt.Sprintf("%s%d bridge events dropped (over MaxAppEvents = %d or MaxAppEventBytes = %d)", prefix, msg.dropped, MaxAppEvents, MaxAppEventBytes), now)
	}
	for _, e := range msg.events {
		line := e.Method
		if e.Detail != "" {
			line += " " + e.Detail
		}
		if e.Err != "" {
			line += ": refused: " + e.Err
		}
		m.logs.Note(l.server, prefix+render.Ellipsize(render.SanitizeLine(line), 400), now)
	}
	for _, a := range msg.asks {
		switch {
		case a.perm != nil:
			m.dialogs.Push(dialog.NewPermission(m.com, a.perm, m.chat.CanPersist()))
		case a.msg != nil:
			m.dialogs.Push(dialog.NewAppMessageDialog(m.com, a.msg))
		}
	}
	if msg.context != nil {
		m.chat.SetAppContext(id, l.server, l.uri, *msg.context)
	}
	if msg.ended {
		m.forgetApp(id, oa)
		m.logs.Note(l.server, prefix+"closed (the app asked to)", now)
		return tea.Batch(closeAppCmd(oa.app), common.ReportInfo(prefix+"closed (the app asked to)"))
	}
	return l.wait(oa.app.Done())
}

// closeGoneApps closes the apps whose documents left the viewer.
func (m *Model) closeGoneApps() tea.Cmd {
	if len(m.apps) == 0 {
		return nil
	}
	live := m.viewer.Apps()
	var cmds []tea.Cmd
	for id, oa := range m.apps {
		if live[id] {
			continue
		}
		m.forgetApp(id, oa)
		m.logs.Note(oa.link.server, "app "+render.SanitizeLine(oa.link.uri)+": closed with its document", m.com.Now())
		cmds = append(cmds, closeAppCmd(oa.app))
	}
	return tea.Batch(cmds...)
}

// closeAppsOfReload closes the apps whose server a reload took away:
// removed from the config, switched off (or no longer trusted), or
// restarted because its entry changed. A restarted server is a new
// connection whose tools may differ from the ones the app was opened
// with, so its app closes too: open it again to get one that matches.
// Each server's log says which app closed and why; so does what it
// returns, sorted, for the reload's notice.
func (m *Model) closeAppsOfReload(res mcp.ReloadResult) (tea.Cmd, []string) {
	return m.closeAppsOf(func(server string) string {
		switch {
		case slices.Contains(res.Removed, server):
			return "was removed by a reload"
		case slices.Contains(res.Restarted, server):
			return "was restarted by a reload (its entry changed): open the app again"
		case slices.Contains(res.Stopped, server):
			return "was stopped by a reload (switched off, or its file no longer trusted)"
		}
		return ""
	})
}

// closeAppsOfState closes the apps of a server that left ready without a
// reload: it died (failed), was reconnected (.mcp reconnect, or enter in
// the servers list: a new connection, whose tools may differ from the
// ones the app was opened with), stopped, or asks for a login. Each
// server's log says which app closed and why, and so does the status bar.
// A reload's own closings come first (its event precedes the states it
// causes), so an app is not closed twice.
func (m *Model) closeAppsOfState(st mcp.Status) tea.Cmd {
	if len(m.apps) == 0 || st.State == mcp.StateReady {
		return nil
	}
	var reason string
	switch st.State {
	case mcp.StateFailed:
		reason = "failed: " + render.Ellipsize(common.OrDash(st.Reason), 200)
	case mcp.StateStarting:
		reason = "was restarted (reconnected): open the app again"
	case mcp.StateAuthRequired:
		reason = "asks for a login: log in, then open the app again"
	default:
		reason = "is " + string(st.State)
	}
	cmd, said := m.closeAppsOf(func(server string) string {
		if server != st.Name {
			return ""
		}
		return reason
	})
	if len(said) == 0 {
		return nil
	}
	return tea.Batch(cmd, common.ReportWarn(strings.Join(said, " · ")))
}

// closeAppsOf closes the apps whose server why gives a reason for ("":
// it stays open), noting each in its server's log; it returns the
// commands that tear them down and the notes, sorted.
func (m *Model) closeAppsOf(why func(server string) string) (tea.Cmd, []string) {
	if len(m.apps) == 0 {
		return nil, nil
	}
	var cmds []tea.Cmd
	var said []string
	for id, oa := range m.apps {
		reason := why(oa.link.server)
		if reason == "" {
			continue
		}
		m.forgetApp(id, oa)
		line := render.SanitizeLine("app " + oa.link.uri + " closed: server " + oa.link.server + " " + reason)
		m.logs.Note(oa.link.server, line, m.com.Now())
		said = append(said, line)
		cmds = append(cmds, closeAppCmd(oa.app))
	}
	slices.Sort(said) // map order is random: say them in one order
	return tea.Batch(cmds...), said
}

// forgetApp lets an open app go, however it closes: its link ends, its
// questions leave the screen and its model context is dropped unsent.
// Tearing it down (closeAppCmd) is the caller's command.
func (m *Model) forgetApp(id common.RequestID, oa *openApp) {
	delete(m.apps, id)
	m.chat.DropAppContext(id)
	oa.link.close()
	m.dropAppDialogs(oa.link)
}

// dropAppDialogs closes the questions a closed app left on screen; the
// app's requests end with it.
func (m *Model) dropAppDialogs(l *appLink) {
	m.dialogs.RemoveIf(func(d dialog.Dialog) bool {
		switch d := d.(type) {
		case *dialog.PermissionDialog:
			return l.owns(d.Req())
		case *dialog.AppMessageDialog:
			return d.Msg().App == l.id
		}
		return false
	})
}

// appOf is the open app a relayed call's question belongs to (nil when
// that app is closed).
func (m *Model) appOf(req *chat.PermissionRequest) *openApp {
	for _, oa := range m.apps {
		if oa.link.owns(req) {
			return oa
		}
	}
	return nil
}

// closeAppCmd tears an app down (its page lets it finish, within
// apphost.TeardownWait): a command, since it waits.
func closeAppCmd(app *apphost.App) tea.Cmd {
	if app == nil {
		return nil
	}
	return func() tea.Msg {
		app.Close()
		return nil
	}
}

// answerAppPermission releases the question of an app the person answered.
func (m *Model) answerAppPermission(req *chat.PermissionRequest) {
	if oa := m.appOf(req); oa != nil {
		oa.link.release(req)
	}
}

// answerAppMessage posts an app's message to the chat as the person's
// turn, or tells the app it was declined.
func (m *Model) answerAppMessage(a dialog.AnswerAppMessage) tea.Cmd {
	if oa := m.apps[a.Msg.App]; oa != nil {
		oa.link.answered(len(a.Msg.Text) + len(a.Msg.Link))
	}
	switch {
	case a.Msg.Link != "" && !a.Send:
		a.Msg.Answer(dialog.ErrLinkDeclined)
		return nil
	case a.Msg.Link != "":
		a.Msg.Answer(nil) // the app's request opens it
		return common.ReportInfo("opening the app's link in your browser")
	case !a.Send:
		a.Msg.Answer(dialog.ErrMessageDeclined)
		return nil
	case m.chat.Running():
		err := errors.New("a chat turn is running: the message was not added; send it again when the turn ends")
		a.Msg.Answer(err)
		return common.ReportWarn("the app's message was not added: " + err.Error())
	}
	a.Msg.Answer(nil)
	m.setChatMode(true)
	return m.chat.Submit(render.Sanitize(a.Msg.Text))
}

// openSelectedApp is o on a ui:// resource: its document in the viewer,
// its app in the browser.
func (m *Model) openSelectedApp() tea.Cmd {
	it := m.selectedResource()
	if it == nil || !mcp.IsAppResource(it.URI, it.MIMEType) {
		return nil
	}
	return m.openViewer(viewer.Read(it.Server, it.URI, nil).ForApp(it.URI), "reading the app")
}

// openApps counts the apps open in the browser.
func (m *Model) openApps() int {
	n := 0
	for _, oa := range m.apps {
		if oa.app != nil {
			n++
		}
	}
	return n
}
