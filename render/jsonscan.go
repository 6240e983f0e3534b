package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Reading JSON without copying it. encoding/json copies every value it
// keeps (a json.RawMessage member is a fresh slice) and scans its input
// twice (once to validate, once to decode), which is what a 67 MiB
// resources/read line or a 100,000-item listing pays for most: each pass
// over the line costs about half a second. These functions walk a value
// once, validate it as they go, and hand back subslices of the input.
// They never modify the input, so a subslice stays valid for as long as
// the caller keeps the input unchanged.

// MaxJSONDepth is how deeply arrays and objects may nest in a value these
// functions read, the same bound encoding/json sets, so a value one of
// them accepts is not refused later for its depth.
const MaxJSONDepth = 10000

// ObjectMembers calls fn with each member of the JSON object raw, in
// order: its key, unescaped, and its value as a subslice of raw. fn
// returns false to stop early (the rest is then not validated). An error
// says where raw stops being a JSON object.
func ObjectMembers(raw []byte, fn func(key string, value []byte) bool) error {
	return ObjectMemberBytes(raw, func(key, value []byte) bool { return fn(string(key), value) })
}

// ObjectMemberBytes is ObjectMembers with each key as bytes: a subslice
// of raw when it has no escapes, else a decoded copy. fn must not keep
// the key; reading it costs no allocation, where a string key costs one
// a member (a million of them in a listing of 120,000 items).
func ObjectMemberBytes(raw []byte, fn func(key, value []byte) bool) error {
	s := jsonScanner{b: raw}
	s.space()
	if !s.peek('{') {
		return s.fail("not a JSON object (" + jsonKind(raw) + ")")
	}
	s.i++
	s.space()
	if s.peek('}') {
		s.i++
		return s.end()
	}
	for {
		s.space()
		ks := s.i
		if !s.peek('"') {
			return s.fail("an object key must be a string")
		}
		if err := s.str(); err != nil {
			return err
		}
		key, err := StringBytes(raw[ks:s.i])
		if err != nil {
			return err
		}
		s.space()
		if !s.peek(':') {
			return s.fail("expected ':' after an object key")
		}
		s.i++
		s.space()
		vs := s.i
		if err := s.value(1); err != nil {
			return err
		}
		if !fn(key, raw[vs:s.i]) {
			return nil
		}
		if done, err := s.next('}', "an object"); done || err != nil {
			return err
		}
	}
}

// ArrayElements calls fn with each element of the JSON array raw, in
// order, as a subslice of raw; fn returns false to stop early. null is an
// empty array.
func ArrayElements(raw []byte, fn func(elem []byte) bool) error {
	s := jsonScanner{b: raw}
	s.space()
	if s.lit("null") == nil {
		return s.end()
	}
	if !s.peek('[') {
		return s.fail("not a JSON array (" + jsonKind(raw) + ")")
	}
	s.i++
	s.space()
	if s.peek(']') {
		s.i++
		return s.end()
	}
	for {
		s.space()
		vs := s.i
		if err := s.value(1); err != nil {
			return err
		}
		if !fn(raw[vs:s.i]) {
			return nil
		}
		if done, err := s.next(']', "an array"); done || err != nil {
			return err
		}
	}
}

// next reads what follows a top-level member or element: a ',' before
// another, or the closing byte, after which only white space may come
// (done).
func (s *jsonScanner) next(closing byte, in string) (done bool, err error) {
	s.space()
	switch {
	case s.peek(','):
		s.i++
		return false, nil
	case s.peek(closing):
		s.i++
		return true, s.end()
	}
	return false, s.fail("expected ',' or '" + string(closing) + "' in " + in)
}

// ValidJSON reports whether raw is one valid JSON value (surrounding
// white space allowed), as json.Valid does, in one faster pass.
func ValidJSON(raw []byte) error {
	s := jsonScanner{b: raw}
	s.space()
	if err := s.value(0); err != nil {
		return err
	}
	return s.end()
}

