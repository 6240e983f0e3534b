package chat

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// hostileRefs writes escapes as HTML character references, which glamour
// decodes after the answer was sanitized: a window title, a clear screen,
// a colour and a conceal, a bidi override, a carriage return, a BEL, and
// a decimal so long it wraps around to ESC, in text, a code span, inline
// HTML, strikethrough and a heading.
const hostileRefs = "# Title &#27;&#91;2J\n\n" +
	"a &#27;&#93;0;pwned&#7; b &#x1B;&#x5B;31mred &#27;&#91;8mhidden &#8238;evil &#13;cr &#4294967323;&#91;2J " +
	"`&#27;&#91;2J` <b>&#27;&#91;2J</b> ~~&#27;&#91;2J~~ &#x1b&#x5b2J end\n\n"

// sgr is a colour or style sequence, the only escape a rendered answer may
// hold.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestAnAnswersCharacterReferencesNeverBecomeEscapes: "&#27;" in a model's
// answer shows as it was written and never reaches the terminal as ESC,
// in every way an answer is drawn (streaming, finished, rendered off the
// update path because it is long), without colour and with.
func TestAnAnswersCharacterReferencesNeverBecomeEscapes(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		for _, long := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/long=%v", p.Name(), long), func(t *testing.T) {
				th := theme.New(theme.Options{Dark: true, Profile: p})
				m := benchChat(&testing.B{}, 2)
				m.tr.md, m.tr.asyncMD = common.NewMarkdown(th), common.NewMarkdown(th)
				answer := hostileRefs
				if long {
					answer = strings.Repeat(hostileRefs, AsyncMarkdownBytes/len(hostileRefs)+1)
				}
				feed(m, llm.TextDelta{Text: answer})
				noEscapes(t, "streaming", m.Render(0))
				if cmd := endTurn(m); cmd != nil {
					deliver(t, m, cmd)
				} else if long {
					t.Fatal("the long answer's render did not start")
				}
				lines := m.tr.itemLines(m.tr.items[len(m.tr.items)-1], 80)
				noEscapes(t, "finished", lines)
				if s := sgr.ReplaceAllString(strings.Join(lines, "\n"), ""); !strings.Contains(s, "&#27;") || !strings.Contains(s, "pwned") {
					t.Errorf("the references are not shown as written:\n%s", s)
				}
			})
		}
	}
}

// noEscapes fails for a line that holds anything but SGR sequences that
// drives the terminal.
func noEscapes(t *testing.T, when string, lines []string) {
	t.Helper()
	for _, l := range lines {
		rest := sgr.ReplaceAllString(l, "")
		if strings.ContainsAny(rest, "\x1b\x07\r\u009b\u202e") {
			t.Fatalf("%s: a control got through: %q", when, l)
		}
		if strings.Contains(l, "\x1b[8m") || strings.Contains(l, "\x1b[31m") {
			t.Fatalf("%s: the answer set its own style: %q", when, l)
		}
	}
}
