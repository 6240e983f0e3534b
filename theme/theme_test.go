package theme

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestNoColorSelectsTheColourlessPaletteAndKeepsAttributes(t *testing.T) {
	o := Detect(env("NO_COLOR", "1", "TERM", "xterm-256color"))
	if !o.NoColor || o.Profile != termenv.ANSI {
		t.Fatalf("options %+v", o)
	}
	th := New(o)
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(o.Profile)
	sel := th.Styles.List.Selected.Renderer(r).Render("x")
	if strings.Contains(sel, "38;") || strings.Contains(sel, "48;") || !strings.Contains(sel, "7") {
		t.Errorf("NO_COLOR selection should be reverse video without colour: %q", sel)
	}
	if e := th.Chroma().Get(chroma.Keyword); e.Colour.IsSet() {
		t.Errorf("NO_COLOR chroma style has a colour: %v", e)
	}
	if o := Detect(env("NO_COLOR", "1", "TERM", "dumb")); o.Profile != termenv.Ascii {
		t.Errorf("a dumb terminal gets %v", o.Profile)
	}
}

func TestDarkAndLightPalettesDiffer(t *testing.T) {
	d, l := New(Options{Dark: true, Profile: termenv.TrueColor}), New(Options{Profile: termenv.TrueColor})
	if d.Palette.Name != "dark" || l.Palette.Name != "light" || hex(d.Palette.Text) == hex(l.Palette.Text) {
		t.Fatalf("palettes %s/%s", d.Palette.Name, l.Palette.Name)
	}
	// Every role of a coloured palette has a colour.
	for _, c := range []lipgloss.TerminalColor{d.Palette.Text, d.Palette.Primary, d.Palette.Error, d.Palette.Keyword, l.Palette.Selection} {
		if hex(c) == "" {
			t.Errorf("a palette role has no colour")
		}
	}
}

func TestChromaStyleComesFromThePalette(t *testing.T) {
	th := New(Options{Dark: true, Profile: termenv.TrueColor})
	kw := th.Chroma().Get(chroma.Keyword)
	if !strings.EqualFold(kw.Colour.String(), hex(th.Palette.Keyword)) || kw.Bold != chroma.Yes {
		t.Errorf("keyword entry %v, palette %s", kw, hex(th.Palette.Keyword))
	}
}

func TestGlamourStyleRendersWithThePaletteColours(t *testing.T) {
	th := New(Options{Dark: true, Profile: termenv.TrueColor})
	r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Glamour()), glamour.WithColorProfile(th.Profile), glamour.WithWordWrap(60))
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render("# Title\n\nSome `code` and a [link](https://example.com).\n\n```go\nfunc main() {}\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	// The heading is drawn in the palette's primary colour (#8FA8FF).
	if !strings.Contains(out, "38;2;143;168;255") || !strings.Contains(out, "Title") {
		t.Errorf("rendered markdown lacks the primary colour:\n%q", out)
	}
	// glamour's shared default style was not mutated.
	if c := styles.DarkStyleConfig.Document.Color; c != nil && *c == hex(th.Palette.Text) {
		t.Error("building the theme changed glamour's DarkStyleConfig")
	}
}
