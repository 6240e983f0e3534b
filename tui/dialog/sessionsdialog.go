package dialog

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// sessionsMode is what the sessions dialog's keys do.
type sessionsMode int

const (
	modeSessions      sessionsMode = iota // choosing a session
	modeFilter                            // typing a title filter
	modeSearchInput                       // typing a full-text query
	modeHits                              // choosing a search hit
	modeRename                            // typing a new title
	modeConfirmDelete                     // y deletes, anything else keeps
)

// actionOpenSession loads a session into the chat.
type OpenSession struct{ ID string }

// actionSessionDeleted: a session is gone; cmd lists the rest.
type SessionDeleted struct {
	ID  string
	Cmd tea.Cmd
}

func (OpenSession) isAction()    {}
func (SessionDeleted) isAction() {}

// sessionsListedMsg is the stored sessions, newest first.
type sessionsListedMsg struct {
	list []store.Session
	err  error
}

// sessionsSearchedMsg is a full-text search's answer.
type sessionsSearchedMsg struct {
	res store.SearchResult
	err error
}

// sessionChangedMsg reports a rename or a delete.
type sessionChangedMsg struct {
	id      string
	deleted bool
	err     error
}

// sessionsDialog lists the stored sessions (title, date, message count),
// filters them by title, searches every session's text, and opens, renames
// or deletes (after a confirmation) the chosen one. Every store call runs
// in a command; answers reach this dialog as its results (wherever it is
// in the stack), and a list or search that is not the latest is dropped.
type SessionsDialog struct {
	dialogBase
	com *common.Common
	// current is the open conversation's session, marked in the list.
	current *chat.SessionRec

	mode  sessionsMode
	input common.TextInput
	// pending is the list or search awaited.
	pending common.RequestID
	loaded  bool
	all     []store.Session
	filter  string
	cur     int
	hits    []store.Hit
	cover   string
	hitCur  int
	status  string
}

func (d *SessionsDialog) ID() string { return "sessions" }

// shown are the sessions whose titles contain the filter.
func (d *SessionsDialog) shown() []store.Session {
	if d.filter == "" {
		return d.all
	}
	f := strings.ToLower(d.filter)
	var out []store.Session
	for _, s := range d.all {
		if strings.Contains(strings.ToLower(s.Title), f) {
			out = append(out, s)
		}
	}
	return out
}

// selected is the chosen session, or nil.
func (d *SessionsDialog) selected() *store.Session {
	list := d.shown()
	if d.cur < 0 || d.cur >= len(list) {
		return nil
	}
	return &list[d.cur]
}

// reload lists the sessions again.
func (d *SessionsDialog) reload() tea.Cmd {
	st := d.com.Store
	if st == nil {
		return nil
	}
	d.pending = d.com.NewID()
	ctx := d.com.Ctx
	return common.Deliver(d.Owner(), d.pending, func() tea.Msg {
		list, err := st.List(ctx, "", 0)
		return sessionsListedMsg{list: list, err: err}
	})
}

func (d *SessionsDialog) searchCmd(query string) tea.Cmd {
	d.pending = d.com.NewID()
	st, ctx := d.com.Store, d.com.Ctx
	return common.Deliver(d.Owner(), d.pending, func() tea.Msg {
		res, err := st.Search(ctx, query, store.MaxSearchHits)
		return sessionsSearchedMsg{res: res, err: err}
	})
}

func (d *SessionsDialog) changeCmd(id string, do func(ctx context.Context) error, deleted bool) tea.Cmd {
	ctx := d.com.Ctx
	return common.Deliver(d.Owner(), d.com.NewID(), func() tea.Msg {
		return sessionChangedMsg{id: id, deleted: deleted, err: do(ctx)}
	})
}

// startInput focuses the text input in a mode, filled with value.
func (d *SessionsDialog) startInput(mode sessionsMode, prompt, value string) {
	d.mode = mode
	d.input = common.NewTextInput(d.com, prompt, "")
	d.input.SetValue(value)
	d.input.CursorEnd()
	d.input.Focus()
}

// HandleResult applies the store's answers.
func (d *SessionsDialog) HandleResult(r common.Result) Action {
	switch msg := r.Msg.(type) {
	case sessionsListedMsg:
		if r.ID == d.pending {
			d.loaded, d.all = true, msg.list
			if msg.err != nil {
				d.status = msg.err.Error()
			}
			d.cur = common.Clamp(d.cur, 0, max(len(d.shown())-1, 0))
		}
	case sessionsSearchedMsg:
		if r.ID == d.pending {
			if msg.err != nil {
				d.status = msg.err.Error()
				d.mode = modeSessions
				return None{}
			}
			d.hits, d.cover, d.hitCur, d.mode, d.status = msg.res.Hits, msg.res.Coverage, 0, modeHits, ""
		}
	case sessionChangedMsg:
		if msg.err != nil {
			d.status = msg.err.Error()
			return Cmd{d.reload()}
		}
		if msg.deleted {
			d.status = "deleted"
			return SessionDeleted{ID: msg.id, Cmd: d.reload()}
		}
		d.status = "renamed"
		return Cmd{d.reload()}
	}
	return None{}
}

