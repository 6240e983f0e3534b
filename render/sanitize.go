package render

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes a server-supplied string safe to draw on a terminal. It
// removes escape sequences whole (ESC sequences; CSI, including the 8-bit
// 0x9b form; OSC ended by BEL or ST; DCS, SOS, PM and APC strings), C0
// controls other than newline and tab (so CR is removed), DEL, C1 controls
// and the Unicode bidi override and isolate controls, and replaces invalid
// UTF-8 with U+FFFD. No server can then move the cursor, retitle the
// window, write the clipboard, or hide or reorder text. The TUI applies it to
// every server string it draws; the JSON a model receives is not sanitized.
//
// A string with nothing to remove is returned as is, without allocating.
func Sanitize(s string) string { return sanitize(s, false) }

// SanitizeLine is Sanitize for one-line contexts (a title, a list row): it
// also turns newlines and tabs into spaces.
func SanitizeLine(s string) string { return sanitize(s, true) }

func sanitize(s string, oneLine bool) string {
	i := firstUnsafe(s, oneLine)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				if oneLine {
					c = ' '
				}
				b.WriteByte(c)
				i++
			case c == esc:
				i = skipEscape(s, i+1)
			case c < 0x20 || c == del:
				i++
			default:
				j := i + 1
				for j < len(s) && printableASCII(s[j]) {
					j++
				}
				b.WriteString(s[i:j])
				i = j
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// An invalid byte: a raw 8-bit C1 introducer starts a sequence,
			// anything else becomes U+FFFD.
			if next := skipC1(s, i+1, rune(c)); next >= 0 {
				i = next
			} else {
				b.WriteRune(utf8.RuneError)
				i++
			}
			continue
		}
		switch {
		case isC1(r):
			if next := skipC1(s, i+size, r); next >= 0 {
				i = next
			} else {
				i += size
			}
		case isBidiControl(r):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

const (
	bel = 0x07
	can = 0x18
	sub = 0x1a
	esc = 0x1b
	del = 0x7f
	// 8-bit (C1) forms of the sequence introducers and string terminator.
	c1DCS = 0x90
	c1SOS = 0x98
	c1CSI = 0x9b
	c1ST  = 0x9c
	c1OSC = 0x9d
	c1PM  = 0x9e
	c1APC = 0x9f
)

func printableASCII(c byte) bool { return c >= 0x20 && c < del }

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidiControl reports the embedding, override and isolate controls, which
// can make displayed text differ from its logical order.
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// firstUnsafe returns the index of the first byte Sanitize would change, or
// -1 when s is already safe. It reads bytes as they are, so SafeWriter can
// pass a safe write through without copying it to a string and back.
func firstUnsafe[T string | []byte](s T, oneLine bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if printableASCII(c) || !oneLine && (c == '\n' || c == '\t') {
				i++
				continue
			}
			return i
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 || isC1(r) || isBidiControl(r) {
			return i
		}
		i += size
	}
	return -1
}

// decodeRune is utf8.DecodeRuneInString or utf8.DecodeRune, as s is.
func decodeRune[T string | []byte](s T) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}

// skipC1 skips the sequence a C1 introducer (8-bit or U+0080-U+009F) starts,
// returning the index after it, or -1 when r introduces nothing.
func skipC1(s string, i int, r rune) int {
	switch r {
	case c1CSI:
		return skipCSI(s, i)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		return skipString(s, i)
	}
	return -1
}

// skipEscape skips the rest of an escape sequence whose ESC was just before
// index i and returns the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC
		return skipString(s, i+1)
	}
	// Any other sequence: intermediates 0x20-0x2F, then one final byte
	// 0x30-0x7E. Without a final byte only the ESC and intermediates go.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips CSI parameter (0x30-0x3F) and intermediate (0x20-0x2F)
// bytes and the final byte (0x40-0x7E). Any other byte ends the sequence
// unconsumed, to be handled on its own.
func skipCSI(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips a control string (OSC, DCS, SOS, PM, APC) through its
// terminator: BEL, ST (ESC \ or C1 ST), or CAN or SUB, which cancel it. An
// ESC that does not form ST ends the string and starts a new sequence. An
// unterminated string runs to the end of s: a terminal would not have shown
// it either.
func skipString(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case bel, can, sub:
				return i + 1
			case esc:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == c1ST || r == utf8.RuneError && size == 1 && c == c1ST {
			return i + size
		}
		i += size
	}
	return i
}
