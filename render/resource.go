package render

import (
	"encoding/json"
	"fmt"
	"io"
)

// Item is one rendered content item: a *TextResult, *SpillResult,
// *ItemError or *OmittedItems.
type Item interface{ item() }

// ItemError replaces one content item that could not be rendered (a
// malformed item, invalid base64, a blob over MaxDecodedBlob, a failed
// spill). The other items of the response still render.
type ItemError struct {
	Message string `json:"error"`
	Code    Code   `json:"code"`
	// Index is the item's position in the server's contents array.
	Index int    `json:"index"`
	URI   string `json:"uri,omitempty"`
}

func (*ItemError) item() {}

// OmittedItems is the one marker that stands for every item past the
// response ceiling.
type OmittedItems struct {
	Omitted int    `json:"omitted"`
	Note    string `json:"note"`
}

func (*OmittedItems) item() {}

// ReadResult is a rendered resource read. Its coverage fields come first:
// how many items the server sent, how many are shown, and a note naming
// shown-of-total. Items holds the shown items in the server's order, then,
// if any were omitted, one *OmittedItems marker.
//
// Wire shape: a read of exactly one content item (the usual case)
// serializes as that item alone, a *TextResult, *SpillResult or *ItemError
// object, so a single read is the documented mcp_read result. Any other count
// serializes as {"items_total", "items_shown", "note", "items"}.
type ReadResult struct {
	ItemsTotal int    `json:"items_total"`
	ItemsShown int    `json:"items_shown"`
	Note       string `json:"note"`
	Items      []Item `json:"items"`
}

// MarshalJSON implements the wire shape described on ReadResult.
func (r ReadResult) MarshalJSON() ([]byte, error) {
	if r.ItemsTotal == 1 && len(r.Items) == 1 {
		return Marshal(r.Items[0])
	}
	type envelope ReadResult
	return Marshal(envelope(r))
}

// envelopeReserve is the room kept for ReadResult's own fields and the
// omission marker when several items share the response ceiling.
const envelopeReserve = 1024

// ReadContents renders the contents array of a resources/read result. It
// takes the raw JSON items, because a strict typed parse fails the whole read
// on one odd item: here each item is text or blob by field presence, and a
// malformed one becomes an *ItemError while the others render. Text items
// (and blobs that sniff as text) are paged under opts, each on its own;
// binary blobs are spilled to store. The serialized result stays within
// MaxResponseBytes: text pages shrink to share it, and items that still do
// not fit are replaced by one *OmittedItems marker. The only error is a
// teaching *Error for invalid opts.
func ReadContents(store *SpillStore, server string, contents []json.RawMessage, opts PageOptions) (*ReadResult, error) {
	return ReadContentsFrom(store, server, contents, opts, nil)
}

// LongStrings gives the long strings a transport left out of an answer
// it holds in memory (mcp's spool files): Open returns the characters of
// the string a stand-in value (its JSON) replaced, and how many there
// are, or ok false when raw stands for none. The characters are base64
// as it was sent, with no escapes and no line breaks (decodeBlobFrom
// relies on it).
type LongStrings interface {
	Open(raw []byte) (r io.Reader, n int64, ok bool)
}

// ReadContentsFrom is ReadContents for contents whose blobs long may hold:
// a blob that long opens is decoded from its reader, never held whole.
func ReadContentsFrom(store *SpillStore, server string, contents []json.RawMessage, opts PageOptions, long LongStrings) (*ReadResult, error) {
	p, err := newPager(opts)
	if err != nil {
		return nil, err
	}
	room := MaxResponseBytes - envelopeReserve
	if len(contents) == 1 {
		room = MaxResponseBytes
	}
	parts := layout(len(contents), room, func(i int) *part {
		return contentPart(store, p, server, i, contents[i], long)
	})
	r := &ReadResult{ItemsTotal: len(contents), Items: []Item{}}
	for _, part := range parts {
		if part != nil {
			r.Items = append(r.Items, part.item)
		}
	}
	r.ItemsShown = len(r.Items)
	note, omitted := omittedNote(parts, "items")
	switch {
	case len(contents) == 0:
		r.Note = "the server returned no content items"
	case omitted > 0:
		r.Note = note + "; re-read with a smaller max_bytes or a pattern to fit more"
		r.Items = append(r.Items, &OmittedItems{Omitted: omitted, Note: note})
	default:
		r.Note = fmt.Sprintf("showing %d of %d items", r.ItemsShown, r.ItemsTotal)
	}
	if n := failedItems(r.Items); n > 0 {
		r.Note += fmt.Sprintf("; %d of them could not be shown (their error stands in their place)", n)
	}
	return r, nil
}

// contentPart parses and prepares content item i for layout.
func contentPart(store *SpillStore, p *pager, server string, i int, raw json.RawMessage, long LongStrings) *part {
	c, perr := parseContent(i, raw)
	if perr != nil {
		return fixedPart(perr)
	}
	uri, mimeType := clampMeta(c.uri), clampMeta(c.mimeType)
	if c.text.present {
		s := p.lazy(c.text.s)
		return textPart(p.maxBytes, func(page int) Item { return p.page(s(), uri, mimeType, page) })
	}
	var b decodedBlob
	var err error
	if r, n, ok := openLong(long, c.blob.raw); ok {
		b, err = decodeBlobFrom(store, server, c.uri, c.mimeType, r, n)
	} else {
		var b64 []byte
		if b64, err = c.blob.bytes(); err == nil {
			b, err = decodeBlob(store, server, c.uri, c.mimeType, b64)
		}
	}
	switch {
	case err != nil:
		return fixedPart(itemError(i, uri, err))
	case b.spill != nil:
		b.spill.URI, b.spill.MimeType = uri, mimeType
		return fixedPart(b.spill)
	}
	s := p.lazy(b.text)
	return textPart(p.maxBytes, func(page int) Item { return pageSniffed(p, s(), uri, mimeType, page) })
}

// openLong opens the long string raw stands for, if long holds one.
func openLong(long LongStrings, raw []byte) (io.Reader, int64, bool) {
	if long == nil || raw == nil {
		return nil, 0, false
	}
	return long.Open(raw)
}

func fixedPart(it Item) *part {
	out := mustMarshal(it)
	return &part{render: func(int) (Item, []byte) { return it, out }}
}

func textPart(want int, render func(page int) Item) *part {
	return &part{want: want, render: func(page int) (Item, []byte) {
		it := render(page)
		return it, mustMarshal(it)
	}}
}

// failedItems counts the items an ItemError stands in for.
func failedItems(items []Item) int {
	n := 0
	for _, it := range items {
		if _, ok := it.(*ItemError); ok {
			n++
		}
	}
	return n
}

func itemError(i int, uri string, err error) *ItemError {
	code := CodeInvalidContent
	if rerr, ok := err.(*Error); ok {
		code = rerr.Code
	}
	return &ItemError{Message: err.Error(), Code: code, Index: i, URI: uri}
}