// HandleKey applies the keys of the current mode.
func (d *SessionsDialog) HandleKey(km tea.KeyMsg) Action {
	switch d.mode {
	case modeFilter, modeSearchInput, modeRename:
		return d.handleInputKey(km)
	case modeConfirmDelete:
		d.mode = modeSessions
		if s := d.selected(); s != nil && key.Matches(km, d.com.Keys.Confirm) {
			st, id := d.com.Store, s.ID
			return Cmd{d.changeCmd(id, func(ctx context.Context) error { return st.Delete(ctx, id) }, true)}
		}
		d.status = "kept"
		return None{}
	case modeHits:
		return d.handleHitsKey(km)
	}
	return d.handleListKey(km)
}

func (d *SessionsDialog) handleListKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel) && d.filter != "":
		d.filter, d.cur = "", 0
	case key.Matches(km, k.Cancel, k.Sessions):
		return Close{}
	case key.Matches(km, k.Up):
		d.cur = max(d.cur-1, 0)
	case key.Matches(km, k.Down):
		d.cur = min(d.cur+1, max(len(d.shown())-1, 0))
	case d.com.Store == nil:
	case key.Matches(km, k.Accept):
		if s := d.selected(); s != nil {
			return OpenSession{ID: s.ID}
		}
	case key.Matches(km, k.SessionFilter):
		d.startInput(modeFilter, "title: ", d.filter)
	case key.Matches(km, k.SessionSearch):
		d.startInput(modeSearchInput, "search: ", "")
	case key.Matches(km, k.SessionRename):
		if s := d.selected(); s != nil {
			d.startInput(modeRename, "new title: ", s.Title)
		}
	case key.Matches(km, k.SessionDelete):
		if d.selected() != nil {
			d.mode = modeConfirmDelete
		}
	}
	return None{}
}

func (d *SessionsDialog) handleInputKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	d.status = ""
	switch {
	case key.Matches(km, k.Cancel):
		if d.mode == modeFilter {
			d.filter, d.cur = "", 0
		}
		d.mode = modeSessions
		return None{}
	case km.Type == tea.KeyUp && d.mode == modeFilter:
		d.cur = max(d.cur-1, 0)
		return None{}
	case km.Type == tea.KeyDown && d.mode == modeFilter:
		d.cur = min(d.cur+1, max(len(d.shown())-1, 0))
		return None{}
	case key.Matches(km, k.Accept):
		value := strings.TrimSpace(d.input.Value())
		switch d.mode {
		case modeFilter:
			d.mode = modeSessions
		case modeSearchInput:
			if value == "" {
				d.mode = modeSessions
				return None{}
			}
			d.status = "searching…"
			return Cmd{d.searchCmd(value)}
		case modeRename:
			d.mode = modeSessions
			if s := d.selected(); s != nil && value != "" && value != s.Title {
				st, id := d.com.Store, s.ID
				return Cmd{d.changeCmd(id, func(ctx context.Context) error { return st.Rename(ctx, id, value) }, false)}
			}
		}
		return None{}
	}
	cmd := d.input.Update(km)
	if d.mode == modeFilter {
		d.filter = d.input.Value()
		d.cur = 0
	}
	if cmd != nil {
		return Cmd{cmd}
	}
	return None{}
}

func (d *SessionsDialog) handleHitsKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	switch {
	case key.Matches(km, k.Cancel):
		d.mode, d.hits = modeSessions, nil
	case key.Matches(km, k.Sessions):
		return Close{}
	case key.Matches(km, k.Up):
		d.hitCur = max(d.hitCur-1, 0)
	case key.Matches(km, k.Down):
		d.hitCur = min(d.hitCur+1, max(len(d.hits)-1, 0))
	case key.Matches(km, k.SessionSearch):
		d.startInput(modeSearchInput, "search: ", "")
	case key.Matches(km, k.Accept):
		if d.hitCur < len(d.hits) {
			return OpenSession{ID: d.hits[d.hitCur].SessionID}
		}
	}
	return None{}
}

