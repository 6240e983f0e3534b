package common

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
)

// markdown renders Markdown with glamour in the theme's style, code blocks
// highlighted through chroma. Renderers are memoized per width: building
// one parses the style, which costs more than rendering a short answer.
// One Markdown is used by one goroutine at a time: the model's (Update and
// View), or the chat's one render in flight, which has its own (asyncMD).
type Markdown struct {
	th        *theme.Theme
	renderers map[int]*glamour.TermRenderer
}

func NewMarkdown(th *theme.Theme) *Markdown {
	return &Markdown{th: th, renderers: map[int]*glamour.TermRenderer{}}
}

// Render draws src at width w as lines, without glamour's leading and
// trailing blank lines. A renderer error, or Markdown glamour would draw
// at a cost far beyond its size (markdownTooCostly), falls back to the
// plain text.
func (md *Markdown) Render(src string, w int) []string {
	w = max(w, 10)
	r, ok := md.renderers[w]
	if !ok {
		opts := []glamour.TermRendererOption{
			glamour.WithStyles(md.th.Glamour()),
			glamour.WithWordWrap(w),
			glamour.WithColorProfile(md.th.Profile),
		}
		if md.th.Profile == termenv.Ascii {
			// No escape sequence at all: chroma's noop formatter.
			opts = append(opts, glamour.WithChromaFormatter("noop"))
		}
		var err error
		if r, err = glamour.NewTermRenderer(opts...); err != nil {
			r = nil
		}
		md.renderers[w] = r
	}
	if r == nil || markdownTooCostly([]byte(src), w) {
		return WrapText(src, w)
	}
	// glamour decodes character references after howl sanitized src
	// ("&#27;" would become ESC): each that decodes to a control is shown
	// as written, and the output keeps nothing but colours and styles.
	out, err := r.Render(render.DisarmCharRefs(src))
	if err != nil {
		return WrapText(src, w)
	}
	out = render.SanitizeStyled(out)
	if md.th.Profile == termenv.Ascii {
		// glamour writes bold and italic even without colour: drop them,
		// as every other pane draws under the Ascii profile.
		out = ansi.Strip(out)
	}
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && strings.TrimSpace(StripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(StripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// stripANSI removes escape sequences.
func StripANSI(s string) string { return ansi.Strip(s) }
