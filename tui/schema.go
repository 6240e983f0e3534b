package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// schemaProp is one property of a tool's input schema, as the detail pane
// and the argument form need it. Properties keep the schema's order.
type schemaProp struct {
	Name        string
	Type        string // string, number, integer, boolean, array, object, or "" (any)
	Description string
	Enum        []string
	// EnumRaw are the enum values as JSON, in Enum's order.
	EnumRaw []json.RawMessage
	// Default is the default value as JSON ("" when none).
	Default  string
	Required bool
	// Constraints is a short human summary: "1–20", "at least 1 character".
	Constraints string
	// Format is the string format ("uri", "date-time", ...).
	Format string

	// What elicitation forms check and offer, beyond the summary above.
	Title                string
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	// DefaultRaw is the default as JSON (nil when none).
	DefaultRaw json.RawMessage
	// Options are a single choice's values and titles: from enum (titled
	// by enumNames when given) or oneOf/anyOf of {const, title}.
	Options []schemaOption
	// ItemOptions are an array's choices (items.enum, items.anyOf or
	// items.oneOf): a multi-select; MinItems and MaxItems bound it.
	ItemOptions        []schemaOption
	MinItems, MaxItems *int
	// Raw is the property's own schema.
	Raw json.RawMessage
}

// schemaOption is one choice of an enum: the value sent and the title shown.
type schemaOption struct {
	Value json.RawMessage
	Title string
}

// schemaChoices reads the choices of a schema: enum (with enumNames) or
// oneOf/anyOf lists of {const, title}.
type schemaChoices struct {
	Enum      []json.RawMessage `json:"enum"`
	EnumNames []string          `json:"enumNames"`
	OneOf     []schemaConst     `json:"oneOf"`
	AnyOf     []schemaConst     `json:"anyOf"`
}

type schemaConst struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

// options lists the choices, titles falling back to the values as text.
func (c schemaChoices) options() []schemaOption {
	var out []schemaOption
	for i, e := range c.Enum {
		o := schemaOption{Value: e, Title: jsonText(e)}
		if i < len(c.EnumNames) && c.EnumNames[i] != "" {
			o.Title = c.EnumNames[i]
		}
		out = append(out, o)
	}
	for _, list := range [][]schemaConst{c.OneOf, c.AnyOf} {
		for _, k := range list {
			if len(k.Const) == 0 {
				continue
			}
			o := schemaOption{Value: k.Const, Title: k.Title}
			if o.Title == "" {
				o.Title = jsonText(k.Const)
			}
			out = append(out, o)
		}
	}
	return out
}

// jsonText is a JSON string's text, or any other JSON value as written.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// parseSchemaProps reads the top-level properties of an object schema in
// their written order. A schema that is not an object with properties
// yields none; that is not an error, the form then offers raw JSON.
func parseSchemaProps(raw json.RawMessage) []schemaProp {
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	req := map[string]bool{}
	for _, r := range top.Required {
		req[r] = true
	}
	names, values := orderedObject(top.Properties)
	out := make([]schemaProp, 0, len(names))
	for i, name := range names {
		p := schemaProp{Name: name, Required: req[name], Raw: values[i]}
		var d struct {
			Type        json.RawMessage   `json:"type"`
			Description string            `json:"description"`
			Title       string            `json:"title"`
			Enum        []json.RawMessage `json:"enum"`
			Default     json.RawMessage   `json:"default"`
			Minimum     *float64          `json:"minimum"`
			Maximum     *float64          `json:"maximum"`
			MinLength   *int              `json:"minLength"`
			MaxLength   *int              `json:"maxLength"`
			Format      string            `json:"format"`
			Items       *struct {
				Type json.RawMessage `json:"type"`
				schemaChoices
			} `json:"items"`
			MinItems *int `json:"minItems"`
			MaxItems *int `json:"maxItems"`
			schemaChoices
		}
		_ = json.Unmarshal(values[i], &d)
		p.Title = d.Title
		p.Minimum, p.Maximum, p.MinLength, p.MaxLength = d.Minimum, d.Maximum, d.MinLength, d.MaxLength
		p.MinItems, p.MaxItems = d.MinItems, d.MaxItems
		choices := d.schemaChoices
		choices.Enum = d.Enum // the outer field of the same name took it
		p.Options = choices.options()
		if d.Items != nil {
			p.ItemOptions = d.Items.schemaChoices.options()
		}
		if len(d.Default) > 0 && string(d.Default) != "null" {
			p.DefaultRaw = d.Default
		}
		p.Type = schemaType(d.Type)
		p.Description = d.Description
		if p.Description == "" {
			p.Description = d.Title
		}
		p.Format = d.Format
		for _, e := range d.Enum {
			p.EnumRaw = append(p.EnumRaw, e)
			var s string
			if json.Unmarshal(e, &s) == nil {
				p.Enum = append(p.Enum, s)
			} else {
				p.Enum = append(p.Enum, string(e))
			}
		}
		if len(d.Default) > 0 {
			p.Default = string(d.Default)
		}
		var cons []string
		switch {
		case d.Minimum != nil && d.Maximum != nil:
			cons = append(cons, fmt.Sprintf("%s–%s", num(*d.Minimum), num(*d.Maximum)))
		case d.Minimum != nil:
			cons = append(cons, "≥ "+num(*d.Minimum))
		case d.Maximum != nil:
			cons = append(cons, "≤ "+num(*d.Maximum))
		}
		if d.MinLength != nil && *d.MinLength > 0 {
			cons = append(cons, fmt.Sprintf("min length %d", *d.MinLength))
		}
		if d.MaxLength != nil {
			cons = append(cons, fmt.Sprintf("max length %d", *d.MaxLength))
		}
		if p.Type == "array" && d.Items != nil {
			if t := schemaType(d.Items.Type); t != "" {
				p.Type = "array of " + t
			}
		}
		p.Constraints = strings.Join(cons, ", ")
		out = append(out, p)
	}
	return out
}

