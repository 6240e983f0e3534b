// Package chat is the conversation: the transcript (rendered once per
// width), the model's turn streamed from an llm.Agent and coalesced per
// frame, the input line with its history and $EDITOR, completion of the
// `.` commands and @-mentions, the permission rules the model's calls
// pass, and the saving of each finished turn. The `.` command table lives
// here as data; the root runs the commands.
package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// coalesceWindow is how long one read of the model's stream gathers events
// before they reach Update: tokens arrive as a frame's worth (16 ms), so a
// fast model re-renders the tail at most about 60 times a second.
const coalesceWindow = 16 * time.Millisecond

// chatPane is the conversation: the transcript, its scroll position, and
// the model turn in flight. It owns the llm.Conversation; while a turn
// runs, the agent's goroutine owns it and the pane does not read it.
type Pane struct {
	com *common.Common
	tr  transcript
	// appCtx are the open apps' model contexts for the next turn
	// (appcontext.go).
	appCtx []appContext

	width, height int
	// top is the first transcript line shown; follow keeps the view at the
	// bottom as text arrives, until the person scrolls up.
	top    int
	follow bool
	// focused: keys go to the transcript (selecting tool blocks), not the input.
	focused bool
	sel     int

	conv     *llm.Conversation
	model    llm.Model
	modelErr error
	maxSteps int
	decide   llm.DecideFunc // the tool-call rules (nil: allow all)
	// permits, when set, replace decide: the config's rules, and the
	// person is asked about every call they do not allow.
	permits *Permits

	// The running turn.
	turn    common.RequestID
	running bool
	cancel  context.CancelFunc
	// cancelling: esc cancelled the turn; finish says so.
	cancelling bool
	// reported: the turn's end was already explained (an error event).
	reported bool
	cur      *chatItem
	tools    map[string]*chatItem
	// mdJob is the long answer's Markdown render in flight (mdasync.go).
	mdJob *mdJob
	// The running turn's streams: events, and calls waiting for the
	// person; asking: a permission dialog is open and reading is paused.
	ch     <-chan llm.Event
	asks   chan *PermissionRequest
	asking bool
	// ask is a call that arrived for the person, until TakeAsk.
	ask *PermissionRequest
	// asked are the arguments of the calls put to the person, by call ID.
	asked   map[string]string
	usage   llm.Usage
	lastReq llm.Usage

	// rec is where the conversation is stored; turnStart is the index of
	// the running turn's first message in conv.
	rec       *SessionRec
	turnStart int
	servers   []string
}

func New(com *common.Common, model llm.Model, modelErr error, maxSteps int) *Pane {
	c := &Pane{com: com, follow: true, sel: -1, conv: llm.NewConversation(), model: model, modelErr: modelErr, maxSteps: maxSteps, rec: &SessionRec{}}
	c.tr = transcript{com: com, md: common.NewMarkdown(com.Theme), asyncMD: common.NewMarkdown(com.Theme)}
	c.greet()
	return c
}

// greet says which model answers, or how to configure one.
func (c *Pane) greet() {
	if c.model == nil {
		c.tr.add(&chatItem{kind: itemNotice, text: noModelText(c.modelErr)})
		return
	}
	c.tr.add(&chatItem{kind: itemNotice, text: "Chatting with " + c.model.Name() + ". Lines starting with . are commands (.help lists them); tab completes them."})
}

// noModelText explains how to configure a model, from the llm error's Fix.
func noModelText(err error) string {
	msg := "No model is configured, so the chat cannot answer; the catalog, the viewer and every . command still work."
	var le *llm.Error
	switch {
	case errors.As(err, &le) && le.Fix != "":
		msg += " " + sentence(le.Fix)
	case err != nil:
		msg += " " + sentence(err.Error())
	default:
		msg += " Pass --model provider/name (e.g. openai/gpt-4.1 with $OPENAI_API_KEY set), or --base-url for any OpenAI-compatible endpoint."
	}
	return msg
}

// sentence makes an error's lower-case clause ("to use one, export ...")
// stand on its own after a full stop: capitalised, ending in a period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// SetSize sets the pane's size, and starts rendering a long answer's
// Markdown at the width (the root calls it after every Update).
func (c *Pane) SetSize(w, h int) tea.Cmd {
	c.width, c.height = w, h
	c.clampScroll()
	return c.markdownCmd()
}

