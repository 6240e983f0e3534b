package common

import (
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/theme"
)

// tabWidth is how many columns a tab advances to.
const TabWidth = 4

// maxLineCells splits lines longer than this into chunks, so one enormous
// line (minified JSON, say) never makes a frame slow to cut.
const MaxLineCells = 2000

// lexerFor picks a chroma lexer by MIME type, then by the extension of
// name (a URI or path). Plain text gets nil: no highlighting.
func LexerFor(mimeType, name string) chroma.Lexer {
	mt, _, _ := mime.ParseMediaType(mimeType)
	var l chroma.Lexer
	switch {
	case mt == "" || mt == "text/plain" || mt == "application/octet-stream":
	case strings.HasSuffix(mt, "+json"):
		l = lexers.Get("json")
	case strings.HasSuffix(mt, "+xml"):
		l = lexers.Get("xml")
	default:
		l = lexers.MatchMimeType(mt)
	}
	if l == nil {
		if ext := path.Ext(strings.SplitN(name, "?", 2)[0]); ext != "" && ext != ".txt" && ext != ".log" {
			l = lexers.Match("file" + ext)
		}
	}
	if l == nil {
		return nil
	}
	if cfg := l.Config(); cfg != nil && (cfg.Name == "plaintext" || cfg.Name == "Text only") {
		return nil
	}
	return chroma.Coalesce(l)
}

// isLog reports whether text should get log highlighting: a .log name, or
// plain text whose first lines carry log levels.
func IsLog(mimeType, name, text string) bool {
	if strings.HasSuffix(name, ".log") || strings.Contains(mimeType, "log") {
		return true
	}
	head := text
	if len(head) > 2048 {
		head = head[:2048]
	}
	n := 0
	for _, lvl := range []string{" ERROR ", " WARN ", " INFO ", " DEBUG "} {
		n += strings.Count(head, lvl)
	}
	return n >= 3
}

// sgrFor is the escape sequence that starts a chroma style entry under a
// colour profile ("" for none, and always "" under Ascii).
func sgrFor(e chroma.StyleEntry, p termenv.Profile) string {
	if p == termenv.Ascii {
		return ""
	}
	var seq []string
	if e.Colour.IsSet() {
		if s := p.Color(e.Colour.String()).Sequence(false); s != "" {
			seq = append(seq, s)
		}
	}
	if e.Bold == chroma.Yes {
		seq = append(seq, "1")
	}
	if e.Italic == chroma.Yes {
		seq = append(seq, "3")
	}
	if e.Underline == chroma.Yes {
		seq = append(seq, "4")
	}
	if len(seq) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(seq, ";") + "m"
}

// highlight returns text's lines styled by lexer, one string per line of
// text (split on "\n"). Text must already be sanitized and tab-expanded. A
// nil lexer, a failing one or the Ascii profile returns the lines as they are.
func Highlight(text string, lexer chroma.Lexer, th *theme.Theme) []string {
	plain := strings.Split(text, "\n")
	if lexer == nil || th.Profile == termenv.Ascii {
		return plain
	}
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		return plain
	}
	style := th.Chroma()
	prefixes := map[chroma.TokenType]string{}
	out := make([]string, 0, len(plain))
	var line strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		pre, ok := prefixes[tok.Type]
		if !ok {
			pre = sgrFor(style.Get(tok.Type), th.Profile)
			prefixes[tok.Type] = pre
		}
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
			if i > 0 {
				out = append(out, line.String())
				line.Reset()
			}
			if part == "" {
				continue
			}
			if pre == "" {
				line.WriteString(part)
			} else {
				line.WriteString(pre)
				line.WriteString(part)
				line.WriteString(Reset)
			}
		}
	}
	out = append(out, line.String())
	if len(out) != len(plain) {
		// A lexer that lost or invented newlines cannot be trusted to line
		// up with the text; show it plain.
		return plain
	}
	return out
}

// highlightLog styles a log: the leading timestamp dim, the level word by
// severity. It is cheap enough for any page.
func HighlightLog(text string, th *theme.Theme) []string {
	lines := strings.Split(text, "\n")
	if th.Profile == termenv.Ascii {
		return lines
	}
	s := th.Styles
	out := make([]string, len(lines))
	for i, l := range lines {
		ts, rest, ok := strings.Cut(l, " ")
		if !ok || len(ts) < 8 || !(ts[0] >= '0' && ts[0] <= '9') {
			out[i] = l
			continue
		}
		lvl, tail, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		pad := rest[:len(rest)-len(strings.TrimLeft(rest, " "))]
		var ls string
		switch lvl {
		case "ERROR", "FATAL", "PANIC":
			ls = s.Error.Bold(true).Render(lvl)
		case "WARN", "WARNING":
			ls = s.Warning.Render(lvl)
		case "INFO":
			ls = s.Info.Render(lvl)
		case "DEBUG", "TRACE":
			ls = s.Subtle.Render(lvl)
		default:
			out[i] = s.Subtle.Render(ts) + " " + rest
			continue
		}
		out[i] = s.Subtle.Render(ts) + " " + pad + ls + " " + tail
	}
	return out
}

// ExpandTabs replaces tabs with spaces up to the next tab stop.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var e TabExpander
	e.WriteString(s)
	return e.String()
}

// TabExpander collects text with its tabs expanded to the next tab stop,
// counting columns across writes: what ExpandTabs does to one string, for
// text that arrives in pieces.
type TabExpander struct {
	b   strings.Builder
	col int
}

func (e *TabExpander) Write(p []byte) (int, error) {
	e.WriteString(string(p))
	return len(p), nil
}

func (e *TabExpander) WriteString(s string) (int, error) {
	n := len(s)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\t\n")
		if i < 0 {
			e.b.WriteString(s)
			e.col += utf8.RuneCountInString(s)
			break
		}
		e.b.WriteString(s[:i])
		if s[i] == '\n' {
			e.b.WriteByte('\n')
			e.col = 0
		} else {
			e.col += utf8.RuneCountInString(s[:i])
			n := TabWidth - e.col%TabWidth
			e.b.WriteString(strings.Repeat(" ", n))
			e.col += n
		}
		s = s[i+1:]
	}
	return n, nil
}

func (e *TabExpander) String() string { return e.b.String() }