// StringBytes returns the bytes a JSON string value stands for: a
// subslice of raw when it has no escapes and is valid UTF-8 (the usual
// case, and the only one a base64 blob needs), else a decoded copy, as
// encoding/json decodes it. raw must be a string.
func StringBytes(raw []byte) ([]byte, error) {
	b, _, err := stringPrefix(raw, math.MaxInt)
	return b, err
}

// stringPrefix is StringBytes for a caller that keeps only the start of a
// long string: prefix holds its first limit bytes or more (all of it when
// it is shorter), total is the length of all of it. prefix is a subslice
// of raw when the string has no escapes and is valid UTF-8, else a decoded
// copy of at most limit+utf8.UTFMax bytes: a 64 MiB text full of \n
// escapes is measured, not decoded whole, to show its first page. It
// decodes as encoding/json does: each byte of invalid UTF-8, and each
// \u escape of an unpaired surrogate, stands for U+FFFD.
func stringPrefix(raw []byte, limit int) (prefix []byte, total int, err error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, 0, fmt.Errorf("not a JSON string (%s)", jsonKind(raw))
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s, len(s), nil
	}
	out := make([]byte, 0, min(len(s), limit)+utf8.UTFMax)
	put := func(b []byte) {
		if len(out) < limit {
			out = append(out, b[:min(len(b), limit-len(out))]...)
		}
		total += len(b)
	}
	var rb [utf8.UTFMax]byte
	putRune := func(r rune) {
		n := utf8.EncodeRune(rb[:], r)
		if len(out) < limit {
			out = append(out, rb[:n]...) // whole: a prefix may end past limit
		}
		total += n
	}
	for len(s) > 0 {
		run := s
		if i := bytes.IndexByte(s, '\\'); i >= 0 {
			run = s[:i]
		}
		s = s[len(run):]
		if utf8.Valid(run) {
			put(run)
		} else {
			for len(run) > 0 {
				r, size := utf8.DecodeRune(run)
				if r == utf8.RuneError && size == 1 {
					putRune(utf8.RuneError)
				} else {
					put(run[:size])
				}
				run = run[size:]
			}
		}
		if len(s) == 0 {
			break
		}
		// s starts with a backslash.
		if len(s) < 2 {
			return nil, 0, fmt.Errorf("%w: a string ends in a lone backslash", errJSONSyntax)
		}
		n := 2
		switch c := s[1]; c {
		case '"', '\\', '/':
			put(s[1:2])
		case 'b':
			put([]byte{'\b'})
		case 'f':
			put([]byte{'\f'})
		case 'n':
			put([]byte{'\n'})
		case 'r':
			put([]byte{'\r'})
		case 't':
			put([]byte{'\t'})
		case 'u':
			r := getu4(s)
			if r < 0 {
				return nil, 0, fmt.Errorf("%w: invalid \\u escape in a string", errJSONSyntax)
			}
			n = 6
			if utf16.IsSurrogate(r) {
				if pair := utf16.DecodeRune(r, getu4(s[6:])); pair != unicode.ReplacementChar {
					r, n = pair, 12
				} else {
					r = unicode.ReplacementChar
				}
			}
			putRune(r)
		default:
			return nil, 0, fmt.Errorf("%w: invalid escape %q in a string", errJSONSyntax, c)
		}
		s = s[n:]
	}
	return out, total, nil
}

// getu4 decodes the \uXXXX escape at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// errJSONSyntax marks the errors of these functions.
var errJSONSyntax = errors.New("invalid JSON")

type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) fail(what string) error {
	return fmt.Errorf("%w at byte %d of %d: %s", errJSONSyntax, s.i, len(s.b), what)
}

func (s *jsonScanner) peek(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *jsonScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) end() error {
	s.space()
	if s.i != len(s.b) {
		return s.fail("unexpected data after the value")
	}
	return nil
}

func (s *jsonScanner) lit(word string) error {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return nil
	}
	return s.fail("invalid literal")
}

// value skips one value starting at s.i (white space already skipped);
// depth is how many containers enclose it.
func (s *jsonScanner) value(depth int) error {
	if s.i < len(s.b) && (s.b[s.i] == '{' || s.b[s.i] == '[') {
		return s.nested(depth)
	}
	return s.scalar()
}

