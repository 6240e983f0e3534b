package common

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is every key binding, as data: the help screen and the help line
// are generated from it, and bindings are enabled or disabled as the state
// changes (matching and help both respect that).
type KeyMap struct {
	// Global.
	Quit, ForceQuit, Help, Servers, Sessions key.Binding
	// Subscriptions lists the followed resources; EndSubscription (in
	// that dialog) ends the chosen one.
	Subscriptions, EndSubscription key.Binding
	FocusNext, FocusPrev           key.Binding
	Tab1, Tab2, Tab3, Tab4, Tab5   key.Binding
	NextTab, PrevTab               key.Binding

	// Moving in any pane.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding

	// Catalog. Mention adds the chosen resource's @-mention to the chat input;
	// SwitchOff switches the selected tool (or, in the servers dialog,
	// server) off or on for the model.
	Open, Filter, Refresh, Mention, SwitchOff key.Binding
	// OpenApp opens the selected ui:// resource (an MCP App) in the browser.
	OpenApp key.Binding

	// Viewer.
	NextPage, PrevPage, Search, NextMatch, PrevMatch key.Binding
	Pattern, ClearPattern, Wrap, Left, Right         key.Binding
	HexToggle, OpenAttachment, Copy, Subscribe, Back key.Binding
	// RawView shows the exact JSON the server sent for the document;
	// Save writes the document (or that JSON) to a file.
	RawView, Save key.Binding

	// Chat.
	Chat, ToggleChat, Send, Newline, Editor, CancelTurn, Complete key.Binding
	SelectBlocks, Expand, OpenResult, BackToInput                 key.Binding
	NextSuggestion, PrevSuggestion, AcceptSuggestion              key.Binding

	// Text inputs, forms and dialogs (never disabled).
	Accept, Cancel, NextField, PrevField, Submit, Toggle, Reconnect key.Binding

	// The server log pane: Logs opens, focuses and closes it from anywhere;
	// the others apply while it has the keys.
	Logs, LogNext, LogPrev, LogOpen, LogBlur, LogTrace key.Binding
	// LogSave and LogCopy save and copy the traced message on the log's
	// bottom line (the protocol view).
	LogSave, LogCopy key.Binding

	// The sessions dialog (never disabled).
	SessionFilter, SessionSearch, SessionRename, SessionDelete, Confirm key.Binding

	// The answers of the dialogs that ask (never disabled).
	Permission PermissionKeys
	Elicit     ElicitKeys
	Sampling   SamplingKeys
	Trust      TrustKeys
	Question   QuestionKeys
}

// ScrollBy is how far a key scrolls a pane whose page is page lines: a
// line, a page, or far enough to reach the top or the bottom (panes
// clamp). ok is false for a key that does not scroll.
func (k *KeyMap) ScrollBy(msg tea.KeyMsg, page int) (delta int, ok bool) {
	const far = 1 << 30 // past any end; an int on 32-bit targets too
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -far, true
	case key.Matches(msg, k.Bottom):
		return far, true
	}
	return 0, false
}