// SetModel replaces the model for the next turns.
func (c *Pane) SetModel(m llm.Model) {
	c.model, c.modelErr = m, nil
}

// ModelName is "provider/name", or "" without a model.
func (c *Pane) ModelName() string {
	if c.model == nil {
		return ""
	}
	return c.model.Name()
}

// Running reports whether a turn is in flight.
func (c *Pane) Running() bool { return c.running }

// HandleProgress shows a running call's progress in its block.
func (c *Pane) HandleProgress(p mcp.Progress) {
	id, ok := strings.CutPrefix(p.Owner, llm.CallOwner(""))
	if it := c.tools[id]; ok && it != nil && it.running {
		it.progress = &p
		it.touch()
	}
}

// Tick advances the spinner of running blocks whose progress has no total.
func (c *Pane) Tick(frame int) {
	c.tr.frame = frame
	for _, it := range c.tools {
		if it.running && it.progress != nil && it.progress.Total <= 0 {
			it.touch()
		}
	}
}

// Notice adds a line of information to the transcript.
func (c *Pane) Notice(text string) {
	c.tr.add(&chatItem{kind: itemNotice, text: text})
	c.stick()
}

// Error adds an error to the transcript.
func (c *Pane) Error(text string) {
	c.tr.add(&chatItem{kind: itemError, text: text})
	c.stick()
}

// Table adds preformatted lines (a .list table, .help) to the transcript.
func (c *Pane) Table(lines []string) {
	c.tr.add(&chatItem{kind: itemTable, text: strings.Join(lines, "\n")})
	c.stick()
}

// Rows adds a table of two columns (name, description) to the transcript,
// drawn at the pane's width with the descriptions wrapped, then the notes
// under it, wrapped too.
func (c *Pane) Rows(rows [][]string, notes ...string) {
	c.tr.add(&chatItem{kind: itemTable, rows: rows, text: strings.Join(notes, "\n")})
	c.stick()
}

// Clear empties the transcript and the conversation, and greets again.
func (c *Pane) Clear() error {
	if c.running {
		return errors.New("a turn is running: press esc to cancel it, then .clear")
	}
	c.conv = llm.NewConversation()
	c.rec = &SessionRec{}
	c.tr.items = nil
	c.usage, c.lastReq = llm.Usage{}, llm.Usage{}
	c.sel, c.top, c.follow = -1, 0, true
	c.greet() // a new conversation starts as the first did
	return nil
}

// turnEventsMsg carries the events one read of a turn's stream gathered;
// closed means the stream ended and the conversation is the pane's again.
type turnEventsMsg struct {
	ch     <-chan llm.Event
	events []llm.Event
	closed bool
	// ask is a call waiting for the person's permission; the turn reads on
	// once it is answered.
	ask *PermissionRequest
}

// Submit sends text as the person's turn. It is never parsed as a command:
// both typed chat and a prompt's result come here.
func (c *Pane) Submit(text string) tea.Cmd { return c.SubmitWith(text, nil) }

// SubmitWith sends text with the resources its @-mentions named: the model
// reads each attachment after the text; the transcript shows the text and
// one line per attachment.
func (c *Pane) SubmitWith(text string, atts []MentionAttachment) tea.Cmd {
	if c.running {
		return common.ReportWarn("a turn is running: wait for it, or press esc to cancel it")
	}
	c.tr.add(&chatItem{kind: itemUser, text: text})
	if c.model != nil {
		atts = append(atts, c.takeAppContexts()...)
	}
	for _, a := range atts {
		c.tr.add(attachmentChip(a.name, a.body))
	}
	text, marks := withAttachments(text, atts)
	c.stick()
	if c.model == nil {
		c.tr.add(&chatItem{kind: itemNotice, text: noModelText(c.modelErr)})
		return nil
	}
	c.turnStart = len(c.conv.Messages)
	c.conv.AddUser(text)
	c.conv.Messages[len(c.conv.Messages)-1].Attachments = marks
	c.turn = c.com.NewID()
	c.running = true
	c.tools = map[string]*chatItem{}
	c.asked = map[string]string{}
	c.cur = c.tr.add(&chatItem{kind: itemAssistant, model: c.model.Name(), streaming: true})
	ctx, cancel := context.WithCancel(c.com.Ctx)
	c.cancel = cancel
	hidden := map[string]bool{}
	for k, v := range c.com.Hidden {
		hidden[k] = v
	}
	decide := c.decide
	c.asks, c.asking = nil, false
	if cats, ok := c.com.ModelRT.(llm.Catalogs); ok && c.permits != nil {
		c.asks = make(chan *PermissionRequest)
		decide = c.permits.decider(cats, c.asks)
	}
	agent := llm.NewAgent(c.model, hiddenTools{ModelRuntime: c.com.ModelRT, hidden: hidden}, llm.Options{MaxSteps: c.maxSteps, Decide: decide, PreferTasks: true})
	conv, id, asks := c.conv, c.turn, c.asks
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		ch := agent.Start(ctx, conv)
		return readTurn(ch, asks)
	})
}

