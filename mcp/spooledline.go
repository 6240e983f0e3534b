package mcp

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/howl-mcp/howl/render"
)

// A blob read through mcp_read_ (howl read) is decoded from the spool
// file its line was written to, not from memory: the line is held as a
// short copy in which each long base64 "blob" value is a placeholder, and
// the decoder reads the value from the file. Reading a 50 MiB blob then
// costs howl about 5 MB (the line's first MiB, held before it is spooled,
// and the decoder's buffers) where it cost the 67 MiB line.
//
// The copy is built by a scanner fed each piece of the line as it is
// spooled, so the line is not read twice, and only while a request that
// can use it waits. A line the copy does not serve
// (any other long string in it, a short copy that grows past its bound,
// an answer to a request that did not ask for it, a notification) is read
// back from the file whole, as before.

// elideStringBytes is the length past which a blob's base64 is left in
// the spool file.
const elideStringBytes = 64 << 10

// maxCompactBytes bounds the short copy; a line whose copy would grow
// past it is read back whole instead.
const maxCompactBytes = 4 << 20

// spooledSpan is where a placeholder's string lies in the spool file:
// its characters, without the quotes.
type spooledSpan struct{ off, n int64 }

// spooledStrings are the blob values a line's short copy left in its
// spool file. It implements render.LongStrings; Close ends the file.
type spooledStrings struct {
	file   *os.File
	nonce  string
	spans  []spooledSpan
	elided int // bytes the placeholders stand for, beyond their own
}

var _ render.LongStrings = (*spooledStrings)(nil)

// placeholderPrefix starts each placeholder. The nonce after it is fresh
// for each line, so a server cannot write a string that passes for one.
const placeholderPrefix = "howl:spooled-base64 "

func (s *spooledStrings) placeholder(i int) string {
	return fmt.Sprintf(`"%s%s#%d"`, placeholderPrefix, s.nonce, i)
}

// Open reads the blob a placeholder (its JSON, quotes included) stands for.
func (s *spooledStrings) Open(raw []byte) (io.Reader, int64, bool) {
	if s == nil {
		return nil, 0, false
	}
	rest, ok := bytes.CutPrefix(raw, []byte(`"`+placeholderPrefix+s.nonce+"#"))
	if !ok || len(rest) < 2 || len(rest) > 12 {
		return nil, 0, false
	}
	i, err := strconv.Atoi(string(rest[:len(rest)-1]))
	if err != nil || i < 0 || i >= len(s.spans) || !bytes.Equal(raw, []byte(s.placeholder(i))) {
		return nil, 0, false
	}
	sp := s.spans[i]
	return io.NewSectionReader(s.file, sp.off, sp.n), sp.n, true
}

// Close closes the spool file, which was unlinked when it was made.
func (s *spooledStrings) Close() error {
	if s == nil || s.file == nil {
		return nil
	}
	return s.file.Close()
}

// isBase64 marks the bytes of standard base64. A value with any other
// byte (an escape, a line break) stays in the line.
var isBase64 = func() (t [256]bool) {
	for _, r := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=" {
		t[r] = true
	}
	return t
}()

// lineCompactor builds a line's short copy as the line is fed to it.
type lineCompactor struct {
	out    []byte
	long   *spooledStrings
	off    int64 // the line's offset of the next byte fed
	failed bool  // the copy cannot serve: the line is read back whole

	inString bool
	escaped  bool
	start    int64  // the line's offset of the string's first character
	str      []byte // the string so far, while it is short
	tooLong  bool   // the string is past elideStringBytes: not copied
	base64   bool   // every character so far is base64

	key      []byte // the last short string, kept while a ':' may follow it
	haveKey  bool
	colon    bool // a ':' followed key
	blobNext bool // the string being read is a "blob" member's value
}

func newLineCompactor(file *os.File) *lineCompactor {
	return &lineCompactor{long: &spooledStrings{file: file, nonce: rand.Text()}}
}