// DefaultKeyMap returns howl's default bindings.
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, helpKey, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
	}
	return &KeyMap{
		Quit:      b([]string{"q"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		Help:      b([]string{"?"}, "?", "help"),
		Servers:   b([]string{"S"}, "S", "servers"),
		Sessions:  b([]string{"ctrl+r"}, "ctrl+r", "sessions"),

		Subscriptions:   b([]string{"U"}, "U", "subscriptions"),
		EndSubscription: b([]string{"d", "delete"}, "d", "end subscription"),
		FocusNext:       b([]string{"tab"}, "tab", "next pane"),
		FocusPrev:       b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Tab1:            b([]string{"1"}, "1", "tools"),
		Tab2:            b([]string{"2"}, "2", "resources"),
		Tab3:            b([]string{"3"}, "3", "templates"),
		Tab4:            b([]string{"4"}, "4", "prompts"),
		Tab5:            b([]string{"5"}, "5", "skills"),
		NextTab:         b([]string{"]", "right", "l"}, "]/→", "next tab"),
		PrevTab:         b([]string{"[", "left", "h"}, "[/←", "previous tab"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+d", " "}, "pgdn", "page down"),
		Top:      b([]string{"home", "g"}, "g", "top"),
		Bottom:   b([]string{"end", "G"}, "G", "bottom"),

		Open:    b([]string{"enter"}, "enter", "open"),
		Filter:  b([]string{"/"}, "/", "filter"),
		Refresh: b([]string{"r"}, "r", "refresh server"),
		// SwitchOff: the model stops (or starts) seeing the selected tool
		// or server, saved in its config entry ("disabledTools", "disabled").
		SwitchOff: b([]string{"X"}, "X", "switch off/on"),
		OpenApp:   b([]string{"o"}, "o", "open app in browser"),

		NextPage:       b([]string{"n"}, "n", "next page"),
		PrevPage:       b([]string{"p"}, "p", "previous page"),
		Search:         b([]string{"/"}, "/", "search"),
		NextMatch:      b([]string{">", "enter"}, ">", "next match"),
		PrevMatch:      b([]string{"<"}, "<", "previous match"),
		Pattern:        b([]string{"f"}, "f", "server-side filter"),
		ClearPattern:   b([]string{"F"}, "F", "clear filter"),
		Wrap:           b([]string{"w"}, "w", "wrap"),
		Left:           b([]string{"left", "h"}, "←/h", "scroll left"),
		Right:          b([]string{"right", "l"}, "→/l", "scroll right"),
		HexToggle:      b([]string{"x"}, "x", "hex/image"),
		OpenAttachment: b([]string{"o"}, "o", "open attachment"),
		Copy:           b([]string{"y"}, "y", "copy"),
		RawView:        b([]string{"R"}, "R", "server JSON"),
		Save:           b([]string{"W"}, "W", "save to file"),
		Back:           b([]string{"esc"}, "esc", "back"),

		Chat:             b([]string{"c"}, "c", "chat"),
		ToggleChat:       b([]string{"ctrl+t"}, "ctrl+t", "chat/catalog"),
		Send:             b([]string{"enter"}, "enter", "send"),
		Newline:          b([]string{"alt+enter", "ctrl+j"}, "alt+enter/ctrl+j", "new line"),
		Editor:           b([]string{"ctrl+o"}, "ctrl+o", "$EDITOR"),
		CancelTurn:       b([]string{"esc"}, "esc", "cancel turn"),
		Complete:         b([]string{"tab"}, "tab", "complete"),
		SelectBlocks:     b([]string{"shift+tab"}, "shift+tab", "tool blocks"),
		Expand:           b([]string{" ", "right", "left"}, "space", "expand/collapse"),
		OpenResult:       b([]string{"enter"}, "enter", "open result"),
		BackToInput:      b([]string{"esc", "tab", "i"}, "esc/i", "back to input"),
		NextSuggestion:   b([]string{"ctrl+n"}, "ctrl+n", "next suggestion"),
		PrevSuggestion:   b([]string{"ctrl+p"}, "ctrl+p", "previous suggestion"),
		AcceptSuggestion: b([]string{"right"}, "→", "accept suggestion"),

		Accept:    b([]string{"enter"}, "enter", "accept"),
		Cancel:    b([]string{"esc"}, "esc", "cancel"),
		NextField: b([]string{"tab", "down"}, "tab/↓", "next field"),
		PrevField: b([]string{"shift+tab", "up"}, "shift+tab/↑", "previous field"),
		Submit:    b([]string{"ctrl+s"}, "ctrl+s", "submit"),
		Toggle:    b([]string{" ", "left", "right"}, "space/←/→", "change choice"),
		Reconnect: b([]string{"r"}, "r", "reconnect"),
		Mention:   b([]string{"@"}, "@", "mention in chat"),
		Subscribe: b([]string{"s"}, "s", "subscribe"),

		Logs:     b([]string{"ctrl+l"}, "ctrl+l", "server log"),
		LogNext:  b([]string{"]", "right"}, "]/→", "next server"),
		LogPrev:  b([]string{"[", "left"}, "[/←", "prev server"),
		LogOpen:  b([]string{"enter"}, "enter", "open in viewer"),
		LogBlur:  b([]string{"esc"}, "esc", "leave log"),
		LogTrace: b([]string{"t"}, "t", "trace requests"),
		LogSave:  b([]string{"w"}, "w", "save message"),
		LogCopy:  b([]string{"y"}, "y", "copy message"),

		SessionFilter: b([]string{"/"}, "/", "filter titles"),
		SessionSearch: b([]string{"s"}, "s", "search text"),
		SessionRename: b([]string{"r"}, "r", "rename"),
		SessionDelete: b([]string{"d"}, "d", "delete"),
		Confirm:       b([]string{"y"}, "y", "yes, delete"),

		Permission: defaultPermissionKeys(),
		Elicit:     defaultElicitKeys(),
		Sampling:   defaultSamplingKeys(),
		Trust:      defaultTrustKeys(),
		Question:   defaultQuestionKeys(),
	}
}

// bindingsByName names every binding for Rebind and for the help screen.
func (k *KeyMap) bindingsByName() map[string]*key.Binding {
	return map[string]*key.Binding{
		"quit": &k.Quit, "force_quit": &k.ForceQuit, "help": &k.Help, "servers": &k.Servers, "sessions": &k.Sessions,
		"subscriptions": &k.Subscriptions, "end_subscription": &k.EndSubscription,
		"session_filter": &k.SessionFilter, "session_search": &k.SessionSearch, "session_rename": &k.SessionRename,
		"session_delete": &k.SessionDelete, "confirm": &k.Confirm,
		"focus_next": &k.FocusNext, "focus_prev": &k.FocusPrev,
		"tab_tools": &k.Tab1, "tab_resources": &k.Tab2, "tab_templates": &k.Tab3, "tab_prompts": &k.Tab4, "tab_skills": &k.Tab5,
		"next_tab": &k.NextTab, "prev_tab": &k.PrevTab,
		"up": &k.Up, "down": &k.Down, "page_up": &k.PageUp, "page_down": &k.PageDown, "top": &k.Top, "bottom": &k.Bottom,
		"open": &k.Open, "filter": &k.Filter, "refresh": &k.Refresh, "mention": &k.Mention, "switch_off": &k.SwitchOff, "open_app": &k.OpenApp,
		"next_page": &k.NextPage, "prev_page": &k.PrevPage, "search": &k.Search, "next_match": &k.NextMatch, "prev_match": &k.PrevMatch,
		"pattern": &k.Pattern, "clear_pattern": &k.ClearPattern, "wrap": &k.Wrap, "left": &k.Left, "right": &k.Right,
		"hex_toggle": &k.HexToggle, "open_attachment": &k.OpenAttachment, "copy": &k.Copy, "raw_view": &k.RawView, "save": &k.Save, "subscribe": &k.Subscribe, "back": &k.Back,
		"accept": &k.Accept, "cancel": &k.Cancel, "next_field": &k.NextField, "prev_field": &k.PrevField,
		"submit": &k.Submit, "toggle": &k.Toggle, "reconnect": &k.Reconnect,
		"chat": &k.Chat, "toggle_chat": &k.ToggleChat, "send": &k.Send, "newline": &k.Newline, "editor": &k.Editor,
		"cancel_turn": &k.CancelTurn, "complete": &k.Complete, "select_blocks": &k.SelectBlocks, "expand": &k.Expand,
		"open_result": &k.OpenResult, "back_to_input": &k.BackToInput,
		"logs": &k.Logs, "log_next": &k.LogNext, "log_prev": &k.LogPrev, "log_open": &k.LogOpen, "log_blur": &k.LogBlur, "log_trace": &k.LogTrace,
		"log_save": &k.LogSave, "log_copy": &k.LogCopy,
		"next_suggestion": &k.NextSuggestion, "prev_suggestion": &k.PrevSuggestion, "accept_suggestion": &k.AcceptSuggestion,
	}
}

// Rebind replaces the keys of named bindings, e.g. {"quit": ["q", "Q"]}.
// An unknown name or an empty key list is an error naming the valid names;
// nothing is changed unless every entry is valid.
func (k *KeyMap) Rebind(bindings map[string][]string) error {
	byName := k.bindingsByName()
	var bad []string
	for name, keys := range bindings {
		if _, ok := byName[name]; !ok {
			bad = append(bad, fmt.Sprintf("unknown binding %q", name))
		} else if len(keys) == 0 {
			bad = append(bad, fmt.Sprintf("binding %q has no keys", name))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("keys: %s: the bindings are %s, each a list of keys like [\"ctrl+x\", \"x\"]",
			strings.Join(bad, "; "), strings.Join(names, ", "))
	}
	for name, keys := range bindings {
		b := byName[name]
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
	}
	return nil
}

// setEnabled enables or disables bindings together.
func SetEnabled(on bool, bs ...*key.Binding) {
	for _, b := range bs {
		b.SetEnabled(on)
	}
}

// HelpState is what the help line and the help screen depend on.
type HelpState struct {
	// Dialog is the top dialog's ID ("" when none).
	Dialog    string
	TextInput bool
	// ViewerFocused: the viewer is open and has the keys.
	ViewerFocused bool
	// Chat: the chat is shown; Blocks: its transcript has the keys.
	Chat, Blocks, Running, Popup bool
	// Logs: the server log pane has the keys.
	Logs bool
	// DetailFocused: the details pane has the keys. Filtered: the list
	// has a filter (esc clears it). Mention: @ can mention the selected
	// item in the chat. Tools: the Tools tab is shown (X switches a
	// tool off/on).
	DetailFocused, Filtered, Mention, Tools bool
}

// ShortHelp is the one-line help for the current state.
func (k *KeyMap) ShortHelp(s HelpState) []key.Binding {
	switch {
	case strings.HasPrefix(s.Dialog, "form:"):
		return []key.Binding{k.NextField, k.Toggle, k.Submit, k.Cancel}
	case s.Dialog == "servers":
		return []key.Binding{k.Up, k.Down, k.Reconnect, k.SwitchOff, k.Cancel}
	case s.Dialog == "permission":
		pk := k.Permission
		return []key.Binding{pk.Once, pk.Session, pk.Always, pk.Deny, k.PageDown}
	case s.Dialog == "elicit":
		return []key.Binding{k.NextField, k.Toggle, k.Elicit.Accept, k.Elicit.Decline, k.Cancel}
	case s.Dialog == "elicit-url":
		return []key.Binding{k.Elicit.Open, k.Elicit.DeclineURL, k.Cancel}
	case s.Dialog == "sampling":
		return []key.Binding{k.Sampling.Approve, k.Sampling.Reject, k.PageDown}
	case s.Dialog == "sessions":
		return []key.Binding{k.Up, k.Down, k.Accept, k.SessionFilter, k.SessionSearch, k.SessionRename, k.SessionDelete, k.Cancel}
	case s.Dialog == "help":
		// Only the keys that close it: it scrolls (and says so) when it is
		// taller than the screen.
		return []key.Binding{key.NewBinding(key.WithKeys(append(k.Cancel.Keys(), k.Help.Keys()...)...),
			key.WithHelp(k.Cancel.Help().Key+"/"+k.Help.Help().Key, "close"))}
	case s.Dialog != "":
		return []key.Binding{k.Up, k.Down, k.Accept, k.Cancel}
	case strings.HasPrefix(s.Dialog, "preview:"):
		return []key.Binding{k.Accept, k.Up, k.Down, k.Cancel}
	case s.Logs:
		return []key.Binding{k.LogPrev, k.LogNext, k.LogTrace, k.LogOpen, k.LogBlur, k.Logs, k.Up, k.Down, k.PageUp}
	case s.Chat && s.Popup:
		return []key.Binding{k.Complete, k.Accept, k.Cancel}
	case s.Chat && s.Blocks:
		return []key.Binding{k.Up, k.Down, k.Expand, k.OpenResult, k.BackToInput, k.PageUp, k.ToggleChat}
	case s.Chat && s.Running:
		return []key.Binding{k.CancelTurn, k.PageUp, k.PageDown, k.SelectBlocks, k.ToggleChat}
	case s.Chat:
		return []key.Binding{k.Send, k.Newline, k.Complete, k.Editor, k.SelectBlocks, k.PageUp, k.ToggleChat}
	case s.TextInput:
		return []key.Binding{k.Accept, k.Cancel}
	case s.ViewerFocused:
		return []key.Binding{k.NextPage, k.PrevPage, k.HexToggle, k.OpenAttachment, k.Back, k.Help, k.Search, k.Pattern, k.Subscribe, k.Copy, k.Quit}
	default:
		return []key.Binding{k.Open, k.Filter, k.Chat, k.Help, k.Quit, k.NextTab, k.FocusNext, k.Refresh}
	}
}

// HelpGroup is one titled group of the help screen.
type HelpGroup struct {
	Title string
	Keys  []key.Binding
}

// FullHelp is the help screen for the state it opens in: the keys that
// apply there (the pane with the keys, then everywhere), each enabled.
func (k *KeyMap) FullHelp(s HelpState) []HelpGroup {
	var groups []HelpGroup
	add := func(title string, bs ...key.Binding) {
		var on []key.Binding
		for _, b := range bs {
			if b.Enabled() && len(b.Keys()) > 0 {
				on = append(on, b)
			}
		}
		if len(on) > 0 {
			groups = append(groups, HelpGroup{title, on})
		}
	}
	moves := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
	switch {
	case s.Logs:
		add("Server log", append([]key.Binding{k.LogPrev, k.LogNext, k.LogTrace, k.LogOpen, k.LogBlur}, moves...)...)
	case s.Chat && s.Blocks:
		add("Tool blocks", k.Up, k.Down, k.Expand, k.OpenResult, k.BackToInput, k.PageUp, k.PageDown)
	case s.Chat:
		add("Chat", k.Send, k.Newline, k.Complete, k.Editor, k.CancelTurn, k.SelectBlocks, k.NextSuggestion, k.PrevSuggestion, k.AcceptSuggestion, k.PageUp, k.PageDown)
	case s.ViewerFocused:
		add("Viewer", append(moves, k.NextPage, k.PrevPage, k.Search, k.NextMatch, k.PrevMatch, k.Pattern, k.ClearPattern,
			k.Wrap, k.Left, k.Right, k.HexToggle, k.OpenAttachment, k.Copy, k.RawView, k.Save, k.Subscribe, k.Back, k.FocusNext)...)
	case s.DetailFocused:
		add("Details", append(moves, k.Open, k.Refresh, k.Filter, k.FocusNext)...)
	default:
		list := append(moves, k.Open, k.Filter)
		if s.Filtered {
			list = append(list, key.NewBinding(key.WithKeys(k.Back.Keys()...), key.WithHelp(k.Back.Help().Key, "clear the filter")))
		}
		list = append(list, k.Refresh)
		if s.Tools {
			list = append(list, k.SwitchOff)
		} else {
			list = append(list, k.Subscribe) // a resource
		}
		if s.Mention {
			list = append(list, k.Mention)
		}
		list = append(list, k.OpenApp)
		add("List", append(list, k.FocusNext)...)
	}
	if !s.Chat && !s.ViewerFocused && !s.Logs {
		add("Tabs", k.Tab1, k.Tab2, k.Tab3, k.Tab4, k.Tab5, k.NextTab, k.PrevTab)
	}
	anywhere := []key.Binding{k.Help, k.Servers, k.Sessions, k.Subscriptions, k.Logs}
	if s.Chat {
		anywhere = []key.Binding{k.Sessions, k.Subscriptions, k.Logs}
	} else {
		anywhere = append(anywhere, k.Chat)
	}
	add("Anywhere", append(anywhere, k.ToggleChat, k.Quit, k.ForceQuit)...)
	return groups
}

// PermissionKeys are the dialog's answers.
type PermissionKeys struct{ Once, Session, Always, Deny key.Binding }

func defaultPermissionKeys() PermissionKeys {
	return PermissionKeys{
		Once:    key.NewBinding(key.WithKeys("y", "o"), key.WithHelp("y", "allow once")),
		Session: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "allow this tool for the session")),
		Always:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "always allow this tool")),
		Deny:    key.NewBinding(key.WithKeys("n", "d"), key.WithHelp("n/esc", "deny")),
	}
}

