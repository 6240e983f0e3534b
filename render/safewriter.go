package render

import (
	"io"
	"sync"
	"unicode/utf8"
)

// MaxHeldEscape bounds what a SafeWriter holds back while it waits for the
// end of an escape sequence split across writes. A longer unterminated
// sequence (an OSC string that never ends) is dropped, as a terminal would
// have swallowed it.
const MaxHeldEscape = 64 << 10

// SafeWriter passes every byte written to it through Sanitize before it
// reaches the underlying writer: whatever a server, a model or a file put in
// a message, no escape sequence, control character or bidi control reaches
// the terminal or pipe behind it. Newlines and tabs pass. An escape sequence
// split across writes is held until it is complete (at most MaxHeldEscape
// bytes), so it is removed whole; Flush drops what is still held.
//
// Everything else is written at once, so a prompt without a newline shows
// before the program reads the answer. It is safe for concurrent use.
type SafeWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
}

// NewSafeWriter returns a SafeWriter writing to w.
func NewSafeWriter(w io.Writer) *SafeWriter { return &SafeWriter{w: w} }

// Write sanitizes p (with anything held from earlier writes) and writes the
// result. It reports len(p) written unless the underlying writer fails.
func (s *SafeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 && firstUnsafe(p, false) < 0 {
		// Nothing to remove and nothing cut at the end (a partial
		// character or escape is unsafe as it stands): the usual write,
		// passed on as it is. Copying it to a string, sanitizing the copy
		// and writing that was three copies of all of `howl ls --json`.
		if _, err := s.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	buf := p
	if len(s.held) > 0 {
		buf = append(s.held, p...)
		s.held = nil
	}
	cut := completeUpTo(buf)
	if rest := buf[cut:]; len(rest) > 0 {
		if len(rest) <= MaxHeldEscape {
			s.held = append([]byte(nil), rest...)
		}
		buf = buf[:cut]
	}
	if len(buf) == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(s.w, Sanitize(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush drops whatever incomplete sequence is held: it never ended, so it
// is not shown (a held partial UTF-8 character is written as U+FFFD).
func (s *SafeWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.held
	s.held = nil
	if out := Sanitize(string(held)); out != "" {
		_, err := io.WriteString(s.w, out)
		return err
	}
	return nil
}

// completeUpTo returns the index where an incomplete trailing escape
// sequence or UTF-8 character begins (len(b) when there is none):
// sanitizing b[:i] now and b[i:] with what comes next gives what
// sanitizing all of it at once would.
func completeUpTo(b []byte) int {
	// A character cut at the end decodes differently now than it will
	// whole: scan only what precedes it, and hold it.
	s := string(b[:len(b)-partialRuneTail(b)])
	for i := 0; i < len(s); {
		c := s[i]
		if c == esc {
			end, complete := escapeEnd(s, i)
			if !complete {
				return i
			}
			i = end
			continue
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(c) // a raw 8-bit C1 introducer
		}
		if isC1(r) {
			if end, complete := c1End(s, i+size, r); !complete {
				return i
			} else if end > i {
				i = end
				continue
			}
		}
		i += size
	}
	return len(s)
}

// partialRuneTail is the length of an incomplete UTF-8 character at the
// end of b (0 when there is none).
func partialRuneTail(b []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a leading byte
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// escapeEnd finds the end of the escape sequence whose ESC is at i, and
// whether it ended inside s.
func escapeEnd(s string, i int) (int, bool) {
	if i+1 >= len(s) {
		return len(s), false
	}
	switch s[i+1] {
	case '[':
		return csiEnd(s, i+2)
	case ']', 'P', 'X', '^', '_':
		return stringEnd(s, i+2)
	}
	j := i + 1
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j >= len(s) {
		return j, false
	}
	return j, true
}

// c1End is escapeEnd for a C1 introducer r whose sequence begins at i.
func c1End(s string, i int, r rune) (int, bool) {
	switch r {
	case c1CSI:
		return csiEnd(s, i)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		return stringEnd(s, i)
	}
	return i, true
}

func csiEnd(s string, i int) (int, bool) {
	end := skipCSI(s, i)
	if end < len(s) {
		return end, true
	}
	return end, end > i && s[end-1] >= 0x40 && s[end-1] <= 0x7e
}

func stringEnd(s string, i int) (int, bool) {
	end := skipString(s, i)
	switch {
	case end == len(s)-1 && s[end] == esc:
		return end, false // maybe the first byte of ESC \
	case end < len(s):
		return end, true
	case end == i:
		return end, false
	}
	last := s[end-1]
	if last == bel || last == can || last == sub || end-2 >= i && s[end-2] == esc && last == '\\' {
		return end, true
	}
	r, size := utf8.DecodeLastRuneInString(s[i:end])
	return end, r == c1ST || r == utf8.RuneError && size == 1 && last == c1ST
}
