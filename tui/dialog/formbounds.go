package dialog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// MaxFormFields bounds the fields of a form built from what a server sent:
// an elicitation's requested schema, a tool's input schema, a prompt's
// arguments. Each field is a text input of its own, built and drawn inside
// Update: 200,000 of them froze the TUI for 2.76 s and took 1.3 GB. 256 is
// ten times the largest form a person fills in by hand (real tools take a
// few dozen arguments at most), and builds in well under a millisecond.
// Past it an elicitation is declined at once, and a tool's or a prompt's
// arguments are typed as one JSON object.
const MaxFormFields = 256

// MaxFieldChoices bounds the choices of one field (an enum, a oneOf, a
// multi-select's items): each is a line of the form. Past it the first
// MaxFieldChoices are offered and the field's hint says how many there
// were; 1,000 is more than anyone scrolls through with the arrow keys.
const MaxFieldChoices = 1000

// TooManyFieldsError is a form that would have more than MaxFormFields
// fields: what asked for it and how many.
type TooManyFieldsError struct {
	What  string
	Count int
}

func (e *TooManyFieldsError) Error() string {
	return fmt.Sprintf("%s has %d fields, more than a form holds (MaxFormFields = %d)", e.What, e.Count, MaxFormFields)
}

// CheckFormFields is an error when a form over schema's properties would
// have more than MaxFormFields fields (what names the schema). It counts
// the properties without decoding them.
func CheckFormFields(what string, schema json.RawMessage) error {
	if n := countProperties(schema); n > MaxFormFields {
		return &TooManyFieldsError{What: what, Count: n}
	}
	return nil
}

// countProperties is how many top-level properties an object schema has
// (the most of any "properties" key: a decoder keeps the last). It scans
// the bytes, decoding and allocating nothing, so that a schema of 200,000
// properties costs milliseconds to refuse. A schema that does not parse
// counts what was read before the error (SchemaProps then builds nothing).
func countProperties(b []byte) int {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0
	}
	most := 0
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; {
		end := skipString(b, i)
		key := b[i:end]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return most
		}
		i = skipSpace(b, i+1)
		if isPropertiesKey(key) && i < len(b) && b[i] == '{' {
			most = max(most, countKeys(b, i))
		}
		if i = skipSpace(b, skipJSON(b, i)); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return most
}

// isPropertiesKey reports whether a key, quotes and all, is "properties"
// (escapes decoded).
func isPropertiesKey(key []byte) bool {
	if !bytes.ContainsRune(key, '\\') {
		return string(key) == `"properties"`
	}
	var s string
	return json.Unmarshal(key, &s) == nil && s == "properties"
}

// countKeys counts the keys of the object at b[i] ('{').
func countKeys(b []byte, i int) int {
	n := 0
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; n++ {
		i = skipSpace(b, skipString(b, i))
		if i >= len(b) || b[i] != ':' {
			return n
		}
		if i = skipSpace(b, skipJSON(b, skipSpace(b, i+1))); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return n
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index after the string that opens at b[i] ('"').
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipJSON is the index after the value at b[i]: a string, an object or
// an array (nested ones included), or a number, true, false or null.
func skipJSON(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// capChoices keeps the first MaxFieldChoices of a field's n choices; note
// is what its hint says when some were left out ("" when none were).
func capChoices(n int) (keep int, note string) {
	if n <= MaxFieldChoices {
		return n, ""
	}
	return MaxFieldChoices, fmt.Sprintf("the first %d of %d choices (MaxFieldChoices)", MaxFieldChoices, n)
}

// rawArgumentsName is the one field of a form whose schema has more than
// MaxFormFields properties: the arguments as one JSON object.
const rawArgumentsName = "arguments"

// rawArgumentsFields is the form of too many fields: the arguments typed
// as one JSON object; stringsOf, when set, names what must be strings (a
// prompt's arguments, a template's variables).
func rawArgumentsFields(stringsOf string) []*Field {
	want := "a JSON object"
	if stringsOf != "" {
		want = "a JSON object of strings"
	}
	return []*Field{{Name: rawArgumentsName, Kind: FieldJSON, Hint: want, Placeholder: `{"name": "value"}`,
		Check: func(v any) string {
			obj, ok := v.(map[string]any)
			if !ok {
				return "write the arguments as " + want + `, like {"name": "value"}`
			}
			for k, x := range obj {
				if _, ok := x.(string); stringsOf != "" && !ok {
					return fmt.Sprintf("%q is not a string: %s are strings", k, stringsOf)
				}
			}
			return ""
		}}}
}

// rawArguments is the object typed in a form of rawArgumentsFields.
func rawArguments(f *Form) map[string]any {
	vals, _ := f.Values()
	obj, _ := vals[rawArgumentsName].(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	return obj
}

// tooManyNote is the note of a form of rawArgumentsFields: why, and the
// other way to call it.
func tooManyNote(err error, it mcp.CatalogItem) string {
	verb, name := ".call", it.Name
	switch it.Kind {
	case mcp.KindPrompt:
		verb = ".prompt"
	case mcp.KindTemplate:
		verb, name = ".read", it.URI
	}
	return render.SanitizeLine(fmt.Sprintf("%s: type them as one JSON object here, or in the chat: %s %s %s key=value …", err, verb, it.Server, name))
}
