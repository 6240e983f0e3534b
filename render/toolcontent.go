package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// boundContent lays the content items of a tool result out under the
// response ceiling. It returns the serialized content array, how many items
// it shows, how many of those were changed and how many could not be shown
// (an ItemError stands in for their payload).
func boundContent(store *SpillStore, server string, items []json.RawMessage) (out []byte, shown, changed, failed int, omitted string) {
	parts := layout(len(items), MaxResponseBytes-envelopeReserve, func(i int) *part {
		return toolItemPart(store, server, i, items[i])
	})
	out = append(out, '[')
	for i, p := range parts {
		if p == nil {
			continue
		}
		if shown > 0 {
			out = append(out, ',')
		}
		out = append(out, p.out...)
		shown++
		if _, ok := p.item.(*ItemError); ok {
			failed++
		}
		if !bytes.Equal(p.out, items[i]) {
			changed++
		}
	}
	omitted, n := omittedNote(parts, "content items")
	if n > 0 {
		if shown > 0 {
			out = append(out, ',')
		}
		out = append(out, mustMarshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", "[howl] " + omitted + "; re-call the tool with narrower arguments"})...)
	}
	return append(out, ']'), shown, changed, failed, omitted
}

// toolItemPart prepares content item i of a tool result for layout.
func toolItemPart(store *SpillStore, server string, i int, raw json.RawMessage) *part {
	members, ok := objectMembers(raw)
	if !ok {
		return rawPart(clampedItem(i, "", raw, nil))
	}
	typ := ""
	if t := lookup(members, "type"); t >= 0 {
		typ, _ = stringValue(members[t].value)
	}
	if typ != "text" && typ != "resource" {
		for _, key := range []string{"data", "blob"} {
			if at := lookup(members, key); at >= 0 {
				return binaryPart(store, server, i, typ, members, at)
			}
		}
		return rawPart(clampedItem(i, typ, raw, members))
	}
	// A text or resource item has no business carrying base64 at its top
	// level; such members are dropped so no base64 survives.
	members, dropped := dropMembers(members, "data", "blob")
	note := ""
	if dropped > 0 {
		note = fmt.Sprintf("%d base64 member(s) dropped from a %s item", dropped, typ)
	}
	if typ == "text" {
		if at := lookup(members, "text"); at >= 0 {
			if v := members[at].value; v[0] == '"' {
				// A page is at most MaxSliceBytes: its text is all
				// that is decoded.
				if head, total, err := stringPrefix(v, MaxSliceBytes+utf8.UTFMax); err == nil {
					return toolTextPart(raw, members, at, head, total, note)
				}
			}
		}
	} else if at := lookup(members, "resource"); at >= 0 {
		return embeddedResourcePart(store, server, i, raw, members, at, note)
	}
	if note != "" {
		return rawPart(itemWith(members, -1, "", nil, note))
	}
	return rawPart(clampedItem(i, typ, raw, members))
}

// dropMembers returns members without those named by keys, and how many
// were dropped.
func dropMembers(members []member, keys ...string) ([]member, int) {
	kept := make([]member, 0, len(members))
	for _, m := range members {
		drop := false
		for _, k := range keys {
			drop = drop || m.key == k
		}
		if !drop {
			kept = append(kept, m)
		}
	}
	return kept, len(members) - len(kept)
}

func rawPart(out []byte) *part {
	return &part{render: func(int) (Item, []byte) { return nil, out }}
}

// failedPart is an item whose payload could not be shown: e stands in for
// it (out is the item with e in place), and the layout counts it.
func failedPart(e *ItemError, out []byte) *part {
	return &part{render: func(int) (Item, []byte) { return e, out }}
}

// toolTextPart is a text item: unchanged while its text fits the page and
// nothing else needed changing (dropNote is empty, no string to clamp),
// else rebuilt with the text sliced at a character boundary. The text is
// total bytes long; head is its start, at least the page asked for and a
// character more.
func toolTextPart(raw []byte, members []member, at int, head []byte, total int, dropNote string) *part {
	clampNote := ""
	if clampOthers(members, at) {
		clampNote = fmt.Sprintf("metadata strings clamped to %d bytes", MaxMetaString)
	}
	return &part{want: MaxSliceBytes, render: func(page int) (Item, []byte) {
		if total <= page && dropNote == "" && clampNote == "" {
			return nil, raw
		}
		// slice reads at most a character past the page.
		text, end, _ := slice(string(head[:min(len(head), page+utf8.UTFMax)]), 0, page)
		var notes []string
		if end < total {
			notes = append(notes, sliceNote("text", end, total, page))
		}
		notes = appendNonEmpty(notes, dropNote, clampNote)
		return nil, itemWith(members, at, "text", mustMarshal(text), strings.Join(notes, "; "))
	}}
}

func appendNonEmpty(notes []string, more ...string) []string {
	for _, n := range more {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// sliceNote states shown-of-total for a sliced tool text and how to get more.
func sliceNote(what string, end, total, page int) string {
	note := fmt.Sprintf("%s sliced: showing bytes 0-%d of %d; re-call the tool with narrower arguments to see the rest (tool text is bounded to %d bytes)",
		what, end, total, MaxSliceBytes)
	if page < MaxSliceBytes {
		note += fmt.Sprintf("; shortened to share the %d-byte response ceiling", MaxResponseBytes)
	}
	return note
}

// embeddedResourcePart renders an embedded resource exactly as a read
// renders a content item: text paged (unchanged while it fits), blobs
// spilled, malformed items replaced by an ItemError.
func embeddedResourcePart(store *SpillStore, server string, i int, raw []byte, members []member, at int, note string) *part {
	c, perr := parseContent(i, members[at].value)
	if perr != nil {
		return failedPart(perr, itemWith(members, at, "resource", mustMarshal(perr), "embedded resource is malformed and was replaced by an error"))
	}
	uri, mimeType := clampMeta(c.uri), clampMeta(c.mimeType)
	pg := &pager{maxBytes: MaxSliceBytes}
	if c.text.present {
		clean := note == "" && uri == c.uri && mimeType == c.mimeType && !clampOthers(members, at)
		s := pg.prepare(c.text.s)
		return &part{want: MaxSliceBytes, render: func(page int) (Item, []byte) {
			if len(c.text.s) <= page && clean {
				return nil, raw
			}
			tr := pg.page(s, uri, mimeType, page)
			return nil, itemWith(members, at, "resource", mustMarshal(tr), "embedded text resource bounded: "+tr.Note)
		}}
	}
	b64, err := c.blob.bytes()
	var b decodedBlob
	if err == nil {
		b, err = decodeBlob(store, server, c.uri, c.mimeType, b64)
	}
	switch {
	case err != nil:
		e := itemError(i, uri, err)
		return failedPart(e, itemWith(members, at, "resource", mustMarshal(e), "embedded blob omitted: "+err.Error()))
	case b.spill != nil:
		b.spill.URI, b.spill.MimeType = uri, mimeType
		return rawPart(itemWith(members, at, "resource", mustMarshal(b.spill),
			fmt.Sprintf("embedded blob (%d bytes) spilled to %s; the base64 is not inlined", b.spill.SizeBytes, b.spill.Path)))
	}
	s := pg.prepare(b.text)
	return &part{want: MaxSliceBytes, render: func(page int) (Item, []byte) {
		tr := pageSniffed(pg, s, uri, mimeType, page)
		return nil, itemWith(members, at, "resource", mustMarshal(tr), "embedded blob is UTF-8 text and is shown as text")
	}}
}

// binaryPart is an image, audio or other item carrying base64 in member at:
// the data is spilled (replaced by "spill"), or shown as "text" when it
// decodes to UTF-8 text, or dropped with a note when it cannot be decoded.
func binaryPart(store *SpillStore, server string, i int, typ string, members []member, at int) *part {
	if other := map[string]string{"data": "blob", "blob": "data"}[members[at].key]; lookup(members, other) >= 0 {
		key := members[at].key
		members, _ = dropMembers(members, other) // only one is spilled; no base64 survives
		at = lookup(members, key)
	}
	label := fmt.Sprintf("content item %d (%s)", i, clampDisplay(typ))
	mimeType := ""
	if m := lookup(members, "mimeType"); m >= 0 {
		mimeType, _ = stringValue(members[m].value)
	}
	b64, ok := stringBytes(members[at].value)
	if !ok {
		return rawPart(itemWith(members, at, "", nil, fmt.Sprintf("%q is not a base64 string and was omitted", members[at].key)))
	}
	b, err := decodeBlob(store, server, label, mimeType, b64)
	switch {
	case err != nil:
		// The error stands where the spill would have been, as it does in
		// an embedded resource.
		e := itemError(i, "", err)
		return failedPart(e, itemWith(members, at, "spill", mustMarshal(e), fmt.Sprintf("%s omitted: %v", members[at].key, err)))
	case b.spill != nil:
		b.spill.MimeType = clampMeta(mimeType)
		return rawPart(itemWith(members, at, "spill", mustMarshal(b.spill),
			fmt.Sprintf("%s (%d bytes) spilled to %s; the base64 is not inlined", members[at].key, b.spill.SizeBytes, b.spill.Path)))
	}
	return &part{want: MaxSliceBytes, render: func(page int) (Item, []byte) {
		text, end, _ := slice(b.text, 0, page)
		note := fmt.Sprintf("%s decoded to valid UTF-8 (claimed mime type %q) and is shown as text", members[at].key, clampDisplay(mimeType))
		if end < len(b.text) {
			note += "; " + sliceNote("text", end, len(b.text), page)
		}
		return nil, itemWith(members, at, "text", mustMarshal(text), note)
	}}
}

// clampedItem passes an item of unknown shape through with its strings
// clamped, or replaces it with a marker when it is still over MaxSliceBytes.
func clampedItem(i int, typ string, raw []byte, members []member) []byte {
	out, n := clampJSONStrings(raw)
	if len(out) > MaxSliceBytes {
		return mustMarshal(struct {
			Type string `json:"type"`
			Note string `json:"howl_note"`
		}{clampMeta(typ), fmt.Sprintf("content item %d of type %q omitted: %d bytes, over the %d-byte ceiling", i, clampDisplay(typ), len(raw), MaxSliceBytes)})
	}
	if n > 0 && members != nil {
		return itemWith(members, -1, "", nil, fmt.Sprintf("%d strings clamped to %d bytes", n, MaxMetaString))
	}
	return out
}

// clampOthers reports whether any member but the one at index skip has a
// string that clamping would change.
func clampOthers(members []member, skip int) bool {
	for i, m := range members {
		if i == skip {
			continue
		}
		if _, n := clampJSONStrings(m.value); n > 0 {
			return true
		}
	}
	return false
}

// itemWith rebuilds a content item with its coverage first: "type", then
// "howl_note", then the other members in their order with metadata strings
// clamped. The member at index at is replaced by key/value, or dropped when
// key is "".
func itemWith(members []member, at int, key string, value []byte, note string) []byte {
	out := make([]member, 0, len(members)+1)
	if t := lookup(members, "type"); t >= 0 {
		v, _ := clampJSONStrings(members[t].value)
		out = append(out, member{"type", v})
	}
	out = append(out, member{"howl_note", mustMarshal(note)})
	for i, m := range members {
		switch {
		case m.key == "type" || m.key == "howl_note":
		case i == at:
			if key != "" {
				out = append(out, member{key, value})
			}
		default:
			v, _ := clampJSONStrings(m.value)
			out = append(out, member{clampMeta(m.key), v})
		}
	}
	return writeObject(out)
}
