package dialog

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// actionSendMentions sends a message with the attachments that were read.
type SendMentions struct{ Msg chat.MentionsRead }

// actionRestoreDraft puts a message back in the input, unsent.
type RestoreDraft struct{ Text string }

func (SendMentions) isAction() {}
func (RestoreDraft) isAction() {}

// mentionFailedDialog says which mentions could not be read; nothing is
// sent until the person sends without them (enter) or cancels (esc: the
// message returns to the input).
type MentionFailedDialog struct {
	dialogBase
	com *common.Common
	msg chat.MentionsRead
	// it opens when the reads end, maybe mid-typing: keys in the first
	// PermissionGrace are ignored.
	grace
}

func (d *MentionFailedDialog) ID() string { return "mention-failed" }

// HandleKey sends without the failed mentions, or cancels.
func (d *MentionFailedDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Accept) || km.String() == "y":
		return SendMentions{d.msg}
	case key.Matches(km, k.Cancel) || km.String() == "n":
		return RestoreDraft{d.msg.Text}
	}
	return None{}
}

// Render lists the failures.
func (d *MentionFailedDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 80)
	inner := w - 2
	content := []string{""}
	for _, f := range d.msg.Failed {
		for _, l := range common.WrapWords(fmt.Sprintf("✗ %s: %v", f.Mention, f.Err), max(inner-2, 10)) {
			content = append(content, " "+st.Error.Render(render.SanitizeLine(l)))
		}
	}
	content = append(content, "")
	for _, l := range common.WrapWords("Nothing was sent. enter/y sends the message without the mentions above · esc/n cancels (the message returns to the input)", max(inner-2, 10)) {
		content = append(content, " "+st.Dialog.Hint.Render(l))
	}
	return frameDialog(d.com, "A mention could not be read", content, w, maxH, -1)
}

// actionInsertMention puts a template's expanded mention in the input.
type InsertMention struct{ Text string }

func (InsertMention) isAction() {}
