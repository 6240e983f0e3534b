package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToolCoverage leads a bounded tool result under the key "howl_coverage":
// what was changed, stated before any payload.
type ToolCoverage struct {
	Note string `json:"note"`
	// OriginalBytes is the size of the result the server sent.
	OriginalBytes int `json:"original_bytes"`
	// ContentItems is how many content items the server sent; ItemsShown
	// how many are in the result; ItemsChanged how many of those were
	// sliced, spilled or clamped (each says how in its "howl_note").
	ContentItems int `json:"content_items"`
	ItemsShown   int `json:"items_shown"`
	ItemsChanged int `json:"items_changed"`
}

// BoundToolResult bounds the raw JSON of an MCP CallToolResult before it
// reaches a model.
//
// A result is within bounds when it is at most MaxResponseBytes bytes and
// carries no binary content (no image or audio item, no embedded blob, no
// "data" or "blob" field): binary is always spilled, never passed to a model.
// Such a result is returned as is, the same bytes, with bounded false.
//
// Otherwise the result is rebuilt with "howl_coverage" (a ToolCoverage) as
// its first key, then the server's members in their order:
//   - content items share the MaxResponseBytes ceiling in order; text over
//     its share (at most MaxSliceBytes) is sliced at a character boundary;
//     items past the ceiling are replaced by one text item naming the count;
//   - image, audio and blob data go through the spill path: "data" is
//     replaced by "spill" (a SpillResult) or, when it decodes to UTF-8
//     text, by "text"; an embedded resource is replaced by its rendered
//     item (TextResult, SpillResult or ItemError), exactly as a read;
//   - every changed item gets a "howl_note" right after "type";
//   - server metadata strings (URIs, MIME types, names, anything in _meta
//     and in items of unknown type) are clamped to MaxMetaString bytes;
//   - structuredContent, _meta or any other member whose serialized form
//     exceeds MaxSliceBytes is replaced by a marker object.
//
// Items of unknown type pass through clamped rather than failing the
// result. The only error is a raw result that is not a JSON object.
func BoundToolResult(store *SpillStore, server string, raw []byte) (out []byte, bounded bool, err error) {
	members, ok := objectMembers(raw)
	if !ok {
		return nil, false, newError(CodeInvalidResult, nil, fmt.Sprintf(
			"tool result is not a JSON object (%s, %d bytes): a CallToolResult is an object with a \"content\" array",
			jsonKind(raw), len(raw)))
	}
	var items []json.RawMessage
	ci := lookup(members, "content")
	if ci >= 0 && ArrayElements(members[ci].value, func(e []byte) bool {
		items = append(items, e)
		return true
	}) != nil {
		ci = -1 // not an array: bounded like any other member
	}
	if len(raw) <= MaxResponseBytes && !anyBinary(items) {
		return raw, false, nil
	}

	cov := ToolCoverage{OriginalBytes: len(raw), ContentItems: len(items)}
	var notes []string
	result := []member{{key: "howl_coverage"}}
	for i, m := range members {
		if i == ci {
			content, shown, changed, failed, omitted := boundContent(store, server, items)
			cov.ItemsShown, cov.ItemsChanged = shown, changed
			if failed > 0 {
				notes = append(notes, fmt.Sprintf("%d of them could not be shown (their error stands in their place)", failed))
			}
			notes = appendNonEmpty(notes, omitted)
			result = append(result, member{m.key, content})
			continue
		}
		switch m.key {
		case "howl_coverage":
			notes = append(notes, "the server's own howl_coverage member was dropped")
		case "isError":
			result = append(result, m)
		case "structuredContent":
			result = append(result, member{m.key, ceilingMarker(m.key, m.value, m.value, &notes)})
		default:
			clamped, n := clampJSONStrings(m.value)
			if n > 0 {
				notes = append(notes, fmt.Sprintf("%d strings in %s clamped to %d bytes", n, clampDisplay(m.key), MaxMetaString))
			}
			result = append(result, member{clampMeta(m.key), ceilingMarker(m.key, m.value, clamped, &notes)})
		}
	}
	cov.Note = toolNote(cov, notes)
	result[0].value = mustMarshal(cov)
	return writeObject(result), true, nil
}

func toolNote(cov ToolCoverage, notes []string) string {
	note := fmt.Sprintf("tool result bounded (the server sent %d bytes; binary is never inlined and content shares a %d-byte ceiling): showing %d of %d content items, %d of them changed (see each item's howl_note)",
		cov.OriginalBytes, MaxResponseBytes, cov.ItemsShown, cov.ContentItems, cov.ItemsChanged)
	if len(notes) > maxListedRanges {
		notes = append(notes[:maxListedRanges], fmt.Sprintf("and %d more", len(notes)-maxListedRanges))
	}
	if len(notes) > 0 {
		note += "; " + strings.Join(notes, "; ")
	}
	return note
}

// ceilingMarker returns value, or a marker object in its place when the
// original's compact serialization exceeds MaxSliceBytes.
func ceilingMarker(key string, original, value json.RawMessage, notes *[]string) json.RawMessage {
	size := len(original)
	if size > MaxSliceBytes {
		size = compactLen(original)
	}
	if size <= MaxSliceBytes {
		return value
	}
	note := fmt.Sprintf("%s omitted: its serialized form is %d bytes, over the %d-byte ceiling; re-call the tool with narrower arguments",
		clampDisplay(key), size, MaxSliceBytes)
	*notes = append(*notes, note)
	return mustMarshal(struct {
		Omitted bool   `json:"howl_omitted"`
		Bytes   int    `json:"bytes"`
		Note    string `json:"note"`
	}{true, size, note})
}

// anyBinary reports whether any content item carries binary data.
func anyBinary(items []json.RawMessage) bool {
	for _, raw := range items {
		if itemBinary(raw) {
			return true
		}
	}
	return false
}

// itemBinary reports whether a content item is an image or audio item, or
// has a "data" or "blob" member, or a "resource" with a "blob", that is
// not null. It reads the item as encoding/json would decode it into a
// struct of those fields, but without decoding anything else (a 64 MiB
// text was scanned twice to find its "type"): names match whatever their
// case, the last of a name wins, and a value of the wrong kind (a "type"
// that is not a string, a "resource" that is not an object) counts as
// absent. An item that is not an object carries nothing.
func itemBinary(raw []byte) bool {
	var typ []byte
	var data, blob, resourceBlob bool
	_ = ObjectMemberBytes(raw, func(key, v []byte) bool {
		switch {
		case bytes.EqualFold(key, []byte("type")):
			if v[0] == '"' {
				typ, _ = StringBytes(v)
			}
		case bytes.EqualFold(key, []byte("data")):
			data = string(v) != "null"
		case bytes.EqualFold(key, []byte("blob")):
			blob = string(v) != "null"
		case bytes.EqualFold(key, []byte("resource")):
			_ = ObjectMemberBytes(v, func(key, v []byte) bool {
				if bytes.EqualFold(key, []byte("blob")) {
					resourceBlob = string(v) != "null"
				}
				return true
			})
		}
		return true
	})
	return string(typ) == "image" || string(typ) == "audio" || data || blob || resourceBlob
}