// Render draws the list (or the search hits), the input of the mode, and
// a hint line.
func (d *SessionsDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 100)
	inner := w - 2
	content := []string{""}
	if d.com.Store == nil {
		msg := "Conversations are not being saved in this run"
		if d.com.StoreErr != nil {
			msg += ": " + d.com.StoreErr.Error()
		}
		for _, l := range common.WrapWords(render.Sanitize(msg), inner-2) {
			content = append(content, " "+st.Error.Render(l))
		}
		content = append(content, "", " "+st.Dialog.Hint.Render("esc closes"))
		return frameDialog(d.com, "Sessions", content, w, maxH, -1)
	}
	switch d.mode {
	case modeFilter, modeSearchInput, modeRename:
		d.input.SetWidth(max(inner-4-common.WidthOf(d.input.Prompt), 5))
		content = append(content, " "+common.Fit(d.input.View(), inner-2), "")
	case modeHits:
		content = append(content, " "+st.Muted.Render(common.Truncate(render.SanitizeLine(d.cover), inner-2)), "")
	default:
		if d.filter != "" {
			content = append(content, " "+st.Muted.Render(common.Truncate("title: "+render.SanitizeLine(d.filter), inner-2)), "")
		}
	}
	focus := -1
	if d.mode == modeHits {
		for i, h := range d.hits {
			if i == d.hitCur {
				focus = len(content)
			}
			content = append(content, d.hitLines(h, i == d.hitCur, inner)...)
		}
		if len(d.hits) == 0 {
			content = append(content, " "+st.Muted.Render("no message matches"))
		}
	} else {
		list := d.shown()
		dateW, countW := 16, 12
		titleW := max(inner-dateW-countW-9, 10)
		for i, s := range list {
			sel, open := " ", " "
			if i == d.cur {
				sel = "›"
			}
			if d.current != nil && d.current.SessionID() == s.ID {
				open = "●"
			}
			count := fmt.Sprintf("%d messages", s.Messages)
			if s.Messages == 1 {
				count = "1 message"
			}
			row := sel + open + " " + common.Fit(render.SanitizeLine(s.Title), titleW) + "  " + common.Fit(d.com.FormatTime(s.Updated), dateW) + "  " + common.Fit(count, countW)
			if i == d.cur {
				focus = len(content)
				content = append(content, " "+st.List.Selected.Render(common.Fit(row, inner-2)))
			} else {
				content = append(content, " "+row)
			}
		}
		switch {
		case !d.loaded:
			content = append(content, " "+st.Muted.Render("listing…"))
		case len(d.all) == 0:
			content = append(content, " "+st.Muted.Render("no sessions yet: each chat turn is saved, and the first one starts a session"))
		case len(list) == 0:
			content = append(content, " "+st.Muted.Render("no title contains "+render.SanitizeLine(d.filter)))
		}
	}
	content = append(content, "")
	if d.status != "" {
		content = append(content, " "+st.Muted.Render(common.Truncate(render.SanitizeLine(d.status), inner-2)))
	}
	content = append(content, " "+st.Dialog.Hint.Render(common.Truncate(d.hint(), inner-2)))
	return frameDialog(d.com, d.title(), content, w, maxH, focus)
}

func (d *SessionsDialog) title() string {
	if d.mode == modeHits || d.mode == modeSearchInput {
		return "Sessions · search"
	}
	if n := len(d.all); d.loaded {
		if d.filter != "" {
			return fmt.Sprintf("Sessions %d/%d", len(d.shown()), n)
		}
		return fmt.Sprintf("Sessions %d", n)
	}
	return "Sessions"
}

func (d *SessionsDialog) hint() string {
	switch d.mode {
	case modeFilter:
		return "type to filter titles · ↑/↓ choose · enter keeps the filter · esc clears it"
	case modeSearchInput:
		return "words to find in every session's messages · enter searches · esc back"
	case modeRename:
		return "enter renames · esc keeps the title"
	case modeConfirmDelete:
		if s := d.selected(); s != nil {
			return fmt.Sprintf("delete %q and its %d messages? y deletes · any other key keeps it", render.SanitizeLine(s.Title), s.Messages)
		}
	case modeHits:
		return "enter opens the session · s searches again · esc back to the list"
	}
	return "enter opens · / filter · s search · r rename · d delete · esc closes"
}

// hitLines draws one search hit: its session's title, role and date, then
// the snippet.
func (d *SessionsDialog) hitLines(h store.Hit, sel bool, inner int) []string {
	st := d.com.Styles
	head := fmt.Sprintf("%s · %s · %s", render.SanitizeLine(h.Title), h.Role, d.com.FormatTime(h.At))
	snippet := "    " + common.Truncate(render.SanitizeLine(h.Snippet), inner-6)
	if sel {
		return []string{" " + st.List.Selected.Render(common.Fit("› "+head, inner-2)), " " + snippet}
	}
	return []string{"   " + common.Truncate(head, inner-4), " " + st.Muted.Render(snippet)}
}