// feed scans the next piece of the line (none when c is nil: no copy is
// being built).
func (c *lineCompactor) feed(p []byte) {
	for c != nil && len(p) > 0 && !c.failed {
		if c.inString {
			p = c.feedString(p)
			continue
		}
		q := bytes.IndexByte(p, '"')
		if q < 0 {
			c.structural(p)
			return
		}
		c.structural(p[:q])
		c.off++
		c.inString, c.escaped, c.tooLong, c.base64 = true, false, false, true
		c.start, c.str = c.off, c.str[:0]
		c.blobNext = c.haveKey && c.colon && strings.EqualFold(string(c.key), "blob")
		c.haveKey, c.colon = false, false
		p = p[q+1:]
	}
}

// structural copies bytes outside strings and follows "key": pairs.
func (c *lineCompactor) structural(seg []byte) {
	c.off += int64(len(seg))
	c.out = append(c.out, seg...)
	if len(c.out) > maxCompactBytes {
		c.failed, c.out = true, nil
		return
	}
	for _, b := range seg {
		switch b {
		case ' ', '\t', '\n', '\r':
		case ':':
			c.colon = c.haveKey && !c.colon
		default:
			c.haveKey, c.colon = false, false
		}
	}
}

// feedString scans a string's characters up to its closing quote, and
// returns what follows it in p.
func (c *lineCompactor) feedString(p []byte) []byte {
	// The first quote ends the string unless a backslash comes before it
	// (only up to the quote: a piece's later strings are not looked at
	// here, or a piece of many short strings costs its square).
	end := bytes.IndexByte(p, '"')
	chars := p
	if end >= 0 {
		chars = p[:end]
	}
	if c.escaped || bytes.IndexByte(chars, '\\') >= 0 {
		end = c.scanEscaped(p)
		chars = p
		if end >= 0 {
			chars = p[:end]
		}
	} else {
		c.checkBase64(chars)
	}
	c.off += int64(len(chars))
	if !c.tooLong && len(c.str)+len(chars) <= elideStringBytes {
		c.str = append(c.str, chars...)
	} else {
		c.tooLong = true
	}
	if c.tooLong && (!c.blobNext || !c.base64) {
		c.failed = true // a long string no placeholder can stand for
		c.out, c.str = nil, nil
		return nil
	}
	if end < 0 {
		return nil
	}
	c.closeString()
	return p[end+1:]
}

// scanEscaped finds a string's end byte by byte, escapes and all; -1 when
// it does not end in p.
func (c *lineCompactor) scanEscaped(p []byte) int {
	for i, b := range p {
		switch {
		case c.escaped:
			c.escaped = false
		case b == '\\':
			c.escaped, c.base64 = true, false
		case b == '"':
			return i
		case !isBase64[b]:
			c.base64 = false
		}
	}
	return -1
}

func (c *lineCompactor) checkBase64(chars []byte) {
	if !c.base64 {
		return
	}
	for _, b := range chars {
		if !isBase64[b] {
			c.base64 = false
			return
		}
	}
}

// closeString ends the string at c.off: a short one is copied, a long
// blob value becomes a placeholder, and any other long one fails the copy.
func (c *lineCompactor) closeString() {
	n := c.off - c.start
	c.off++ // the closing quote
	c.inString = false
	switch {
	case !c.tooLong:
		c.out = append(c.out, '"')
		c.out = append(c.out, c.str...)
		c.out = append(c.out, '"')
		c.key, c.haveKey = append(c.key[:0], c.str[:min(len(c.str), 16)]...), len(c.str) <= 16
	case c.blobNext && c.base64:
		ph := c.long.placeholder(len(c.long.spans))
		c.long.spans = append(c.long.spans, spooledSpan{off: c.start, n: n})
		c.long.elided += int(n) + 2 - len(ph)
		c.out = append(c.out, ph...)
	default:
		c.failed = true
	}
	if len(c.out) > maxCompactBytes {
		c.failed = true
	}
}

// result is the short copy and what it left in the file, or ok false
// when the line must be read back whole.
func (c *lineCompactor) result() (compact []byte, long *spooledStrings, ok bool) {
	if c == nil || c.failed || c.inString || len(c.long.spans) == 0 {
		return nil, nil, false
	}
	return bytes.TrimRight(c.out, "\r\n"), c.long, true
}
