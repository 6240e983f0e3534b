package common

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// Markdown whose cost to glamour is far beyond its size is drawn as plain
// wrapped text, at about its size: 100 nested quotes (102 bytes; glamour
// grew them past 20 GB at 120), lists nested past the width, an 8,000-byte
// code block language (chroma matched it against every lexer's patterns,
// 10 s), a word of 8,000 bytes (base64, say), 2,000 emphasised spans in
// 8,000 bytes. Ordinary Markdown of the same kinds is still drawn by
// glamour, a long answer's sparse spans too.
func TestMarkdownTooCostlyForGlamourIsDrawnAsPlainText(t *testing.T) {
	md := NewMarkdown(theme.New(theme.Options{Profile: termenv.TrueColor, Dark: true}))
	var nested strings.Builder
	for i := range 30 {
		nested.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	for name, src := range map[string]string{
		"quotes":   "\n\n" + strings.Repeat(">", 100) + " x",
		"lists":    nested.String(),
		"language": "```" + strings.Repeat("a", 8000) + "\nx\n```",
		"odd name": "```go;rm\nx\n```",
		"word":     strings.Repeat("QUJD", 2000),
		"styled":   strings.Repeat("*a", 4000),
		"dense":    strings.Repeat("*a* ", 2000),
	} {
		var lines []string
		if n := commontest.AllocatedBy(func() { lines = md.Render(src, 80) }); n > 8<<20 {
			t.Errorf("%s (%d bytes): rendering allocated %d bytes", name, len(src), n)
		}
		if got := strings.Join(lines, "\n"); strings.Contains(got, "\x1b[") {
			t.Errorf("%s: drawn by glamour (styled), want plain text:\n%.300q", name, got)
		}
	}
	for name, src := range map[string]string{
		"quotes":   "> > > a quote in a quote in a quote",
		"language": "```go\nfunc main() {}\n```",
		"emphasis": "some *emphasis*, `code` and a [link](https://example.com/" + strings.Repeat("p", 300) + ")",
		"sparse":   strings.Repeat("Some **bold** prose, repeated. ", 1000),
	} {
		if got := strings.Join(md.Render(src, 80), "\n"); !strings.Contains(got, "\x1b[") {
			t.Errorf("%s: not drawn by glamour:\n%q", name, got)
		}
	}
}
