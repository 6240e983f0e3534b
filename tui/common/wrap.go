package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
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
		if ww > w { // longer than a line: cut at the edge
			var cut []string
			cut, word, ww = cutWord(word, w)
			out = append(out, cut...)
		}
		line, lineW = word, ww
	}
	if lineW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// cutWord cuts a word wider than w into lines of w cells, in one pass
// over its grapheme clusters (a server's 1 MiB URL without a space is
// one word, and cutting it by truncating what is left each time took
// time quadratic in its length, on the update path), and returns the
// last, narrower part and its width. A word carrying an escape sequence
// (howl's own styling) is cut with ansi's truncation, which skips them.
func cutWord(word string, w int) (lines []string, rest string, restW int) {
	if strings.IndexByte(word, '\x1b') >= 0 {
		ww := ansi.StringWidth(word)
		for ww > w {
			lines = append(lines, ansi.Truncate(word, w, ""))
			word = ansi.TruncateLeft(word, w, "")
			ww = ansi.StringWidth(word)
		}
		return lines, word, ww
	}
	start, width, state := 0, 0, -1
	for i := 0; i < len(word); {
		cluster, _, cw, st := uniseg.FirstGraphemeClusterInString(word[i:], state)
		state = st
		if width+cw > w && width > 0 {
			lines = append(lines, word[start:i])
			start, width = i, 0
		}
		width += cw
		i += len(cluster)
	}
	return lines, word[start:], width
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
