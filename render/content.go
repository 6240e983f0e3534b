package render

import (
	"encoding/json"
	"fmt"
)

// content is one resource content item parsed by field presence.
type content struct {
	uri      string
	mimeType string
	text     jsonString
	blob     jsonString
}

// jsonString records whether a member was present (and not null), whether it
// was a string, and its value. Its UnmarshalJSON sees the member's bytes
// without copying them, so a large text or blob is decoded exactly once.
type jsonString struct {
	present bool
	kind    string // JSON kind when not a string
	s       string
}

func (j *jsonString) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		j.present = true
		return json.Unmarshal(b, &j.s)
	case 'n':
		return nil // null counts as absent
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

// parseContent parses resource content item i defensively: it must be an
// object; "text" or "blob", exactly one, decides its kind; "uri" and
// "mimeType" must be strings when present. A violation is an *ItemError
// for this item only.
func parseContent(i int, raw json.RawMessage) (content, *ItemError) {
	var f struct {
		URI      jsonString `json:"uri"`
		MimeType jsonString `json:"mimeType"`
		Text     jsonString `json:"text"`
		Blob     jsonString `json:"blob"`
	}
	fail := func(uri, format string, args ...any) (content, *ItemError) {
		return content{}, &ItemError{
			Message: fmt.Sprintf("content item %d ", i) + fmt.Sprintf(format, args...) +
				`: a resource content item is an object with "uri", optional "mimeType", and exactly one of "text" or "blob"; the server sent an invalid item`,
			Code: CodeInvalidContent, Index: i, URI: clampMeta(uri),
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
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
