package dialog

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// AppMessage is an MCP App's ui/message, or its ui/open-link, waiting for
// the person: the app's request waits (Wait) until the dialog answers it
// (Answer).
type AppMessage struct {
	// App identifies the app (its document's id in the viewer).
	App    common.RequestID
	Server string
	URI    string
	Text   string
	// Link, when set, is the URL the app asks to open in the browser (a
	// ui/open-link; Text is empty): the app's one way out of its sandbox,
	// and a query string can carry what the app saw.
	Link  string
	reply chan error
}

// NewAppLink is a link the app at uri of server asks to open.
func NewAppLink(app common.RequestID, server, uri, link string) *AppMessage {
	return &AppMessage{App: app, Server: server, URI: uri, Link: link, reply: make(chan error, 1)}
}

// ErrLinkDeclined is what an app hears when the person does not open its
// link.
var ErrLinkDeclined = errors.New("the person declined to open this link")

// NewAppMessage is a message the app at uri of server asks to post.
func NewAppMessage(app common.RequestID, server, uri, text string) *AppMessage {
	return &AppMessage{App: app, Server: server, URI: uri, Text: text, reply: make(chan error, 1)}
}

// Answer answers the app: nil posted it, an error refused it. Only the
// first answer counts; it never blocks.
func (a *AppMessage) Answer(err error) {
	select {
	case a.reply <- err:
	default:
	}
}

// Wait waits for the answer, or ctx.
func (a *AppMessage) Wait(ctx context.Context) error {
	select {
	case err := <-a.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrMessageDeclined is what an app hears when the person does not post
// its message.
var ErrMessageDeclined = errors.New("the person declined to add this message to the chat")

// AnswerAppMessage is the person's answer: Send adds the text to the chat
// as their turn.
type AnswerAppMessage struct {
	Msg  *AppMessage
	Send bool
}

func (AnswerAppMessage) isAction() {}

// AppMessageDialog shows an app's message, sanitized, and asks whether to
// send it to the chat as the person's own turn. It opens on its own, so it
// ignores keys for PermissionGrace.
type AppMessageDialog struct {
	dialogBase
	com *common.Common
	msg *AppMessage
	grace
	scroll dialogScroll
}

// NewAppMessageDialog asks about msg.
func NewAppMessageDialog(com *common.Common, msg *AppMessage) *AppMessageDialog {
	return &AppMessageDialog{com: com, msg: msg, grace: grace{com.Now()}}
}

func (d *AppMessageDialog) ID() string {
	if d.msg.Link != "" {
		return "app-link"
	}
	return "app-message"
}

// Msg is the message the dialog asks about.
func (d *AppMessageDialog) Msg() *AppMessage { return d.msg }

// HandleKey sends on enter or y, declines on esc or n, scrolls otherwise.
func (d *AppMessageDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Accept) || km.String() == "y":
		return AnswerAppMessage{Msg: d.msg, Send: true}
	case key.Matches(km, k.Cancel) || km.String() == "n":
		return AnswerAppMessage{Msg: d.msg}
	default:
		d.scroll.HandleKey(km, k)
	}
	return None{}
}

// Render shows whose app asks, the text as it would be sent (terminal
// controls removed), and the answers.
func (d *AppMessageDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 90)
	inner := w - 2
	label := func(l, v string) string {
		return " " + st.Detail.Label.Render(common.Fit(l, 8)) + common.Truncate(v, inner-10)
	}
	head := []string{"",
		label("server", render.SanitizeLine(d.msg.Server)),
		label("app", render.SanitizeLine(d.msg.URI)),
	}
	title, hint, text := "An app asks to post a message", "enter/y sends it to the chat as your turn · esc/n declines (the app is told)", d.msg.Text
	if d.msg.Link != "" {
		title, hint, text = "An app asks to open a link", "enter/y opens it in your browser · esc/n declines (the app is told)", render.SanitizeLine(d.msg.Link)
		if p, err := url.Parse(d.msg.Link); err == nil && p.Host != "" {
			head = append(head, label("host", render.SanitizeLine(asciiHost(p.Host))))
		}
		head = append(head, " "+st.Detail.Label.Render("link (anything in it goes to that host)"))
	} else {
		head = append(head, " "+st.Detail.Label.Render("message (sent as yours if you accept)"))
	}
	var body []string
	for _, l := range strings.Split(render.Sanitize(text), "\n") {
		for _, wl := range common.WrapWords(common.ExpandTabs(l), max(inner-4, 10)) {
			body = append(body, "   "+wl)
		}
	}
	answers := []string{""}
	for _, l := range common.WrapWords(hint, max(inner-2, 10)) {
		answers = append(answers, " "+st.Dialog.Hint.Render(l))
	}
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(answers))
	content := append(append(append([]string(nil), head...), shown...), answers...)
	return frameDialog(d.com, title, content, w, maxH, -1)
}
