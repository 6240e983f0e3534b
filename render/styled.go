package render

import (
	"strings"
	"unicode/utf8"
)

// DisarmCharRefs escapes the ampersand of each numeric character reference
// in s ("&#27;", "&#x1b", "&#4294967323;") that a Markdown renderer would
// decode into a character Sanitize removes: an escape, a control, a bidi
// override. glamour decodes references in text, code spans and inline
// HTML after howl has sanitized the source (html.UnescapeString), so
// "&#27;&#91;2J" in a model's answer would reach the terminal as a clear
// screen. Disarmed, the reference shows as the text that was written.
// Named references need nothing: none decodes to such a character.
//
// The parse is html.UnescapeString's: hex or decimal digits, the ';'
// optional, the value wrapping as a rune does (so a long number cannot
// wrap around to ESC unseen). A string without "&#" is returned as is.
func DisarmCharRefs(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "&#")
		if j < 0 {
			break
		}
		i += j
		r, n := numericCharRef(s[i:])
		if n > 0 && unsafeRune(r) {
			if b.Len() == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[last:i])
			b.WriteString("&amp;")
			last = i + 1
		}
		i += max(n, 1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// numericCharRef parses the reference at the start of s ("&#..."), as
// html.UnescapeString does: the rune it decodes to before replacement and
// its length in bytes, 0 when it is not one.
func numericCharRef(s string) (rune, int) {
	i := 2
	hex := i < len(s) && (s[i] == 'x' || s[i] == 'X')
	if hex {
		i++
	}
	start := i
	var x rune
	for ; i < len(s); i++ {
		d, ok := digit(s[i], hex)
		if !ok {
			break
		}
		if hex {
			x = 16*x + d
		} else {
			x = 10*x + d
		}
	}
	if i == start {
		return 0, 0
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	return x, i
}

// digit is c's value as a digit of the base, ok false when it is not one.
func digit(c byte, hex bool) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case hex && 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10), true
	case hex && 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

// unsafeRune reports whether the character a reference decodes to is one
// Sanitize removes. html.UnescapeString maps 0x80-0x9F to Windows-1252
// characters and 0, surrogates and values past Unicode to U+FFFD, so those
// are safe.
func unsafeRune(r rune) bool {
	if r >= 0x80 && r <= 0x9f || r == 0 || r < 0 || r > utf8.MaxRune {
		return false
	}
	return r < 0x20 && r != '\n' && r != '\t' || r == del || isBidiControl(r)
}

// SanitizeStyled is Sanitize for text a renderer has coloured (glamour's
// Markdown, chroma's code): SGR sequences (ESC [ digits, ';' and ':',
// then m) are kept, and everything else Sanitize removes is removed: the
// renderer's output passes through it as a last net, so nothing but
// colours and styles reaches the terminal whatever the renderer decoded.
// A string with nothing to remove is returned as is, without allocating.
func SanitizeStyled(s string) string {
	if segmentsSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	forEachSGR(s, func(i, n int) {
		b.WriteString(Sanitize(s[last:i]))
		b.WriteString(s[i : i+n])
		last = i + n
	})
	b.WriteString(Sanitize(s[last:]))
	return b.String()
}

// segmentsSafe reports whether every stretch of s between its SGR
// sequences is one Sanitize leaves alone.
func segmentsSafe(s string) bool {
	safe, last := true, 0
	forEachSGR(s, func(i, n int) {
		safe = safe && firstUnsafe(s[last:i], false) < 0
		last = i + n
	})
	return safe && firstUnsafe(s[last:], false) < 0
}

// forEachSGR calls f with the index and length of each SGR sequence in s,
// in order.
func forEachSGR(s string, f func(i, n int)) {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], esc)
		if j < 0 {
			return
		}
		i += j
		n := sgrLen(s[i:])
		if n > 0 {
			f(i, n)
			i += n
		} else {
			i++
		}
	}
}

// sgrLen is the length of the SGR sequence s starts with, 0 if none.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != esc || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		default:
			return 0
		}
	}
	return 0
}