// readTurnCmd re-arms the read of a turn's stream.
func readTurnCmd(id common.RequestID, ch <-chan llm.Event, asks <-chan *PermissionRequest) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg { return readTurn(ch, asks) })
}

// readTurn blocks for the next event (or a call waiting for permission),
// then gathers what else arrives within coalesceWindow.
func readTurn(ch <-chan llm.Event, asks <-chan *PermissionRequest) turnEventsMsg {
	msg := turnEventsMsg{ch: ch}
	// Wait for the first event without a deadline, then gather what comes
	// within coalesceWindow of it.
	var window <-chan time.Time
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				msg.closed = true
				return msg
			}
			msg.events = append(msg.events, e)
			if window == nil {
				timer := time.NewTimer(coalesceWindow)
				defer timer.Stop()
				window = timer.C
			}
		case req := <-asks:
			msg.ask = req
			return msg
		case <-window:
			return msg
		}
	}
}

// resumeAfterAsk reads on in the turn once a permission request is
// answered.
func (c *Pane) resumeAfterAsk() tea.Cmd {
	if !c.running || !c.asking {
		return nil
	}
	c.asking = false
	return readTurnCmd(c.turn, c.ch, c.asks)
}

// CancellingText is the status line's word while a cancelled turn ends,
// and CancelledText the transcript's once it has: the same whichever key
// (esc or ctrl+c) cancelled it.
const (
	CancellingText = "cancelling the turn: the servers are told to stop"
	CancelledText  = "cancelled by you: the interrupted answer was not recorded; send your message again to retry"
)

// Cancel ends the running turn (esc or ctrl+c). The agent records no half turn.
func (c *Pane) Cancel() bool {
	if !c.running || c.cancel == nil {
		return false
	}
	c.cancelling = true
	c.cancel()
	return true
}

// HandleEvents applies a turn's events and reads on.
func (c *Pane) HandleEvents(id common.RequestID, msg turnEventsMsg) tea.Cmd {
	if id != c.turn {
		return nil // a turn that was replaced: its goroutine still ends on cancel
	}
	c.ch = msg.ch
	for _, e := range msg.events {
		c.apply(e)
	}
	if msg.ask != nil {
		// A denied call never starts: its block takes the arguments from here.
		c.asked[msg.ask.Call.ID] = msg.ask.Call.Arguments
		c.stick()
		c.asking = true // reading resumes when the person answers
		return nil
	}
	if msg.closed {
		for id := range c.tools {
			c.com.Progress.Done(llm.CallOwner(id))
		}
		c.finish()
		// The agent keeps the conversation well-formed whatever happened,
		// so what it holds past turnStart is a whole turn: store it.
		return c.SaveTurn(append([]llm.Message(nil), c.conv.Messages[min(c.turnStart, len(c.conv.Messages)):]...))
	}
	c.stick()
	return readTurnCmd(id, msg.ch, c.asks)
}