func (s *jsonScanner) scalar() error {
	if s.i >= len(s.b) {
		return s.fail("unexpected end of JSON input")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.num()
	}
	return s.fail(fmt.Sprintf("invalid character %q looking for a value", s.b[s.i]))
}

// nested skips the object or array at s.i with an explicit stack of
// closers, so nesting costs bytes, not Go stack.
func (s *jsonScanner) nested(depth int) error {
	var stack []byte
	for {
		// s.i is at a value.
		if s.i < len(s.b) && (s.b[s.i] == '{' || s.b[s.i] == '[') {
			if depth+len(stack) >= MaxJSONDepth {
				return s.fail(fmt.Sprintf("exceeded max depth (MaxJSONDepth = %d)", MaxJSONDepth))
			}
			closer := byte(']')
			if s.b[s.i] == '{' {
				closer = '}'
			}
			stack = append(stack, closer)
			s.i++
			s.space()
			if !s.peek(closer) {
				if closer == '}' {
					if err := s.key(); err != nil {
						return err
					}
				}
				continue // at the first value inside
			}
			s.i++
			stack = stack[:len(stack)-1]
		} else if err := s.scalar(); err != nil {
			return err
		}
		// A value ended: close what it ends, or go on to the next value.
		for {
			if len(stack) == 0 {
				return nil
			}
			s.space()
			if s.i >= len(s.b) {
				return s.fail("unexpected end of JSON input")
			}
			top := stack[len(stack)-1]
			c := s.b[s.i]
			if c == top {
				s.i++
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				what := "an array"
				if top == '}' {
					what = "an object"
				}
				return s.fail(fmt.Sprintf("invalid character %q after a value in %s", c, what))
			}
			s.i++
			s.space()
			if top == '}' {
				if err := s.key(); err != nil {
					return err
				}
			}
			break
		}
	}
}

// key reads an object key and its colon, and the white space after.
func (s *jsonScanner) key() error {
	if !s.peek('"') {
		return s.fail("an object key must be a string")
	}
	if err := s.str(); err != nil {
		return err
	}
	s.space()
	if !s.peek(':') {
		return s.fail("expected ':' after an object key")
	}
	s.i++
	s.space()
	return nil
}

// SWAR constants: a byte-wise test on eight bytes at a time.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// swarSpecial reports whether any of the eight bytes in v is below 0x20,
// a quote or a backslash (exactly: no false positives or negatives).
func swarSpecial(v uint64) bool {
	quote := v ^ (swarOnes * '"')
	slash := v ^ (swarOnes * '\\')
	return ((v-swarOnes*0x20)&^v|(quote-swarOnes)&^quote|(slash-swarOnes)&^slash)&swarHighs != 0
}

// str skips a string at s.i: it must close, escapes must be valid, and no
// raw control byte may appear. Long runs of plain bytes go eight at a time.
func (s *jsonScanner) str() error {
	b := s.b
	i := s.i + 1
	for {
		for ; i+8 <= len(b); i += 8 {
			v := binary.LittleEndian.Uint64(b[i:])
			if swarSpecial(v) {
				break
			}
		}
		if i >= len(b) {
			s.i = i
			return s.fail("unexpected end of JSON input in a string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(b) {
				s.i = i
				return s.fail("unexpected end of JSON input in a string escape")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					s.i = i
					return s.fail(`invalid \u escape in a string`)
				}
				i += 6
			default:
				s.i = i
				return s.fail(fmt.Sprintf("invalid escape %q in a string", b[i+1]))
			}
		case c < 0x20:
			s.i = i
			return s.fail(fmt.Sprintf("invalid control character %q in a string", c))
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// num skips a number with JSON's grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (s *jsonScanner) num() error {
	b, i := s.b, s.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		s.i = i
		return s.fail("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			s.i = i
			return s.fail("invalid number: no digits after the decimal point")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.i = i
			return s.fail("invalid number: no digits in the exponent")
		}
	}
	s.i = i
	return nil
}
