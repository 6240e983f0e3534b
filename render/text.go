package render

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// PageOptions are the text paging arguments of a read (mcp_read's pattern,
// offset and max_bytes).
type PageOptions struct {
	// Pattern is an optional RE2 regular expression. When set, only the lines
	// it matches are kept, with ContextLines lines of context, grep-style,
	// and Offset, total_bytes and next_offset refer to that filtered stream.
	Pattern string
	// Offset is the byte offset where the page starts; negative is an error.
	// An offset inside a multibyte character is moved forward to the next
	// character; an offset past the end yields empty text and a note.
	Offset int
	// MaxBytes is the page size in bytes. 0 means DefaultMaxBytes, values
	// above MaxSliceBytes are clamped to it, values below MinMaxBytes are
	// raised to it, and negative values are an error.
	MaxBytes int
}

// TextResult is one page of text. Field order is wire order: every coverage
// field serializes before Text, so a consumer that keeps only the head of the
// JSON still learns what it is missing.
type TextResult struct {
	URI      string `json:"uri"`
	MimeType string `json:"mime_type"`
	// Truncated is true when Text is not the whole stream (bytes were left
	// out before or after the page).
	Truncated bool `json:"truncated"`
	// TotalBytes is the size of the stream being paged: the text, or with a
	// pattern the filtered output.
	TotalBytes int `json:"total_bytes"`
	// NextOffset is the offset of the next page, or null when this page
	// reaches the end (never 0 meaning "none").
	NextOffset *int `json:"next_offset"`
	// Note states the shown range of the total and how to continue.
	Note string `json:"note"`
	// Pattern, MatchedLines and TotalLines are present only when a pattern
	// filtered the text.
	Pattern      string `json:"pattern,omitempty"`
	MatchedLines *int   `json:"matched_lines,omitempty"`
	TotalLines   *int   `json:"total_lines,omitempty"`
	// Sniffed is true when the text came from a blob that decoded to valid
	// UTF-8 and is shown as text whatever its claimed MIME type.
	Sniffed bool `json:"sniffed,omitempty"`
	// Text is the page itself, always valid UTF-8.
	Text string `json:"text"`
}

func (*TextResult) item() {}

// PageText pages text under opts: the pattern filter first, then a
// UTF-8-safe slice at opts.Offset of at most the effective max_bytes. Invalid
// opts are a teaching *Error; everything else, including offsets past the
// end and invalid UTF-8 in text, yields a result whose note explains it.
// Without a pattern the cost is O(max_bytes), whatever len(text) is.
func PageText(uri, mimeType, text string, opts PageOptions) (*TextResult, error) {
	p, err := newPager(opts)
	if err != nil {
		return nil, err
	}
	return p.page(p.prepare(text), uri, mimeType, p.maxBytes), nil
}

// pager is a validated PageOptions with its pattern compiled once, reused for
// every text item of one read.
type pager struct {
	filter   *lineFilter // nil without a pattern
	offset   int
	maxBytes int    // effective page size
	maxNote  string // how max_bytes was adjusted, if it was
}

func newPager(opts PageOptions) (*pager, error) {
	p := &pager{offset: opts.Offset, maxBytes: opts.MaxBytes}
	if opts.Offset < 0 {
		return nil, newError(CodeInvalidArgument, nil, fmt.Sprintf(
			"offset %d is negative: pass 0 to read from the start, or the next_offset of a previous result",
			opts.Offset))
	}
	switch {
	case opts.MaxBytes < 0:
		return nil, newError(CodeInvalidArgument, nil, fmt.Sprintf(
			"max_bytes %d is negative: omit it (or pass 0) for the default %d, or pass a value up to %d",
			opts.MaxBytes, DefaultMaxBytes, MaxSliceBytes))
	case opts.MaxBytes == 0:
		p.maxBytes = DefaultMaxBytes
	case opts.MaxBytes > MaxSliceBytes:
		p.maxBytes = MaxSliceBytes
		p.maxNote = fmt.Sprintf("max_bytes %d was clamped to %d", opts.MaxBytes, MaxSliceBytes)
	case opts.MaxBytes < MinMaxBytes:
		p.maxBytes = MinMaxBytes
		p.maxNote = fmt.Sprintf("max_bytes %d was raised to %d so one UTF-8 character always fits", opts.MaxBytes, MinMaxBytes)
	}
	if opts.Pattern != "" {
		f, err := compileFilter(opts.Pattern)
		if err != nil {
			return nil, err
		}
		p.filter = f
	}
	return p, nil
}

// stream is text ready for paging: the raw text, or its filtered output.
// Of the filtered output only the window a page at the pager's offset can
// take is held: text is its bytes from base, and total is its whole size.
type stream struct {
	text        string
	base, total int
	filter      *lineFilter
	matched     int
	lines       int
}

// prepare runs the pattern filter, if any, over text once; the resulting
// stream can then be paged at several sizes up to the pager's.
func (p *pager) prepare(text string) stream {
	if p.filter == nil {
		return stream{text: text, total: len(text)}
	}
	// The window: a page of maxBytes from the offset, and a character's
	// bytes either side, which moving a cut to a character boundary reads.
	lo := max(p.offset-utf8.UTFMax, 0)
	hi := math.MaxInt
	if p.offset < math.MaxInt-p.maxBytes-utf8.UTFMax {
		hi = p.offset + p.maxBytes + utf8.UTFMax
	}
	out, total, matched, lines := p.filter.apply(text, lo, hi)
	return stream{text: out, base: lo, total: total, filter: p.filter, matched: matched, lines: lines}
}