// apply applies one event to the transcript.
func (c *Pane) apply(e llm.Event) {
	switch e := e.(type) {
	case llm.TextDelta:
		if c.cur == nil || !c.cur.streaming {
			c.cur = c.tr.add(&chatItem{kind: itemAssistant, model: c.ModelName(), streaming: true})
		}
		appendTo(&c.cur.textBuf, &c.cur.text, e.Text)
		c.cur.touch()
	case llm.ReasoningDelta:
		if c.cur != nil && c.cur.streaming {
			appendTo(&c.cur.reasoningBuf, &c.cur.reasoning, e.Text)
			c.cur.touch()
		}
	case llm.ToolCallStarted:
		c.endText()
		it := c.tr.add(&chatItem{kind: itemTool, callID: e.Call.ID, name: e.Call.Name, args: e.Call.Arguments, running: true, decision: e.Decision})
		c.tools[e.Call.ID] = it
		c.com.Progress.Begin(llm.CallOwner(e.Call.ID))
	case llm.ToolCallFinished:
		it := c.tools[e.CallID]
		if it == nil && e.Denied {
			// A refused call never started: its block shows the refusal.
			c.endText()
			it = c.tr.add(&chatItem{kind: itemTool, callID: e.CallID, name: e.Name, args: c.asked[e.CallID]})
			c.tools[e.CallID] = it
		}
		c.com.Progress.Done(llm.CallOwner(e.CallID))
		if it != nil {
			it.settle(e.IsError, e.Denied, e.Summary, e.Bytes, e.Duration, e.Decision)
		}
	case llm.UsageReport:
		c.lastReq = e.Usage
		c.usage = c.usage.Add(e.Usage)
	case llm.TooManyToolCalls:
		c.endText()
		c.tr.add(&chatItem{kind: itemNotice, text: e.Text()})
	case llm.Retrying:
		c.tr.add(&chatItem{kind: itemNotice, text: fmt.Sprintf("%s: retrying in %s (retry %d of %d)", render.SanitizeLine(e.Reason), e.Wait.Round(time.Millisecond), e.Attempt, e.MaxRetries)})
	case llm.ErrorEvent:
		c.endText()
		if c.cancelling && e.Kind == llm.KindCancelled {
			// The person asked for it, and finish says so in one message
			// whatever the agent managed to report before the stream closed.
			return
		}
		kind := itemError
		if c.cancelling {
			kind = itemNotice // the person asked for it: not an error
		}
		c.tr.add(&chatItem{kind: kind, text: e.Message})
		c.reported = true
	case llm.Done:
		c.endText()
		switch {
		case e.Reason == llm.StopCancelled:
			c.cancelling = true // finish says so
		case e.Reason == llm.StopStepLimit:
			c.tr.add(&chatItem{kind: itemNotice, text: fmt.Sprintf("stopped at the step limit (%d model requests); ask it to continue, or raise max_steps in the config", e.Steps)})
		case e.OverMaxBytes:
			c.tr.add(&chatItem{kind: itemNotice, text: llm.OverMaxBytesText()})
		case e.Truncated:
			c.tr.add(&chatItem{kind: itemNotice, text: "the answer was cut off at the model's output limit; ask it to continue"})
		}
	}
}

// endText ends the streaming assistant item; an empty one is dropped.
func (c *Pane) endText() {
	if c.cur == nil || !c.cur.streaming {
		return
	}
	c.cur.streaming = false
	c.cur.touch()
	// The builders go, and the slack their doubling left with them.
	c.cur.text, c.cur.reasoning = strings.Clone(c.cur.text), strings.Clone(c.cur.reasoning)
	c.cur.textBuf, c.cur.reasoningBuf = nil, nil
	if !asyncMarkdown(c.cur) {
		c.cur.live = nil // the finished answer renders whole, now
	}
	if strings.TrimSpace(c.cur.text) == "" && c.cur.reasoning == "" {
		items := c.tr.items
		for i := len(items) - 1; i >= 0; i-- {
			if items[i] == c.cur {
				c.tr.items = append(items[:i:i], items[i+1:]...)
				break
			}
		}
	}
	c.cur = nil
}

