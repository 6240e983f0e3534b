package theme

import (
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
)

// glamourStyle derives the Markdown style from the palette: glamour's own
// dark or light layout, with howl's colours for text, headings, links, code
// and the code-block highlighting. NO_COLOR gets glamour's ASCII style.
func glamourStyle(p Palette, dark bool) ansi.StyleConfig {
	if p.Name == "none" {
		return styles.ASCIIStyleConfig
	}
	cfg := styles.LightStyleConfig
	if dark {
		cfg = styles.DarkStyleConfig
	}
	str := func(s string) *string { return &s }
	text, muted, primary, secondary := hex(p.Text), hex(p.Muted), hex(p.Primary), hex(p.Secondary)

	// The configs are package variables holding pointers: every field set
	// here gets a fresh pointer, so the shared defaults are never mutated.
	cfg.Document.Color = str(text)
	cfg.Heading.Color = str(primary)
	cfg.H1.Color = str(primary)
	cfg.H1.BackgroundColor = nil
	cfg.H2.Color = str(primary)
	cfg.H3.Color = str(secondary)
	cfg.Link.Color = str(hex(p.Info))
	cfg.LinkText.Color = str(secondary)
	cfg.BlockQuote.Color = str(muted)
	cfg.HorizontalRule.Color = str(hex(p.Subtle))
	cfg.Code.Color = str(hex(p.String))
	cfg.Code.BackgroundColor = nil

	prim := func(c string, bold bool) ansi.StylePrimitive {
		sp := ansi.StylePrimitive{}
		if c != "" {
			sp.Color = str(c)
		}
		if bold {
			b := true
			sp.Bold = &b
		}
		return sp
	}
	cfg.CodeBlock.Chroma = &ansi.Chroma{
		Text:                prim(text, false),
		Error:               prim(hex(p.Error), false),
		Comment:             prim(hex(p.Comment), false),
		CommentPreproc:      prim(hex(p.Keyword), false),
		Keyword:             prim(hex(p.Keyword), true),
		KeywordReserved:     prim(hex(p.Keyword), true),
		KeywordNamespace:    prim(hex(p.Keyword), false),
		KeywordType:         prim(hex(p.Type), false),
		Operator:            prim(hex(p.Operator), false),
		Punctuation:         prim(hex(p.Punctuation), false),
		Name:                prim(hex(p.Ident), false),
		NameBuiltin:         prim(hex(p.Type), false),
		NameTag:             prim(hex(p.Tag), false),
		NameAttribute:       prim(hex(p.Attribute), false),
		NameClass:           prim(hex(p.Type), true),
		NameConstant:        prim(hex(p.Number), false),
		NameDecorator:       prim(hex(p.Function), false),
		NameFunction:        prim(hex(p.Function), false),
		Literal:             prim(hex(p.String), false),
		LiteralNumber:       prim(hex(p.Number), false),
		LiteralDate:         prim(hex(p.Number), false),
		LiteralString:       prim(hex(p.String), false),
		LiteralStringEscape: prim(hex(p.Operator), false),
		GenericDeleted:      prim(hex(p.Error), false),
		GenericInserted:     prim(hex(p.Success), false),
		GenericSubheading:   prim(secondary, false),
	}
	return cfg
}
