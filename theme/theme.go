package theme

import (
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Options choose a theme. Detect fills them from the environment and the
// terminal; tests set them directly.
type Options struct {
	// Dark selects the dark palette (the light one otherwise).
	Dark bool
	// NoColor selects the colourless palette (NO_COLOR is set).
	NoColor bool
	// Profile is the terminal's colour profile. Highlighting and images
	// write their own escape sequences through it; Ascii writes none.
	Profile termenv.Profile
}

// Theme is a built theme: the palette it came from and everything derived
// from it, built once.
type Theme struct {
	Options
	Palette Palette
	Styles  *Styles

	chroma  *chroma.Style
	glamour ansi.StyleConfig
}

// New builds the theme for o.
func New(o Options) *Theme {
	p := Light()
	switch {
	case o.NoColor:
		p = None()
	case o.Dark:
		p = Dark()
	}
	return &Theme{
		Options: o,
		Palette: p,
		Styles:  NewStyles(p),
		chroma:  chromaStyle(p),
		glamour: glamourStyle(p, o.Dark),
	}
}

// Chroma is the syntax-highlighting style derived from the palette.
func (t *Theme) Chroma() *chroma.Style { return t.chroma }

// Glamour is the Markdown style derived from the palette, for
// glamour.WithStyles (pass t.Profile with glamour.WithColorProfile too).
func (t *Theme) Glamour() ansi.StyleConfig { return t.glamour }

// Detect reads NO_COLOR, takes lipgloss's colour profile and probes the
// terminal background once. Call it before the program starts: the probe
// writes a query to the terminal and reads the answer, which must not race
// with bubbletea's input reader.
//
// NO_COLOR (set and not empty) selects the colourless palette. lipgloss
// answers NO_COLOR by dropping every attribute, which would hide focus and
// selection, so Detect keeps the ANSI profile for attributes (bold,
// underline, reverse) while the palette adds no colour at all. Apply sets
// the profile on lipgloss.
func Detect(getenv func(string) string) Options {
	if getenv("NO_COLOR") != "" {
		profile := termenv.ANSI
		if getenv("TERM") == "dumb" {
			profile = termenv.Ascii
		}
		return Options{Dark: true, NoColor: true, Profile: profile}
	}
	return Options{Dark: lipgloss.HasDarkBackground(), Profile: lipgloss.ColorProfile()}
}

// Apply makes o's colour profile the one lipgloss renders with.
func Apply(o Options) { lipgloss.SetColorProfile(o.Profile) }
