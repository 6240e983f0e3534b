package tui

import (
	"context"
	"fmt"
	"iter"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

// sendWithMentions reads the line's mentions before it is sent (nil when
// it has none).
func (m *Model) sendWithMentions(line string) tea.Cmd {
	ms := chat.ParseMentions(line, m.chat.Servers())
	if len(ms) == 0 {
		return nil
	}
	if m.chat.Running() {
		return common.ReportWarn("a turn is running: wait for it, or press esc to cancel it")
	}
	if len(ms) > chat.MaxMentions {
		m.input.SetValue(line)
		return common.ReportError(fmt.Errorf("%d @-mentions: at most %d per message (MaxMentions); remove some", len(ms), chat.MaxMentions))
	}
	ctx, id := m.chatReqs.Start(fmt.Sprintf("reading %d mentioned resource(s)", len(ms)))
	m.mentionReq = id
	return tea.Batch(chat.ReadMentionsCmd(ctx, m.com.RT, id, line, ms), common.ReportInfo(fmt.Sprintf("reading %d mentioned resource(s)", len(ms))))
}

// handleMentionsRead sends the message, or asks what to do about the
// mentions that could not be read.
func (m *Model) handleMentionsRead(id common.RequestID, msg chat.MentionsRead) tea.Cmd {
	live := m.chatReqs.Done(id) // false: cancelled meanwhile
	if id != m.mentionReq || !live {
		if id == m.mentionReq && m.input.Value() == "" {
			m.input.SetValue(msg.Text) // cancelled: the message stays a draft
		}
		return nil
	}
	m.mentionReq = 0
	if m.chat.Running() {
		// Another message went first: keep this one as the draft.
		if m.input.Value() == "" {
			m.input.SetValue(msg.Text)
		}
		return common.ReportWarn("a turn is running: your message with mentions waits in the input; send it when the answer is done")
	}
	if len(msg.Failed) > 0 {
		m.dialogs.Push(dialog.NewMentionFailed(m.com, msg))
		return nil
	}
	return m.chat.SubmitWith(msg.Text, msg.Atts)
}

// mentionSources are the resources and templates of every enabled server
// whose catalog is loaded, as they are now (a command may read them), and
// how many.
func (m *Model) mentionSources() ([]iter.Seq[*mcp.CatalogItem], int) {
	var srcs []iter.Seq[*mcp.CatalogItem]
	n := 0
	for _, sv := range m.catalog.Servers() {
		if m.com.Hidden[sv.Name()] {
			continue
		}
		for _, kind := range []mcp.Kind{mcp.KindResource, mcp.KindTemplate} {
			srcs = append(srcs, sv.Listed(kind))
			n += sv.Count(kind)
		}
	}
	return srcs, n
}

// mentionListChunk is how many items are offered between checks of
// the list's context.
const mentionListChunk = 4096

// mentionCompletions offers the n items of srcs as @-mentions; ok false
// when ctx ended first (the popup closed: the list is not wanted).
func mentionCompletions(ctx context.Context, srcs []iter.Seq[*mcp.CatalogItem], n int) (_ []chat.Completion, ok bool) {
	out := make([]chat.Completion, 0, n)
	for _, src := range srcs {
		for it := range src {
			if len(out)%mentionListChunk == 0 && ctx.Err() != nil {
				return nil, false
			}
			out = append(out, chat.MentionCompletion(it))
		}
	}
	return out, true
}

// mentionsListed is the mention popup's items for the @ word of line at
// start, built off the update path.
type mentionsListed struct {
	line  string
	start int
	items []chat.Completion
}

// openMentions opens the @-mention popup on the word the input ends with.
// Its items are built off the update path when there are
// chat.AsyncMentions or more (at 100,000 resources, 7-24 ms before the
// echo of the @), and the popup opens when they arrive.
func (m *Model) openMentions() tea.Cmd {
	line := m.input.Value()
	start := chat.MentionWord(line)
	m.closeCompletion()
	srcs, n := m.mentionSources()
	if n == 0 {
		return common.ReportWarn("no resources to mention yet: the servers' catalogs are still loading or list none")
	}
	if n < chat.AsyncMentions {
		items, _ := mentionCompletions(context.Background(), srcs, n)
		m.comp.ShowMentions(line, start, items)
		return nil
	}
	ctx, cancel := context.WithCancel(m.com.Ctx)
	m.mentionList, m.stopMentionList = m.com.NewID(), cancel
	return common.Deliver(common.OwnerChat, m.mentionList, func() tea.Msg {
		items, ok := mentionCompletions(ctx, srcs, n)
		if !ok {
			return nil
		}
		return mentionsListed{line: line, start: start, items: items}
	})
}

// closeCompletion closes the completion popup, and one still being built
// for an @.
func (m *Model) closeCompletion() {
	m.comp.Close()
	m.dropMentionList()
}

// dropMentionList stops building the @ popup's items, if it is: the
// build answers nothing.
func (m *Model) dropMentionList() {
	m.mentionList = 0
	if m.stopMentionList != nil {
		m.stopMentionList()
		m.stopMentionList = nil
	}
}

// handleMentionsListed opens the popup on the items built for it, on
// the @ word as typed since (ranked off the update path), unless that
// word is gone or another popup opened meanwhile.
func (m *Model) handleMentionsListed(id common.RequestID, msg mentionsListed) tea.Cmd {
	if id != m.mentionList {
		return nil
	}
	m.dropMentionList() // it is done: this releases its context
	now := m.input.Value()
	if m.comp.IsOpen() || chat.MentionWord(now) != msg.start || now[:msg.start] != msg.line[:msg.start] {
		return nil
	}
	m.comp.ShowMentions(now[:msg.start+1], msg.start, msg.items)
	if now == now[:msg.start+1] {
		return nil
	}
	return m.comp.Refilter(now)
}

// openMentionTemplate opens a template's form; submitting it inserts the
// expanded URI as a mention.
func (m *Model) openMentionTemplate(it mcp.CatalogItem) tea.Cmd {
	prefix := m.comp.Prefix()
	m.closeCompletion()
	d := dialog.NewTemplateForm(m.com, it)
	d.ForMention(prefix)
	return m.pushForm(d)
}

// mentionable reports whether @ can mention e in the chat: a resource or
// a template.
func mentionable(e *catalog.Entry) bool {
	return e != nil && (e.Item().Kind == mcp.KindResource || e.Item().Kind == mcp.KindTemplate)
}

// mentionSelected adds the chosen resource's mention to the chat input and
// opens the chat; a template opens its form first.
func (m *Model) mentionSelected() tea.Cmd {
	e := m.catalog.Selected()
	if !mentionable(e) {
		return common.ReportWarn("@ mentions a resource or a template in the chat: choose one on the Resources or Templates tab")
	}
	line := m.input.Value()
	if line != "" && !strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\n") {
		line += " "
	}
	m.setChatMode(true)
	if e.Item().Kind == mcp.KindTemplate {
		d := dialog.NewTemplateForm(m.com, e.Item())
		d.ForMention(line)
		return m.pushForm(d)
	}
	m.input.SetValue(line + chat.NewMention(e.Item().Server, e.Item().URI).String() + " ")
	return nil
}