// finish runs when the stream closed: the conversation is the pane's
// again, and the tool blocks get their full results from it.
func (c *Pane) finish() {
	c.endText()
	c.running = false
	if c.cancelling && !c.reported {
		// Events after the cancel may be dropped by the agent, Done included.
		c.tr.add(&chatItem{kind: itemNotice, text: CancelledText})
	}
	c.cancelling, c.reported = false, false
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
	for _, m := range c.conv.Messages {
		for _, r := range m.ToolResults {
			it := c.tools[r.CallID]
			if it == nil {
				continue
			}
			if it.result == "" {
				it.result = r.Content
				it.touch()
			}
			if it.running {
				// A cancel can drop the call's finished event: the stored
				// result is how it ended.
				it.running, it.progress, it.isError = false, nil, r.IsError
				it.summary, _, _ = strings.Cut(r.Content, "\n")
				it.touch()
			}
		}
	}
	for _, it := range c.tools {
		if it.running {
			it.running, it.progress, it.isError, it.summary = false, nil, true, "cancelled before it finished"
			it.touch()
		}
	}
	c.stick()
}

// lines is the transcript's total height at the pane's width.
func (c *Pane) total() int {
	_, n := c.tr.window(c.width, 0, 0)
	return n
}

// stick keeps the view at the bottom while following.
func (c *Pane) stick() {
	if c.follow {
		c.top = max(c.total()-c.height, 0)
	}
}

func (c *Pane) clampScroll() {
	maxTop := max(c.total()-c.height, 0)
	c.top = common.Clamp(c.top, 0, maxTop)
	if c.follow {
		c.top = maxTop
	}
}

// Scroll moves the view by delta lines. Scrolling up stops following;
// reaching the bottom again resumes it.
func (c *Pane) Scroll(delta int) {
	maxTop := max(c.total()-c.height, 0)
	c.top = common.Clamp(c.top+delta, 0, maxTop)
	c.follow = c.top >= maxTop
}

// ScrollToBottom jumps to the end and follows again.
func (c *Pane) ScrollToBottom() {
	c.follow = true
	c.stick()
}

// toolItems are the indexes of the tool blocks, in order.
func (c *Pane) toolItems() []int {
	var out []int
	for i, it := range c.tr.items {
		if it.kind == itemTool {
			out = append(out, i)
		}
	}
	return out
}

// MoveSelection selects the previous (-1) or next (+1) tool block and
// scrolls it into view.
func (c *Pane) MoveSelection(dir int) {
	tools := c.toolItems()
	if len(tools) == 0 {
		return
	}
	pos := -1
	for i, t := range tools {
		if t == c.sel {
			pos = i
		}
	}
	switch {
	case pos < 0 && dir < 0:
		pos = len(tools) - 1
	case pos < 0:
		pos = 0
	default:
		pos = common.Clamp(pos+dir, 0, len(tools)-1)
	}
	c.sel = tools[pos]
	c.reveal(c.sel)
}

// reveal scrolls item i into view.
func (c *Pane) reveal(i int) {
	top := c.tr.itemTop(c.width, i)
	n := len(c.tr.itemLines(c.tr.items[i], c.width))
	switch {
	case top < c.top, n > c.height:
		c.top = top
	case top+n > c.top+c.height:
		c.top = max(top+n-c.height, 0)
	}
	c.follow = c.top >= max(c.total()-c.height, 0)
}

// Selected is the selected tool block, or nil.
func (c *Pane) Selected() *chatItem {
	if c.sel < 0 || c.sel >= len(c.tr.items) {
		return nil
	}
	return c.tr.items[c.sel]
}

// ToggleSelected expands or collapses the selected tool block.
func (c *Pane) ToggleSelected() {
	if it := c.Selected(); it != nil {
		it.expanded = !it.expanded
		it.touch()
		c.reveal(c.sel)
	}
}

// Click selects (and toggles) the tool block at row y of the pane.
func (c *Pane) Click(y int) {
	i := c.tr.itemAt(c.width, c.top+y)
	if i >= 0 && c.tr.items[i].kind == itemTool {
		if c.sel == i {
			c.ToggleSelected()
			return
		}
		c.sel = i
	}
}

// Render draws the pane: exactly height lines of width.
func (c *Pane) Render(int) []string {
	lines, _ := c.tr.window(c.width, c.top, c.height)
	if c.focused && c.sel >= 0 {
		top := c.tr.itemTop(c.width, c.sel)
		if r := top - c.top; r >= 0 && r < len(lines) {
			lines[r] = c.com.Styles.Accent.Bold(true).Render("›") + common.CutCells(lines[r], 1, c.width)
		}
	}
	return common.PadLines(lines, c.width, c.height)
}
