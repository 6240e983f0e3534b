package chat

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// AsyncMarkdownBytes is the length of a finished answer past which its
// Markdown renders off the update and draw path. glamour costs about
// 0.4 µs a byte (more on a loaded machine): an answer of this size renders
// in a few milliseconds, inside a frame, while a 1 MiB one takes about
// 0.4 s and the 4 MiB MaxReplyBytes 1.6 s, during which no key would echo.
// A longer answer draws what it has (the lines it streamed, or its text
// wrapped plain at a new width) until its render at the pane's width
// arrives.
const AsyncMarkdownBytes = MaxStreamingBlockBytes

// InlineMarkdownBytes is how much of the finished answers' Markdown one
// pass over the transcript (an Update's, a View's) renders in place:
// about 15 ms of glamour. At a new width every answer renders again, and
// a session of a hundred 3 KiB answers took 0.36 s a resize; past this
// bound the rest render off the draw path as a long answer does, the
// last first.
const InlineMarkdownBytes = 32 << 10

// mdLines are an item's Markdown lines (under its head) rendered off the
// draw path, for the width and the item version they were rendered at.
type mdLines struct {
	w, v  int
	lines []string
}

// mdJob is the one Markdown render in flight: the pane's second renderer
// (glamour's is not safe for two goroutines) belongs to it until its
// result arrives, so there is never more than one render goroutine.
type mdJob struct {
	id   common.RequestID
	it   *chatItem
	w, v int
}

// markdownRendered is a job's answer: the item's lines, unless the
// program ended first (!done).
type markdownRendered struct {
	lines []string
	done  bool
}

// asyncMarkdown reports whether an item's Markdown renders off the draw path.
func asyncMarkdown(it *chatItem) bool {
	return it.kind == itemAssistant && !it.streaming && len(it.text) > AsyncMarkdownBytes
}

// rendered is it's Markdown at width w, if it arrived.
func (it *chatItem) rendered(w int) ([]string, bool) {
	if it.md == nil || it.md.w != w || it.md.v != it.version {
		return nil, false
	}
	return it.md.lines, true
}

// pendingLines are a long finished answer's lines at width w until its
// Markdown arrives: the lines it streamed, at the width they were drawn
// at (the last tokens added, at the cost of the new bytes); else its text
// sanitized and wrapped plain, which costs a few milliseconds a MiB
// against glamour's hundreds, with a line naming the bound.
func (t *transcript) pendingLines(it *chatItem, head []string, w int) []string {
	if la := it.live; la != nil && la.w == w && la.headN == len(head) && strings.HasPrefix(it.text, la.raw) {
		return t.streamingLines(it, head, w)
	}
	it.live = nil
	out := appendPlain(head, common.ExpandTabs(render.Sanitize(it.text)), w)
	note := fmt.Sprintf("this answer is over %d KiB (AsyncMarkdownBytes), so it shows as plain text while its Markdown renders", AsyncMarkdownBytes>>10)
	if !asyncMarkdown(it) {
		note = fmt.Sprintf("the screen renders %d KiB of Markdown at a time (InlineMarkdownBytes), so this answer shows as plain text while its Markdown renders", InlineMarkdownBytes>>10)
	}
	return t.appendNote(out, note, w)
}

// markdownCmd starts the next pending answer's render at the pane's
// width, unless one is in flight: the last answers first (those the screen shows
// when it follows the end). The root calls SetSize after every Update, so
// an answer that ended, a resize and a loaded session all start here.
func (c *Pane) markdownCmd() tea.Cmd {
	if c.mdJob != nil || c.width <= 0 || c.com.Ctx.Err() != nil {
		return nil
	}
	var it *chatItem
	for i := len(c.tr.items) - 1; i >= 0; i-- {
		if x := c.tr.items[i]; x.pending {
			if _, ok := x.rendered(c.width); !ok {
				it = x
				break
			}
		}
	}
	if it == nil {
		return nil
	}
	job := &mdJob{id: c.com.NewID(), it: it, w: c.width, v: it.version}
	c.mdJob = job
	ctx, md, text, w := c.com.Ctx, c.tr.asyncMD, it.text, c.width
	return common.Deliver(common.OwnerChat, job.id, func() tea.Msg {
		if ctx.Err() != nil {
			return markdownRendered{} // the program is ending
		}
		return markdownRendered{lines: expandLineTabs(md.Render(common.ExpandTabs(render.Sanitize(text)), w)), done: true}
	})
}

// handleMarkdown takes a render: its item draws it unless the render is
// stale (another width, the item changed, or the item left the transcript
// with a .clear or a loaded session); then the next render starts.
func (c *Pane) handleMarkdown(id common.RequestID, msg markdownRendered) tea.Cmd {
	job := c.mdJob
	if job == nil || job.id != id {
		return nil
	}
	c.mdJob = nil
	it := job.it
	if job.w == c.width && job.v == it.version && msg.done && slices.Contains(c.tr.items, it) {
		it.md = &mdLines{w: job.w, v: job.v, lines: msg.lines}
		it.live = nil
		it.hasCached = false // the same version, drawn anew
		c.clampScroll()
	}
	return c.markdownCmd()
}
