package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// content is one resource content item parsed by field presence.
type content struct {
	uri      string
	mimeType string
	text     jsonString
	blob     jsonString
}

// jsonString records whether a member was present (and not null), whether it
// was a string, and its value. It sees the member's bytes without copying
// them; a blob keeps them that way (raw), so a large blob is never copied
// before it is decoded.
type jsonString struct {
	present bool
	kind    string // JSON kind when not a string
	s       string
	raw     []byte // the string's JSON, for a member read with keepRaw
}

// set reads a member's value; keepRaw keeps a string's JSON instead of
// decoding it.
func (j *jsonString) set(b []byte, keepRaw bool) error {
	switch b[0] {
	case '"':
		j.present = true
		if keepRaw {
			j.raw = b
			return nil
		}
		return json.Unmarshal(b, &j.s)
	case 'n':
		*j = jsonString{} // null counts as absent
		return nil
	case '{':
		j.kind = "an object"
	case '[':
		j.kind = "an array"
	case 't', 'f':
		j.kind = "a boolean"
	default:
		j.kind = "a number"
	}
	j.present = true
	return nil
}

// bytes is the blob's base64: a subslice of the server's answer unless
// its JSON has escapes.
func (j jsonString) bytes() ([]byte, error) {
	if j.raw == nil {
		return []byte(j.s), nil
	}
	return StringBytes(j.raw)
}

// parseContent parses resource content item i defensively: it must be an
// object; "text" or "blob", exactly one, decides its kind; "uri" and
// "mimeType" must be strings when present. A violation is an *ItemError
// for this item only. Its members are read in one pass without copying
// (keys match as encoding/json matches them, case-insensitively), so a
// blob of tens of megabytes costs one scan, not a decode and a copy.
func parseContent(i int, raw json.RawMessage) (content, *ItemError) {
	var f struct{ URI, MimeType, Text, Blob jsonString }
	fail := func(uri, format string, args ...any) (content, *ItemError) {
		return content{}, &ItemError{
			Message: fmt.Sprintf("content item %d ", i) + fmt.Sprintf(format, args...) +
				`: a resource content item is an object with "uri", optional "mimeType", and exactly one of "text" or "blob"; the server sent an invalid item`,
			Code: CodeInvalidContent, Index: i, URI: clampMeta(uri),
		}
	}
	var serr error
	err := ObjectMembers(raw, func(k string, v []byte) bool {
		switch {
		case strings.EqualFold(k, "uri"):
			serr = f.URI.set(v, false)
		case strings.EqualFold(k, "mimeType"):
			serr = f.MimeType.set(v, false)
		case strings.EqualFold(k, "text"):
			serr = f.Text.set(v, false)
		case strings.EqualFold(k, "blob"):
			serr = f.Blob.set(v, true)
		}
		return serr == nil
	})
	if err != nil && string(bytes.TrimSpace(raw)) != "null" || serr != nil {
		return fail("", "is not a JSON object (%s)", jsonKind(raw))
	}
	for _, m := range []struct {
		name string
		v    jsonString
	}{{"uri", f.URI}, {"mimeType", f.MimeType}, {"text", f.Text}, {"blob", f.Blob}} {
		if m.v.kind != "" {
			return fail(f.URI.s, "field %q is %s, not a string", m.name, m.v.kind)
		}
	}
	switch {
	case f.Text.present && f.Blob.present:
		return fail(f.URI.s, "(uri %q) has both \"text\" and \"blob\"", clampDisplay(f.URI.s))
	case !f.Text.present && !f.Blob.present:
		return fail(f.URI.s, "(uri %q) has neither \"text\" nor \"blob\"", clampDisplay(f.URI.s))
	}
	return content{uri: f.URI.s, mimeType: f.MimeType.s, text: f.Text, blob: f.Blob}, nil
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(raw []byte) string {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			return "got an array"
		case '"':
			return "got a string"
		case 'n':
			return "got null"
		case 't', 'f':
			return "got a boolean"
		case '{':
			return "got a malformed object"
		default:
			return "got a number or invalid JSON"
		}
	}
	return "got nothing"
}
