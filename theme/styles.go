package theme

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// Styles is every style howl draws with, grouped by component and built
// once from a Palette. Components read it through the shared tui.Common.
type Styles struct {
	// Text roles usable anywhere.
	Text, Muted, Subtle, Strong, Accent lipgloss.Style
	Success, Warning, Error, Info       lipgloss.Style

	Pane struct {
		// Border and BorderFocused colour a pane's frame; Title and
		// TitleFocused its title in the top border.
		Border, BorderFocused, Title, TitleFocused lipgloss.Style
	}

	Tabs struct {
		Bar, Active, Inactive, Brand, Separator lipgloss.Style
	}

	List struct {
		// Item is an unselected row; Selected the cursor row in the focused
		// list, SelectedBlur in an unfocused one. Desc is the dim second column.
		Item, Desc, Selected, SelectedBlur lipgloss.Style
		// Header is a server group header; Notice a row that reports a state
		// (loading, failed, empty) in place of items.
		Header, HeaderCount, Notice, NoticeError lipgloss.Style
		// Match highlights the characters a filter matched.
		Match lipgloss.Style
		// New marks an item a list_changed brought, until it is seen.
		New lipgloss.Style
		// Filter is the filter line: its prompt and its counts.
		FilterPrompt, FilterCount lipgloss.Style
	}

	Detail struct {
		Title, Kind, Heading, Label, Value, Required, Optional, Code lipgloss.Style
	}

	Viewer struct {
		Title, Note, Meta, Gutter, GutterMatch, Error lipgloss.Style
		// Search is a search hit; SearchCurrent the hit the cursor is on.
		Search, SearchCurrent lipgloss.Style
		// Label starts a block of a rich document (a content item).
		Label lipgloss.Style
	}

	Hex struct {
		Offset, Zero, Printable, Space, Control, High, Dot, Separator lipgloss.Style
	}

	Form struct {
		Label, LabelFocused, Required, Hint, Error, Preview, Button, ButtonFocused lipgloss.Style
	}

	Dialog struct {
		Frame, Title, Hint lipgloss.Style
	}

	Status struct {
		Bar, Server, Ready, Starting, Failed, Counts, Info, Warn, Error lipgloss.Style
	}

	// Log styles the server log pane: one style per MCP log level (critical,
	// alert and emergency share Critical), a server's stderr lines, the
	// timestamp, the logger name and the pane's title bar (focused or not).
	Log struct {
		Debug, Info, Notice, Warning, Error, Critical lipgloss.Style
		Stderr, Time, Logger, Title, TitleFocused     lipgloss.Style
	}

	// TextInput styles the bubbles text inputs.
	TextInput struct {
		Prompt, Text, Placeholder, Cursor lipgloss.Style
	}

	// Help styles the bubbles help view.
	Help help.Styles

	Spinner lipgloss.Style
}

