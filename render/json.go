package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Marshal serializes v the way every howl result is serialized: encoding/json
// in struct field order, without HTML escaping, so "<", ">" and "&" in text
// reach the model as themselves rather than as \u003c. Other packages must
// use it for results so that every caller formats a result identically.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// mustMarshal serializes the package's own result structs, which cannot fail
// to encode (strings, numbers, booleans and nested result structs only).
func mustMarshal(v any) []byte {
	b, err := Marshal(v)
	if err != nil {
		panic("render: marshal of a result struct failed: " + err.Error())
	}
	return b
}

// compactLen is the length of raw, a valid JSON value, without its
// insignificant white space: what json.Compact would make of it, measured
// without making it (on a 64 MiB structuredContent that was one more copy).
func compactLen(raw []byte) int {
	s := jsonScanner{b: raw}
	n := len(raw)
	for s.i < len(raw) {
		switch raw[s.i] {
		case '"':
			if s.str() != nil {
				return len(raw)
			}
			continue
		case ' ', '\t', '\n', '\r':
			n--
		}
		s.i++
	}
	return n
}

// member is one name/value pair of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, keeping their order:
// each value is a subslice of raw, not a copy (raw is read once, validated
// as it goes). ok is false when raw is not a JSON object.
func objectMembers(raw []byte) (members []member, ok bool) {
	err := ObjectMembers(raw, func(key string, value []byte) bool {
		members = append(members, member{key: key, value: value})
		return true
	})
	return members, err == nil
}

// writeObject serializes members as one JSON object, in order.
func writeObject(members []member) []byte {
	n := 2
	for _, m := range members {
		n += len(m.key) + len(m.value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, mustMarshal(m.key)...)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}

// lookup returns the index of the member named key, or -1.
func lookup(members []member, key string) int {
	for i, m := range members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// stringBytes is stringValue's bytes: a subslice of v when the string
// has no escapes and is valid UTF-8, else a decoded copy (StringBytes).
func stringBytes(v []byte) (b []byte, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return nil, false
	}
	b, err := StringBytes(v)
	return b, err == nil
}

// stringValue decodes a member value that should be a string; ok is false
// for any other JSON kind.
func stringValue(v json.RawMessage) (s string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return s, json.Unmarshal(v, &s) == nil
}

// EscapeTerminalControls rewrites, inside JSON text, every character a
// terminal could act on that encoding/json leaves raw (DEL, the C1 controls
// U+0080-U+009F, and the bidi embedding, override and isolate controls) as
// a \uXXXX escape. The JSON means the same; printed, it can no longer
// start an escape sequence or reorder what a person reads. Such characters
// can only occur inside JSON strings, where the escape is always valid.
func EscapeTerminalControls(js []byte) []byte {
	i := firstTerminalControl(js)
	if i < 0 {
		return js
	}
	out := make([]byte, 0, len(js)+32)
	out = append(out, js[:i]...)
	for i < len(js) {
		c := js[i]
		if c == del {
			out = append(out, `\u007f`...)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if isC1(r) || isBidiControl(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, js[i:i+size]...)
		}
		i += size
	}
	return out
}

// IsTerminalControl reports the characters EscapeTerminalControls
// escapes: DEL, the C1 controls and the bidi controls.
func IsTerminalControl(r rune) bool { return r == del || isC1(r) || isBidiControl(r) }

func firstTerminalControl(js []byte) int {
	for i := 0; i < len(js); {
		c := js[i]
		if c < utf8.RuneSelf {
			if c == del {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if isC1(r) || isBidiControl(r) {
			return i
		}
		i += size
	}
	return -1
}

// IndentJSON appends src indented as json.Indent would, unless that form
// would be more than 8 times src's size plus 1 MiB. Indenting writes the
// nesting depth's indent at every line, so 120 KB of brackets 10,000 deep
// (within encoding/json's own depth limit) indents to 1.2 GB; a server's
// result, schema or message, or a model's arguments, can be that. Then it
// appends src compacted instead (json.Compact: the same JSON on one line)
// and indented is false. A src that is not JSON is json.Indent's error,
// with nothing appended.
func IndentJSON(dst *bytes.Buffer, src []byte, prefix, indent string) (indented bool, err error) {
	if indentedLen(src, len(prefix), len(indent), 8*len(src)+1<<20) < 0 {
		return false, json.Compact(dst, src)
	}
	return true, json.Indent(dst, src, prefix, indent)
}

// indentedLen bounds what json.Indent makes of src from above (an empty
// object or array is counted as if it held something), or is -1 once
// that passes limit. A string is skipped whole; src is not checked.
func indentedLen(src []byte, prefix, indent, limit int) int {
	s := jsonScanner{b: src}
	n, depth := len(src), 0
	for s.i < len(src) {
		switch src[s.i] {
		case '"':
			if s.str() != nil {
				return n
			}
			continue
		case '{', '[':
			depth++
			n += 1 + prefix + depth*indent
		case '}', ']':
			depth = max(depth-1, 0)
			n += 1 + prefix + depth*indent
		case ',':
			n += 1 + prefix + depth*indent
		case ':':
			n++ // the space after it
		}
		if n > limit {
			return -1
		}
		s.i++
	}
	return n
}
