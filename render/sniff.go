package render

import (
	"bytes"
	"unicode/utf8"
)

// textSniffer decides, a chunk at a time, whether a byte stream is text:
// valid UTF-8 with no NUL byte. A character split across chunks is carried
// to the next chunk, so the verdict does not depend on chunk boundaries.
type textSniffer struct {
	carry  [utf8.UTFMax]byte
	n      int
	binary bool
}

// write feeds the next chunk and reports whether the stream is still text.
func (t *textSniffer) write(p []byte) bool {
	if t.binary {
		return false
	}
	for t.n > 0 && len(p) > 0 {
		t.carry[t.n] = p[0]
		t.n++
		p = p[1:]
		if utf8.FullRune(t.carry[:t.n]) {
			if r, size := utf8.DecodeRune(t.carry[:t.n]); r == utf8.RuneError && size == 1 {
				t.binary = true
				return false
			}
			t.n = 0
		}
	}
	// Hold back a trailing incomplete character.
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) || bytes.IndexByte(p[:cut], 0) >= 0 {
		t.binary = true
		return false
	}
	t.n += copy(t.carry[t.n:], p[cut:])
	return true
}

// text reports the verdict at the end of the stream.
func (t *textSniffer) text() bool { return !t.binary && t.n == 0 }
