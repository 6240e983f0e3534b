package theme

import (
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/lipgloss"
)

// chromaStyle builds the chroma style of a palette. A palette without
// colours (NO_COLOR) yields a style that only emboldens keywords.
func chromaStyle(p Palette) *chroma.Style {
	e := func(c lipgloss.TerminalColor, extra string) string {
		h := hex(c)
		if h == "" {
			return extra
		}
		if extra != "" {
			return extra + " " + h
		}
		return h
	}
	entries := chroma.StyleEntries{
		chroma.Text:                e(p.Text, ""),
		chroma.Error:               e(p.Error, ""),
		chroma.Comment:             e(p.Comment, "italic"),
		chroma.CommentPreproc:      e(p.Keyword, ""),
		chroma.Keyword:             e(p.Keyword, "bold"),
		chroma.KeywordType:         e(p.Type, ""),
		chroma.Operator:            e(p.Operator, ""),
		chroma.Punctuation:         e(p.Punctuation, ""),
		chroma.Name:                e(p.Ident, ""),
		chroma.NameBuiltin:         e(p.Type, ""),
		chroma.NameTag:             e(p.Tag, ""),
		chroma.NameAttribute:       e(p.Attribute, ""),
		chroma.NameClass:           e(p.Type, "bold"),
		chroma.NameConstant:        e(p.Number, ""),
		chroma.NameDecorator:       e(p.Function, ""),
		chroma.NameException:       e(p.Error, ""),
		chroma.NameFunction:        e(p.Function, ""),
		chroma.NameVariable:        e(p.Ident, ""),
		chroma.Literal:             e(p.String, ""),
		chroma.LiteralNumber:       e(p.Number, ""),
		chroma.LiteralDate:         e(p.Number, ""),
		chroma.LiteralString:       e(p.String, ""),
		chroma.LiteralStringEscape: e(p.Operator, ""),
		chroma.GenericDeleted:      e(p.Error, ""),
		chroma.GenericInserted:     e(p.Success, ""),
		chroma.GenericEmph:         "italic",
		chroma.GenericStrong:       "bold",
		chroma.GenericHeading:      e(p.Primary, "bold"),
		chroma.GenericSubheading:   e(p.Secondary, "bold"),
	}
	for k, v := range entries {
		if v == "" {
			delete(entries, k)
		}
	}
	style, err := chroma.NewStyle("howl-"+p.Name, entries)
	if err != nil {
		// Every entry above is well-formed; a failure here is a bug in
		// this table, and plain text is the safe answer.
		style, _ = chroma.NewStyle("howl-plain", chroma.StyleEntries{})
	}
	return style
}