// NewStyles builds the Styles of a palette.
func NewStyles(p Palette) *Styles {
	s := &Styles{}
	fg := func(c lipgloss.TerminalColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }

	s.Text = fg(p.Text)
	s.Muted = fg(p.Muted)
	s.Subtle = fg(p.Subtle)
	s.Strong = fg(p.Text).Bold(true)
	s.Accent = fg(p.Primary)
	s.Success = fg(p.Success)
	s.Warning = fg(p.Warning)
	s.Error = fg(p.Error)
	s.Info = fg(p.Info)

	s.Pane.Border = fg(p.Border)
	s.Pane.BorderFocused = fg(p.BorderFocus)
	s.Pane.Title = fg(p.Muted).Bold(true)
	s.Pane.TitleFocused = fg(p.Primary).Bold(true)

	s.Tabs.Bar = lipgloss.NewStyle()
	s.Tabs.Active = fg(p.Primary).Bold(true).Underline(true)
	s.Tabs.Inactive = fg(p.Muted)
	s.Tabs.Brand = fg(p.Secondary).Bold(true)
	s.Tabs.Separator = fg(p.Subtle)

	s.List.Item = fg(p.Text)
	s.List.Desc = fg(p.Subtle)
	s.List.Selected = lipgloss.NewStyle().Foreground(p.OnSelection).Background(p.Selection).Bold(true)
	s.List.SelectedBlur = lipgloss.NewStyle().Foreground(p.Text).Background(p.SelectionBlur)
	if p.Name == "none" {
		s.List.Selected = s.List.Selected.Reverse(true)
		s.List.SelectedBlur = s.List.SelectedBlur.Underline(true)
	}
	s.List.Header = fg(p.Secondary).Bold(true)
	s.List.HeaderCount = fg(p.Subtle)
	s.List.Notice = fg(p.Muted).Italic(true)
	s.List.NoticeError = fg(p.Error)
	s.List.Match = fg(p.Match).Bold(true).Underline(true)
	s.List.New = fg(p.Success).Bold(true)
	s.List.FilterPrompt = fg(p.Primary).Bold(true)
	s.List.FilterCount = fg(p.Subtle)

	s.Detail.Title = fg(p.Text).Bold(true)
	s.Detail.Kind = fg(p.Secondary)
	s.Detail.Heading = fg(p.Primary).Bold(true)
	s.Detail.Label = fg(p.Muted)
	s.Detail.Value = fg(p.Text)
	s.Detail.Required = fg(p.Warning).Bold(true)
	s.Detail.Optional = fg(p.Subtle)
	s.Detail.Code = fg(p.String)

	s.Viewer.Title = fg(p.Text).Bold(true)
	s.Viewer.Note = fg(p.Muted)
	s.Viewer.Meta = fg(p.Info)
	s.Viewer.Gutter = fg(p.Subtle)
	s.Viewer.GutterMatch = fg(p.Match).Bold(true)
	s.Viewer.Error = fg(p.Error).Bold(true)
	s.Viewer.Search = lipgloss.NewStyle().Foreground(p.OnSelection).Background(p.Selection).Underline(true)
	s.Viewer.SearchCurrent = fg(p.Match).Reverse(true).Bold(true)
	s.Viewer.Label = fg(p.Secondary).Bold(true)

	s.Hex.Offset = fg(p.Subtle)
	s.Hex.Zero = fg(p.Subtle)
	s.Hex.Printable = fg(p.Text)
	s.Hex.Space = fg(p.Info)
	s.Hex.Control = fg(p.Warning)
	s.Hex.High = fg(p.Keyword)
	s.Hex.Dot = fg(p.Subtle)
	s.Hex.Separator = fg(p.Border)

	s.Form.Label = fg(p.Muted)
	s.Form.LabelFocused = fg(p.Primary).Bold(true)
	s.Form.Required = fg(p.Warning).Bold(true)
	s.Form.Hint = fg(p.Subtle)
	s.Form.Error = fg(p.Error)
	s.Form.Preview = fg(p.Info)
	s.Form.Button = fg(p.Muted)
	s.Form.ButtonFocused = lipgloss.NewStyle().Foreground(p.OnSelection).Background(p.Selection).Bold(true)
	if p.Name == "none" {
		s.Form.ButtonFocused = s.Form.ButtonFocused.Reverse(true)
	}

	s.Dialog.Frame = fg(p.BorderFocus)
	s.Dialog.Title = fg(p.Primary).Bold(true)
	s.Dialog.Hint = fg(p.Subtle)

	s.Status.Bar = lipgloss.NewStyle()
	s.Status.Server = fg(p.Text).Bold(true)
	s.Status.Ready = fg(p.Success)
	s.Status.Starting = fg(p.Warning)
	s.Status.Failed = fg(p.Error)
	s.Status.Counts = fg(p.Muted)
	s.Status.Info = fg(p.Info)
	s.Status.Warn = fg(p.Warning)
	s.Status.Error = fg(p.Error).Bold(true)

	s.Log.Debug = fg(p.Subtle)
	s.Log.Info = fg(p.Info)
	s.Log.Notice = fg(p.Success)
	s.Log.Warning = fg(p.Warning)
	s.Log.Error = fg(p.Error)
	s.Log.Critical = fg(p.Error).Bold(true)
	s.Log.Stderr = fg(p.Muted)
	s.Log.Time = fg(p.Subtle)
	s.Log.Logger = fg(p.Primary)
	s.Log.Title = fg(p.Muted)
	s.Log.TitleFocused = fg(p.Primary).Bold(true)

	s.TextInput.Prompt = fg(p.Primary).Bold(true)
	s.TextInput.Text = fg(p.Text)
	s.TextInput.Placeholder = fg(p.Subtle)
	s.TextInput.Cursor = fg(p.Primary)

	s.Help = help.Styles{
		Ellipsis:       fg(p.Subtle),
		ShortKey:       fg(p.Primary),
		ShortDesc:      fg(p.Muted),
		ShortSeparator: fg(p.Subtle),
		FullKey:        fg(p.Primary),
		FullDesc:       fg(p.Muted),
		FullSeparator:  fg(p.Subtle),
	}

	s.Spinner = fg(p.Primary)
	return s
}
