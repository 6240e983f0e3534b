package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// itemIndent is where an item of `howl ls --json` sits: in "items", two
// levels down, each level two spaces.
const itemIndent = "    "

// itemWriter writes the items of `howl ls --json` exactly as a json.Encoder
// (HTML left unescaped, indented by itemIndent and "  ") writes a
// *mcp.CatalogItem, and render.EscapeTerminalControls then escapes it,
// without the Encoder's reflection, its second pass to indent, and the
// third to escape: on a listing of 120,000 items those were most of the
// client's time. The common fields (strings, a size, a flag) are written
// here; the rest (a tool's schemas, annotations, arguments, a skill) go
// through encoding/json, json.Indent and EscapeTerminalControls, field
// by field. TestListedItemIsWrittenAsEncodingJSONWritesIt sets every field.
type itemWriter struct {
	scratch bytes.Buffer
	enc     *json.Encoder
}

func newItemWriter() *itemWriter {
	w := &itemWriter{}
	w.enc = json.NewEncoder(&w.scratch)
	w.enc.SetEscapeHTML(false)
	return w
}

// appendItem appends it, from its "{" to its "}", without a newline.
func (w *itemWriter) appendItem(b []byte, it *mcp.CatalogItem) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "kind", string(it.Kind), false)
	b = appendStringField(b, "server", it.Server, false)
	b = appendStringField(b, "id", it.ID, false)
	b = appendStringField(b, "name", it.Name, false)
	b = appendStringField(b, "title", it.Title, true)
	b = appendStringField(b, "description", it.Description, true)
	b = appendStringField(b, "uri", it.URI, true)
	b = appendStringField(b, "mime_type", it.MIMEType, true)
	if it.Size != nil {
		b = strconv.AppendInt(appendKey(b, "size"), *it.Size, 10)
	}
	var err error
	field := func(key string, v any) {
		if err == nil {
			b, err = w.appendValue(appendKey(b, key), v)
		}
	}
	if len(it.Audience) > 0 {
		field("audience", it.Audience)
	}
	if it.Priority != nil {
		field("priority", it.Priority)
	}
	b = appendStringField(b, "last_modified", it.LastModified, true)
	if it.Annotations != nil {
		field("annotations", it.Annotations)
	}
	b = appendStringField(b, "task_support", it.TaskSupport, true)
	if len(it.Variables) > 0 {
		field("variables", it.Variables)
	}
	if len(it.Arguments) > 0 {
		field("arguments", it.Arguments)
	}
	if len(it.Schema) > 0 {
		field("input_schema", it.Schema)
	}
	if len(it.OutputSchema) > 0 {
		field("output_schema", it.OutputSchema)
	}
	if it.Off {
		b = append(appendKey(b, "off"), "true"...)
	}
	if it.Skill != nil {
		field("skill", it.Skill)
	}
	b = appendStringField(b, "app_uri", it.AppURI, true)
	if len(it.AppVisibility) > 0 {
		field("app_visibility", it.AppVisibility)
	}
	if err != nil {
		return b, err
	}
	return append(b, "\n"+itemIndent+"}"...), nil
}

// appendKey starts a member of the item: the separator, a new line at the
// members' indentation, the key.
func appendKey(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, "\n"+itemIndent+"  "...)
	b = appendString(b, key)
	return append(b, ": "...)
}

func appendStringField(b []byte, key, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	return appendString(appendKey(b, key), v)
}

// appendValue appends v as the Encoder would at a member's indentation.
func (w *itemWriter) appendValue(b []byte, v any) ([]byte, error) {
	var compact []byte
	if raw, ok := v.(json.RawMessage); ok {
		compact = bytes.TrimSpace(raw) // Indent drops the spaces within
	} else {
		w.scratch.Reset()
		if err := w.enc.Encode(v); err != nil {
			return b, err
		}
		compact = bytes.TrimSuffix(w.scratch.Bytes(), []byte("\n"))
	}
	var out bytes.Buffer
	if _, err := render.IndentJSON(&out, compact, itemIndent+"  ", "  "); err != nil {
		return b, err
	}
	return append(b, render.EscapeTerminalControls(out.Bytes())...), nil
}

// appendString appends s as a JSON string as encoding/json writes it with
// HTML left unescaped (quote and backslash escaped, control characters
// escaped, \b, \f, \n, \r, \t by name, invalid UTF-8 as U+FFFD, and
// U+2028 and U+2029 escaped), and as EscapeTerminalControls then escapes
// it (DEL, C1 and bidi controls as \u00XX).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case 0x7f:
				b = append(b, `\u007f`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029' || render.IsTerminalControl(r):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
