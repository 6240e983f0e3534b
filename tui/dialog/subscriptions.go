package dialog

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// SubscriptionsDialog lists every live resource subscription with its
// update count and the time of its last update; enter opens the resource's
// current content, d ends the chosen subscription. It draws from
// common.Subscriptions on every frame, so counts move while it is open.
type SubscriptionsDialog struct {
	dialogBase
	com *common.Common
	cur int
}

// OpenResource reads a resource (by its URI) into the viewer.
type OpenResource struct{ Server, URI string }

func (OpenResource) isAction() {}

// NewSubscriptions is the subscriptions dialog.
func NewSubscriptions(com *common.Common) *SubscriptionsDialog {
	return &SubscriptionsDialog{com: com}
}

func (d *SubscriptionsDialog) ID() string { return "subscriptions" }

// chosen is the subscription under the cursor (ok false: none).
func (d *SubscriptionsDialog) chosen() (common.Subscription, bool) {
	subs := d.com.Subs.List()
	if len(subs) == 0 {
		return common.Subscription{}, false
	}
	d.cur = common.Clamp(d.cur, 0, len(subs)-1)
	return subs[d.cur], true
}

// HandleKey moves the choice, opens and ends subscriptions.
func (d *SubscriptionsDialog) HandleKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	s, ok := d.chosen()
	switch {
	case key.Matches(km, k.Cancel, k.Subscriptions):
		return Close{}
	case key.Matches(km, k.Up):
		d.cur = max(d.cur-1, 0)
	case key.Matches(km, k.Down):
		d.cur++
	case key.Matches(km, k.Accept) && ok:
		return OpenResource{Server: s.Server, URI: s.URI}
	case key.Matches(km, k.EndSubscription) && ok:
		return Cmd{common.RequestSubscribe(s.Server, s.URI, false)}
	}
	return None{}
}

// ShortHelp offers the dialog's keys.
func (d *SubscriptionsDialog) ShortHelp() []key.Binding {
	k := d.com.Keys
	return []key.Binding{k.Up, k.Down, k.Accept, k.EndSubscription, k.Cancel}
}

// Render lists the subscriptions, the chosen one marked.
func (d *SubscriptionsDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 100)
	inner := w - 2
	subs := d.com.Subs.List()
	d.cur = common.Clamp(d.cur, 0, max(len(subs)-1, 0))
	content := []string{""}
	focus := 0
	if len(subs) == 0 {
		content = append(content, " "+st.Muted.Render("No subscriptions. s on a resource, in the catalog or the viewer, follows its changes."))
	}
	for i, s := range subs {
		marker := "  "
		if i == d.cur {
			marker = "› "
			focus = len(content)
		}
		stats := d.com.SubscriptionStats(s)
		name := render.SanitizeLine(s.Server) + "  " + render.SanitizeLine(s.URI)
		room := max(inner-len(stats)-len(marker)-3, 10)
		line := marker + common.Fit(common.Truncate(name, room), room) + "  " + st.Muted.Render(stats)
		if i == d.cur {
			line = st.List.Selected.Render(common.Fit(marker+common.Fit(common.Truncate(name, room), room)+"  "+stats, inner))
		}
		content = append(content, line)
	}
	hint := fmt.Sprintf("enter opens the current content · d ends it · esc closes · at most %d a server", common.MaxSubscriptionsPerServer)
	content = append(content, "")
	for _, l := range common.WrapWords(hint, max(inner-2, 10)) {
		content = append(content, " "+st.Dialog.Hint.Render(l))
	}
	return frameDialog(d.com, fmt.Sprintf("Subscriptions (%d)", len(subs)), content, w, maxH, focus)
}