// requiredFirst orders props for a form: the required ones first, in the
// order of the schema's "required" list (an array, so the author's order
// even when the properties object has lost it), then the others as they
// were.
func requiredFirst(schema json.RawMessage, props []schemaProp) []schemaProp {
	var top struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &top)
	rank := map[string]int{}
	for i, n := range top.Required {
		if _, dup := rank[n]; !dup {
			rank[n] = i
		}
	}
	slices.SortStableFunc(props, func(a, b schemaProp) int {
		ra, aok := rank[a.Name]
		rb, bok := rank[b.Name]
		switch {
		case aok && bok:
			return ra - rb
		case aok:
			return -1
		case bok:
			return 1
		}
		return 0
	})
	return props
}

// schemaType reads "type", which may be a string or a list of strings
// (["string", "null"] reads as "string").
func schemaType(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		for _, t := range list {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

func num(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".")
}

// maxExample bounds an example value built from a schema.
const maxExample = 400

// jsonExample is a value of the shape a schema describes, as compact JSON
// with its properties in written order: empty strings, zeros, false, the
// first enum value or const, one item per array. It gives a person a
// skeleton to fill in for a field typed as JSON. "" when the schema says
// too little (no type at all) or the example would pass maxExample.
func jsonExample(raw json.RawMessage) string {
	var b strings.Builder
	if !writeExample(&b, raw, 0) || b.Len() > maxExample {
		return ""
	}
	return b.String()
}

func writeExample(b *strings.Builder, raw json.RawMessage, depth int) bool {
	var s struct {
		Type       json.RawMessage   `json:"type"`
		Const      json.RawMessage   `json:"const"`
		Enum       []json.RawMessage `json:"enum"`
		Items      json.RawMessage   `json:"items"`
		Properties json.RawMessage   `json:"properties"`
	}
	if depth > 5 || json.Unmarshal(raw, &s) != nil {
		return false
	}
	switch {
	case len(s.Const) > 0:
		b.Write(s.Const)
		return true
	case len(s.Enum) > 0:
		b.Write(s.Enum[0])
		return true
	}
	t := schemaType(s.Type)
	if t == "" && len(s.Properties) > 0 {
		t = "object"
	}
	switch t {
	case "string":
		b.WriteString(`""`)
	case "number", "integer":
		b.WriteString("0")
	case "boolean":
		b.WriteString("false")
	case "array":
		b.WriteByte('[')
		if len(s.Items) > 0 && !writeExample(b, s.Items, depth+1) {
			return false
		}
		b.WriteByte(']')
	case "object":
		b.WriteByte('{')
		names, values := orderedObject(s.Properties)
		for i, n := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(n)
			b.Write(key)
			b.WriteByte(':')
			if !writeExample(b, values[i], depth+1) {
				b.WriteString("null")
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// orderedObject returns an object's keys and raw values in written order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var names []string
	var values []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		name, ok := t.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		names = append(names, name)
		values = append(values, v)
	}
	return names, values
}

// prettyJSON indents raw JSON with two spaces, or returns it as it is when
// it does not parse.
func prettyJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(raw), "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
