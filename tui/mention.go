package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxMentions is how many @-mentions one message may attach.
const MaxMentions = 8

// mentionRE finds @server:uri in a message (the URI ends at white space).
var mentionRE = regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`)

// mention is one @server:uri in a message.
type mention struct{ server, uri string }

func (m mention) String() string { return "@" + m.server + ":" + m.uri }

// parseMentions lists the message's mentions of known servers, once each,
// in order.
func parseMentions(text string, servers []string) []mention {
	known := map[string]bool{}
	for _, s := range servers {
		known[s] = true
	}
	seen := map[mention]bool{}
	var out []mention
	for _, sm := range mentionRE.FindAllStringSubmatch(text, -1) {
		m := mention{server: sm[1], uri: strings.TrimRight(sm[2], ".,;:!?)")}
		if !known[m.server] || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// mentionAttachment is a mentioned resource as mcp_read returns it to the
// model: bounded, coverage first (a binary is its spill metadata).
type mentionAttachment struct {
	mention mention
	body    string
}

// mentionFailure is a mention that could not be read, and why.
type mentionFailure struct {
	mention mention
	err     error
}

// mentionsReadMsg carries the reads of one message's mentions.
type mentionsReadMsg struct {
	text   string
	atts   []mentionAttachment
	failed []mentionFailure
}

// readMentionsCmd reads each mention through mcp_read, as the model would.
func readMentionsCmd(ctx context.Context, rt common.Runtime, id common.RequestID, text string, ms []mention) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		msg := mentionsReadMsg{text: text}
		for _, m := range ms {
			args, _ := json.Marshal(map[string]string{"uri": m.uri})
			out, err := rt.CallMeta(ctx, mcp.PrefixRead+mcp.FunctionSuffix(m.server), args)
			if err != nil {
				msg.failed = append(msg.failed, mentionFailure{m, err})
				continue
			}
			msg.atts = append(msg.atts, mentionAttachment{m, string(out)})
		}
		return msg
	})
}

// withAttachments appends one section per attachment to the message.
func withAttachments(text string, atts []mentionAttachment) string {
	if len(atts) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, a := range atts {
		fmt.Fprintf(&b, "\n\n[attached %s, as mcp_read_%s returns it]\n%s", a.mention, mcp.FunctionSuffix(a.mention.server), a.body)
	}
	return b.String()
}

// sendWithMentions reads the line's mentions before it is sent (nil when
// it has none).
func (m *Model) sendWithMentions(line string) tea.Cmd {
	ms := parseMentions(line, m.chat.servers)
	if len(ms) == 0 {
		return nil
	}
	if m.chat.Running() {
		return common.ReportWarn("a turn is running: wait for it, or press esc to cancel it")
	}
	if len(ms) > MaxMentions {
		m.input.SetValue(line)
		return common.ReportError(fmt.Errorf("%d @-mentions: at most %d per message (MaxMentions); remove some", len(ms), MaxMentions))
	}
	ctx, id := m.chatReqs.Start(fmt.Sprintf("reading %d mentioned resource(s)", len(ms)))
	m.mentionReq = id
	return tea.Batch(readMentionsCmd(ctx, m.com.RT, id, line, ms), common.ReportInfo(fmt.Sprintf("reading %d mentioned resource(s)", len(ms))))
}

// handleMentionsRead sends the message, or asks what to do about the
// mentions that could not be read.
func (m *Model) handleMentionsRead(id common.RequestID, msg mentionsReadMsg) tea.Cmd {
	live := m.chatReqs.Done(id) // false: cancelled meanwhile
	if id != m.mentionReq || !live {
		if id == m.mentionReq && m.input.Value() == "" {
			m.input.SetValue(msg.text) // cancelled: the message stays a draft
		}
		return nil
	}
	m.mentionReq = 0
	if m.chat.Running() {
		// Another message went first: keep this one as the draft.
		if m.input.Value() == "" {
			m.input.SetValue(msg.text)
		}
		return common.ReportWarn("a turn is running: your message with mentions waits in the input; send it when the answer is done")
	}
	if len(msg.failed) > 0 {
		m.dialogs.Push(&mentionFailedDialog{com: m.com, msg: msg, opened: m.com.Now()})
		return nil
	}
	return m.chat.SubmitWith(msg.text, msg.atts)
}

// actionSendMentions sends a message with the attachments that were read.
type actionSendMentions struct{ msg mentionsReadMsg }

// actionRestoreDraft puts a message back in the input, unsent.
type actionRestoreDraft struct{ text string }

func (actionSendMentions) isAction() {}
func (actionRestoreDraft) isAction() {}

// mentionFailedDialog says which mentions could not be read; nothing is
// sent until the person sends without them (enter) or cancels (esc: the
// message returns to the input).
type mentionFailedDialog struct {
	dialogBase
	com *common.Common
	msg mentionsReadMsg
	// opened: it opens when the reads end, maybe mid-typing, so keys in
	// the first PermissionGrace are ignored.
	opened time.Time
}

func (d *mentionFailedDialog) ID() string { return "mention-failed" }

// HandleKey sends without the failed mentions, or cancels.
func (d *mentionFailedDialog) HandleKey(km tea.KeyMsg) Action {
	if d.com.Now().Sub(d.opened) < PermissionGrace {
		return actionNone{}
	}
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Accept) || km.String() == "y":
		return actionSendMentions{d.msg}
	case key.Matches(km, k.Cancel) || km.String() == "n":
		return actionRestoreDraft{d.msg.text}
	}
	return actionNone{}
}

// Render lists the failures.
func (d *mentionFailedDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 80)
	inner := w - 2
	content := []string{""}
	for _, f := range d.msg.failed {
		for _, l := range common.WrapText(fmt.Sprintf("✗ %s: %v", f.mention, f.err), max(inner-2, 10)) {
			content = append(content, " "+st.Error.Render(render.SanitizeLine(l)))
		}
	}
	content = append(content, "")
	for _, l := range common.WrapText("Nothing was sent. enter/y sends the message without the mentions above · esc/n cancels (the message returns to the input)", max(inner-2, 10)) {
		content = append(content, " "+st.Dialog.Hint.Render(l))
	}
	return frameDialog(d.com, "A mention could not be read", content, w, maxH, -1)
}

// actionInsertMention puts a template's expanded mention in the input.
type actionInsertMention struct{ text string }

func (actionInsertMention) isAction() {}

// mentionWord is the byte offset of the @word the input ends with, or -1.
func mentionWord(line string) int {
	i := strings.LastIndexAny(line, " \t\n") + 1
	if strings.HasPrefix(line[i:], "@") {
		return i
	}
	return -1
}

// mentionCompletions are the resources and templates of every enabled
// server whose catalog is loaded.
func (m *Model) mentionCompletions() []completion {
	var out []completion
	for _, sv := range m.catalog.Servers() {
		if m.com.Hidden[sv.Name()] {
			continue
		}
		for _, kind := range []mcp.Kind{mcp.KindResource, mcp.KindTemplate} {
			for _, it := range sv.Items(kind) {
				c := completion{
					insert: mention{server: it.Server, uri: it.URI}.String() + " ",
					label:  "@" + render.SanitizeLine(it.Server) + ":" + render.SanitizeLine(it.URI),
					desc:   strings.TrimSpace(render.SanitizeLine(it.Server) + " · " + common.OrDash(render.SanitizeLine(it.MIMEType)) + " · " + render.SanitizeLine(common.OrDash(it.Name))),
				}
				if kind == mcp.KindTemplate {
					c.desc = render.SanitizeLine(it.Server) + " · template · " + render.SanitizeLine(it.Name) + " (enter fills its variables)"
					c.template = &it
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// fuzzyMentions ranks mentions by a fuzzy match of the typed word (after @).
func fuzzyMentions(items []completion, partial string) []completion {
	p := strings.TrimPrefix(partial, "@")
	if p == "" {
		return items
	}
	labels := make([]string, len(items))
	for i, it := range items {
		labels[i] = strings.TrimPrefix(it.label, "@")
	}
	var out []completion
	for _, mt := range fuzzy.Find(p, labels) {
		out = append(out, items[mt.Index])
	}
	return out
}

// openMentions opens the @-mention popup on the word the input ends with.
func (m *Model) openMentions() tea.Cmd {
	line := m.input.Value()
	start := mentionWord(line)
	items := m.mentionCompletions()
	m.comp.Close()
	if len(items) == 0 {
		return common.ReportWarn("no resources to mention yet: the servers' catalogs are still loading or list none")
	}
	m.comp.filter = fuzzyMentions
	m.comp.Show(line, start, items)
	m.comp.title = "resources and templates (@server:uri)"
	return nil
}

// openMentionTemplate opens a template's form; submitting it inserts the
// expanded URI as a mention.
func (m *Model) openMentionTemplate(it mcp.CatalogItem) tea.Cmd {
	prefix := m.comp.line[:m.comp.start]
	m.comp.Close()
	d := newTemplateForm(m.com, it)
	d.mention, d.mentionPrefix = true, prefix
	d.form.Title = "mention " + render.SanitizeLine(it.Name)
	return m.pushForm(d)
}

// mentionSelected adds the chosen resource's mention to the chat input and
// opens the chat; a template opens its form first.
func (m *Model) mentionSelected() tea.Cmd {
	e := m.catalog.Selected()
	if e == nil || (e.Item().Kind != mcp.KindResource && e.Item().Kind != mcp.KindTemplate) {
		return common.ReportWarn("@ mentions a resource or a template in the chat: choose one on the Resources or Templates tab")
	}
	line := m.input.Value()
	if line != "" && !strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\n") {
		line += " "
	}
	m.setChatMode(true)
	if e.Item().Kind == mcp.KindTemplate {
		d := newTemplateForm(m.com, e.Item())
		d.mention, d.mentionPrefix = true, line
		d.form.Title = "mention " + render.SanitizeLine(e.Item().Name)
		return m.pushForm(d)
	}
	m.input.SetValue(line + mention{server: e.Item().Server, uri: e.Item().URI}.String() + " ")
	return nil
}
