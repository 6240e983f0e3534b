package chat

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/tui/common"
)

// Focus gives the transcript the keys (choosing tool blocks); Blur gives
// them back to the input.
func (c *Pane) Focus()        { c.focused = true }
func (c *Pane) Blur()         { c.focused = false }
func (c *Pane) Focused() bool { return c.focused }

// HandleKey moves between tool blocks, expands them and scrolls while the
// transcript has the keys; opening a result is the root's (it owns the
// viewer), so enter is not used here.
func (c *Pane) HandleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := c.com.Keys
	switch {
	case key.Matches(msg, k.CancelTurn) && c.Running():
		c.Cancel()
		return common.ReportInfo(CancellingText), true
	case key.Matches(msg, k.BackToInput), key.Matches(msg, k.SelectBlocks):
		c.focused = false
	case key.Matches(msg, k.Up):
		c.MoveSelection(-1)
	case key.Matches(msg, k.Down):
		c.MoveSelection(1)
	case key.Matches(msg, k.Expand):
		c.ToggleSelected()
	case key.Matches(msg, k.PageUp):
		c.Scroll(-max(c.height-2, 1))
	case key.Matches(msg, k.PageDown):
		c.Scroll(max(c.height-2, 1))
	case key.Matches(msg, k.Top):
		c.Scroll(-c.total())
	case key.Matches(msg, k.Bottom):
		c.ScrollToBottom()
	default:
		return nil, false
	}
	return nil, true
}

// HandleResult takes the answers to the chat's own requests: a turn's
// events, a turn's save, an "always" rule's save, a long answer's
// Markdown. A call waiting for the person's permission is kept for
// TakeAsk. An answer that ended starts its Markdown's render.
func (c *Pane) HandleResult(r common.Result) tea.Cmd {
	var cmd tea.Cmd
	switch msg := r.Msg.(type) {
	case turnEventsMsg:
		if msg.ask != nil && r.ID == c.turn {
			c.ask = msg.ask
		}
		cmd = c.HandleEvents(r.ID, msg)
	case turnSavedMsg:
		cmd = c.HandleSaved(msg)
	case permissionSavedMsg:
		cmd = c.handlePermissionSaved(msg)
	case markdownRendered:
		return c.handleMarkdown(r.ID, msg)
	}
	return tea.Batch(cmd, c.markdownCmd())
}

// TakeAsk returns the call waiting for the person's permission, once.
func (c *Pane) TakeAsk() *PermissionRequest {
	a := c.ask
	c.ask = nil
	return a
}

// Turn is the running (or last) turn's id.
func (c *Pane) Turn() common.RequestID { return c.turn }

// Model is the chat's model (nil without one); ModelErr says why there is none.
func (c *Pane) Model() llm.Model  { return c.model }
func (c *Pane) ModelErr() error   { return c.modelErr }
func (c *Pane) Usage() llm.Usage  { return c.usage }
func (c *Pane) Following() bool   { return c.follow }
func (c *Pane) Height() int       { return c.height }
func (c *Pane) Cancelling() bool  { return c.cancelling }
func (c *Pane) Servers() []string { return c.servers }

// Session is where the conversation is stored.
func (c *Pane) Session() *SessionRec { return c.rec }

// ForgetSession starts a new session with the next turn (the open one was
// deleted).
func (c *Pane) ForgetSession() { c.rec = &SessionRec{} }

// SetServers replaces the servers the chat offers (after a config
// reload); the model's declarations follow at its next request.
func (c *Pane) SetServers(servers []string) { c.servers = servers }

// SetRules sets the servers the chat offers and its tool-call rules:
// decide, or the config's permissions (asking about the rest) saved to
// configPath.
func (c *Pane) SetRules(servers []string, decide llm.DecideFunc, perms *llm.Permissions, configPath string) {
	c.servers, c.decide = servers, decide
	if perms != nil {
		c.permits = NewPermits(*perms, configPath)
	}
}

// CanPersist reports whether an "always" answer can be saved (there is a
// config file of the person's).
func (c *Pane) CanPersist() bool { return c.permits != nil && c.permits.source != "" }

// SelectedResult is the selected tool block's name and full result
// ("" while the turn runs), and whether a block is selected.
func (c *Pane) SelectedResult() (name, result string, ok bool) {
	it := c.Selected()
	if it == nil {
		return "", "", false
	}
	return it.name, it.result, true
}

var _ common.Pane = (*Pane)(nil)

// NewRequests tracks the chat's requests outside a turn.
func NewRequests(com *common.Common) Requests { return Requests{com: com} }

// NewCompleter is the command line's completion popup, closed.
func NewCompleter(com *common.Common) Completer { return Completer{com: com} }

// Messages are the conversation's messages (read them only while no turn
// runs: the agent owns the conversation during a turn).
func (c *Pane) Messages() []llm.Message { return c.conv.Messages }

// Top is the first transcript line shown.
func (c *Pane) Top() int { return c.top }

// Texts are the transcript items' texts, in order (a tool block's is its
// name): what a test or an export reads of the transcript.
func (c *Pane) Texts() []string {
	out := make([]string, len(c.tr.items))
	for i, it := range c.tr.items {
		out[i] = it.text
		if it.kind == itemTool {
			out[i] = it.name
		}
	}
	return out
}

// FixDurations gives every tool block the duration d, so a screen drawn
// for comparison does not depend on how fast a server answered.
func (c *Pane) FixDurations(d time.Duration) {
	for _, it := range c.tr.items {
		if it.kind == itemTool {
			it.dur = d
			it.touch()
		}
	}
	c.stick()
}

// Label is what the popup shows; Desc the dim text after it; Required
// marks a required argument.
func (it Completion) Label() string  { return it.label }
func (it Completion) Desc() string   { return it.desc }
func (it Completion) Required() bool { return it.required }

// Items are the completions the popup offers now.
func (c *Completer) Items() []Completion { return c.items }

// ReadOn reads on in a turn paused for the person's answer, unanswered
// (after a cancel, the asking call returns on its own).
func (c *Pane) ReadOn() tea.Cmd { return c.resumeAfterAsk() }
