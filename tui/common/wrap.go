package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// WrapWords wraps s to lines at most w cells wide, breaking only at
// spaces: a flag (--model), a path (/home/me/.config/howl/config.json) or
// a URL stays whole on its line, where WrapText would break it after a
// hyphen. Only a word longer than a whole line is cut, at the edge. Each
// line of s is wrapped on its own; runs of spaces between words collapse
// to one where a line breaks.
func WrapWords(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapParagraph(para, w)...)
	}
	return out
}

// wrapParagraph wraps one line of text.
func wrapParagraph(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	var out []string
	// The first line keeps its indent (an argument nested in JSON).
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	line, lineW := indent, ansi.StringWidth(indent)
	if lineW >= w {
		line, lineW = "", 0
	}
	flush := func() {
		out = append(out, line)
		line, lineW = "", 0
	}
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		sep := " "
		if strings.TrimSpace(line) == "" {
			sep = "" // after the indent
		}
		switch {
		case lineW > 0 && lineW+len(sep)+ww <= w:
			line, lineW = line+sep+word, lineW+len(sep)+ww
			continue
		case lineW > 0 && sep != "":
			flush()
		}
		for ww > w { // longer than a line: cut at the edge
			out = append(out, ansi.Truncate(word, w, ""))
			word = ansi.TruncateLeft(word, w, "")
			ww = ansi.StringWidth(word)
		}
		line, lineW = word, ww
	}
	if lineW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// JoinAnd lists words as a person would: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
