// Package theme turns a semantic palette into everything howl draws with:
// one Styles struct grouped by component, the chroma style for syntax
// highlighting and the glamour style for Markdown. Components never name a
// colour; they ask the Styles for the role they are drawing.
//
// The palette has a dark and a light variant, chosen once from the
// terminal's background (probed before the program starts, see Detect), and
// a colourless variant for NO_COLOR, which keeps bold, underline and reverse
// so focus and selection stay visible.
package theme

import "github.com/charmbracelet/lipgloss"

// Palette names colours by role, not by hue. Every colour howl draws comes
// from one of these fields.
type Palette struct {
	// Name identifies the variant: "dark", "light" or "none".
	Name string

	// Text is ordinary text; Muted secondary text (descriptions, notes);
	// Subtle the faintest text (separators, gutters).
	Text, Muted, Subtle lipgloss.TerminalColor
	// Border frames panes; BorderFocus frames the focused pane.
	Border, BorderFocus lipgloss.TerminalColor
	// Primary marks what is active (the tab, the cursor row); Secondary the
	// second level (group headers, labels).
	Primary, Secondary lipgloss.TerminalColor
	// Selection is the background of the selected row in the focused pane;
	// SelectionBlur in an unfocused one; Surface is a raised background
	// (status bar, dialogs).
	Selection, SelectionBlur, Surface lipgloss.TerminalColor
	// OnSelection is text drawn on Selection.
	OnSelection lipgloss.TerminalColor
	// Match highlights search and filter hits.
	Match lipgloss.TerminalColor

	// Status colours.
	Success, Warning, Error, Info lipgloss.TerminalColor

	// Code colours, used by the chroma and glamour styles.
	Keyword, String, Number, Comment, Ident, Function, Type, Operator, Punctuation, Tag, Attribute lipgloss.TerminalColor
}

// Dark is the palette for dark backgrounds.
func Dark() Palette {
	c := func(s string) lipgloss.TerminalColor { return lipgloss.Color(s) }
	return Palette{
		Name:          "dark",
		Text:          c("#E4E4E7"),
		Muted:         c("#A1A1AA"),
		Subtle:        c("#6B6B76"),
		Border:        c("#45454F"),
		BorderFocus:   c("#8FA8FF"),
		Primary:       c("#8FA8FF"),
		Secondary:     c("#C4A7E7"),
		Selection:     c("#34365A"),
		SelectionBlur: c("#2A2A33"),
		Surface:       c("#232329"),
		OnSelection:   c("#FFFFFF"),
		Match:         c("#FFCB6B"),
		Success:       c("#7FD88F"),
		Warning:       c("#F5C26B"),
		Error:         c("#FF6B6B"),
		Info:          c("#6CB6FF"),
		Keyword:       c("#C792EA"),
		String:        c("#C3E88D"),
		Number:        c("#F78C6C"),
		Comment:       c("#7A819E"),
		Ident:         c("#E4E4E7"),
		Function:      c("#82AAFF"),
		Type:          c("#FFCB6B"),
		Operator:      c("#89DDFF"),
		Punctuation:   c("#A6ACCD"),
		Tag:           c("#F07178"),
		Attribute:     c("#FFCB6B"),
	}
}

// Light is the palette for light backgrounds.
func Light() Palette {
	c := func(s string) lipgloss.TerminalColor { return lipgloss.Color(s) }
	return Palette{
		Name:          "light",
		Text:          c("#1F1F24"),
		Muted:         c("#55555F"),
		Subtle:        c("#8A8A96"),
		Border:        c("#C8C8D0"),
		BorderFocus:   c("#3355CC"),
		Primary:       c("#3355CC"),
		Secondary:     c("#7A3FB8"),
		Selection:     c("#D6DEFF"),
		SelectionBlur: c("#E8E8EE"),
		Surface:       c("#EFEFF3"),
		OnSelection:   c("#0A0A10"),
		Match:         c("#B8860B"),
		Success:       c("#1E8A3A"),
		Warning:       c("#A86A00"),
		Error:         c("#C62828"),
		Info:          c("#1565C0"),
		Keyword:       c("#7A3FB8"),
		String:        c("#2E7D32"),
		Number:        c("#C0501E"),
		Comment:       c("#7A7F94"),
		Ident:         c("#1F1F24"),
		Function:      c("#1565C0"),
		Type:          c("#A86A00"),
		Operator:      c("#00838F"),
		Punctuation:   c("#55555F"),
		Tag:           c("#C62828"),
		Attribute:     c("#A86A00"),
	}
}

// None is the palette for NO_COLOR: every role is "no colour". Styles built
// from it still use bold, underline and reverse.
func None() Palette {
	n := lipgloss.NoColor{}
	return Palette{
		Name: "none", Text: n, Muted: n, Subtle: n, Border: n, BorderFocus: n, Primary: n, Secondary: n,
		Selection: n, SelectionBlur: n, Surface: n, OnSelection: n, Match: n,
		Success: n, Warning: n, Error: n, Info: n,
		Keyword: n, String: n, Number: n, Comment: n, Ident: n, Function: n, Type: n, Operator: n, Punctuation: n, Tag: n, Attribute: n,
	}
}

// hex returns a palette colour as "#rrggbb", or "" for no colour.
func hex(c lipgloss.TerminalColor) string {
	if s, ok := c.(lipgloss.Color); ok {
		return string(s)
	}
	return ""
}