// ElicitKeys are the answers of the elicitation dialog beside the form's
// own keys (ctrl+s, or enter on the last field, accepts).
type ElicitKeys struct{ Accept, Decline, Open, DeclineURL key.Binding }

func defaultElicitKeys() ElicitKeys {
	return ElicitKeys{
		Accept:     key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "accept")),
		Decline:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "decline")),
		Open:       key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter/o", "open in the browser")),
		DeclineURL: key.NewBinding(key.WithKeys("d", "n", "ctrl+d"), key.WithHelp("d", "decline")),
	}
}

// SamplingKeys are the sampling dialog's answers.
type SamplingKeys struct{ Approve, Reject key.Binding }

func defaultSamplingKeys() SamplingKeys {
	return SamplingKeys{
		Approve: key.NewBinding(key.WithKeys("y", "a"), key.WithHelp("y", "approve: ask the chat model")),
		Reject:  key.NewBinding(key.WithKeys("n", "r"), key.WithHelp("n/esc", "reject")),
	}
}

// TrustKeys are the trust dialog's answers.
type TrustKeys struct{ Trust, Once, No key.Binding }

func defaultTrustKeys() TrustKeys {
	return TrustKeys{
		Trust: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "trust it (remembered until the file changes)")),
		Once:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "use it for this run only")),
		No:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n/esc", "not now: its servers stay off")),
	}
}

// QuestionKeys are the keys every question dialog shares.
type QuestionKeys struct{ DeclineAll key.Binding }

func defaultQuestionKeys() QuestionKeys {
	return QuestionKeys{
		DeclineAll: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "decline everything from this server")),
	}
}