// lazy defers prepare until the stream is first needed, so text the layout
// omits is never filtered.
func (p *pager) lazy(text string) func() stream {
	var s *stream
	return func() stream {
		if s == nil {
			prepared := p.prepare(text)
			s = &prepared
		}
		return *s
	}
}

// page slices one page of at most maxBytes from s at the pager's offset.
// maxBytes is below p.maxBytes only when a response ceiling shortens it.
func (p *pager) page(s stream, uri, mimeType string, maxBytes int) *TextResult {
	total := s.total
	r := &TextResult{URI: uri, MimeType: mimeType, TotalBytes: total}
	var notes []string
	if s.filter != nil {
		r.Pattern = clampMeta(s.filter.pattern)
		r.MatchedLines, r.TotalLines = intPtr(s.matched), intPtr(s.lines)
		notes = append(notes, fmt.Sprintf("pattern %q matched %d of %d lines (%d lines of context around each match)",
			clampDisplay(s.filter.pattern), s.matched, s.lines, ContextLines))
	}
	of := ""
	if s.filter != nil {
		of = " of the filtered output"
	}

	switch off := p.offset; {
	case total == 0:
		if off > 0 {
			r.Truncated = true
			notes = append(notes, fmt.Sprintf("offset %d is past the end", off))
		}
		notes = append(notes, "nothing to show: 0 bytes"+of)
	case off > total:
		r.Truncated = true
		notes = append(notes, fmt.Sprintf("offset %d is past the end of %d bytes%s; nothing shown: re-call with an offset below %d",
			off, total, of, total))
	case off == total:
		r.Truncated = true
		notes = append(notes, fmt.Sprintf("offset %d is the end of %d bytes%s; nothing more to show", off, total, of))
	default:
		start := s.base + roundForward(s.text, off-s.base)
		if start != off {
			notes = append(notes, fmt.Sprintf("offset %d was inside a UTF-8 character and was moved forward to %d", off, start))
		}
		text, end, replaced := slice(s.text, start-s.base, maxBytes)
		end += s.base
		r.Text = text
		r.Truncated = start > 0 || end < total
		rangeNote := fmt.Sprintf("showing bytes %d-%d of %d%s", start, end, total, of)
		switch {
		case end < total:
			r.NextOffset = intPtr(end)
			rangeNote += fmt.Sprintf("; re-call with offset=%d to continue (max_bytes is clamped to %d)", end, MaxSliceBytes)
		case start > 0:
			rangeNote += "; this is the last page"
		default:
			rangeNote += " (complete)"
		}
		notes = append(notes, rangeNote)
		if maxBytes < p.maxBytes && end < total {
			notes = append(notes, fmt.Sprintf("page shortened to %d bytes to fit the response ceiling of %d bytes", maxBytes, MaxResponseBytes))
		}
		if replaced > 0 {
			notes = append(notes, fmt.Sprintf("%d invalid UTF-8 bytes were replaced with U+FFFD", replaced))
		}
	}
	if p.maxNote != "" {
		notes = append(notes, p.maxNote)
	}
	r.Note = strings.Join(notes, "; ")
	return r
}

// slice returns the longest valid UTF-8 text of at most maxBytes that starts
// at start, which must be a character boundary below len(s), and the offset
// where it ends in s. Invalid bytes are replaced with U+FFFD, counted in
// replaced, and the budget applies to the output, so len(text) <= maxBytes
// always. Only the window is examined: the cost is O(maxBytes).
func slice(s string, start, maxBytes int) (text string, end, replaced int) {
	end = min(start+maxBytes, len(s))
	if end < len(s) {
		end = roundBackward(s, end)
	}
	if w := s[start:end]; utf8.ValidString(w) {
		return w, end, 0
	}
	var b strings.Builder
	b.Grow(maxBytes)
	i := start
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && size == 1
		need := size
		if bad {
			need = len(string(utf8.RuneError))
		}
		if b.Len()+need > maxBytes {
			break
		}
		if bad {
			b.WriteRune(utf8.RuneError)
			replaced++
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), i, replaced
}

// runeSpan reports the character that covers byte offset off of s from
// before it: the start of a valid multibyte rune beginning before off and
// ending after it. ok is false when off is already a character boundary.
// Invalid bytes count as one-byte characters.
func runeSpan(s string, off int) (start, end int, ok bool) {
	for k := 1; k < utf8.UTFMax && off-k >= 0; k++ {
		i := off - k
		if !utf8.RuneStart(s[i]) {
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if i+size > off {
			return i, i + size, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// roundForward moves off forward to the next character boundary.
func roundForward(s string, off int) int {
	if _, end, ok := runeSpan(s, off); ok {
		return end
	}
	return off
}

// roundBackward moves off back to the previous character boundary.
func roundBackward(s string, off int) int {
	if start, _, ok := runeSpan(s, off); ok {
		return start
	}
	return off
}

func intPtr(n int) *int { return &n }

// clampDisplay shortens a string quoted inside a note, so a long pattern
// cannot crowd the coverage fields out of the head of a result.
func clampDisplay(s string) string {
	const maxDisplay = 80
	if len(s) <= maxDisplay {
		return s
	}
	return s[:roundBackward(s, maxDisplay)] + "…"
}
