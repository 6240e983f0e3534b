package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// SchemaProp is one property of an object schema (a tool's input schema,
// an elicitation's requested schema), as the TUI's forms and detail pane,
// `.call`, `howl call` and the terminal's questions read it: the one
// reader of JSON Schema properties in howl. Properties keep the schema's
// order.
type SchemaProp struct {
	Name string
	Type string // string, number, integer, boolean, array, object, or "" (any)
	// Nullable is whether "type" allows null ("null", or a list naming it).
	Nullable    bool
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
	Options []SchemaOption
	// ItemOptions are an array's choices (items.enum, items.anyOf or
	// items.oneOf): a multi-select; MinItems and MaxItems bound it.
	ItemOptions        []SchemaOption
	MinItems, MaxItems *int
	// Raw is the property's own schema.
	Raw json.RawMessage
}

// SchemaOption is one choice of an enum: the value sent and the title shown.
type SchemaOption struct {
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
func (c schemaChoices) options() []SchemaOption {
	var out []SchemaOption
	for i, e := range c.Enum {
		o := SchemaOption{Value: e, Title: JSONText(e)}
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
			o := SchemaOption{Value: k.Const, Title: k.Title}
			if o.Title == "" {
				o.Title = JSONText(k.Const)
			}
			out = append(out, o)
		}
	}
	return out
}

// JSONText is a JSON string's text, or any other JSON value as written.
func JSONText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// SchemaProps reads the top-level properties of an object schema in
// their written order. A schema that is not an object with properties
// yields none; that is not an error, the form then offers raw JSON.
func SchemaProps(raw json.RawMessage) []SchemaProp {
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
	names, values := OrderedObject(top.Properties)
	out := make([]SchemaProp, 0, len(names))
	for i, name := range names {
		p := SchemaProp{Name: name, Required: req[name], Raw: values[i]}
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
		p.Type = SchemaType(d.Type)
		p.Nullable = p.Type == "null" || bytes.Contains(d.Type, []byte(`"null"`))
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
			cons = append(cons, fmt.Sprintf("%s–%s", FormatNumber(*d.Minimum), FormatNumber(*d.Maximum)))
		case d.Minimum != nil:
			cons = append(cons, "≥ "+FormatNumber(*d.Minimum))
		case d.Maximum != nil:
			cons = append(cons, "≤ "+FormatNumber(*d.Maximum))
		}
		if d.MinLength != nil && *d.MinLength > 0 {
			cons = append(cons, fmt.Sprintf("min length %d", *d.MinLength))
		}
		if d.MaxLength != nil {
			cons = append(cons, fmt.Sprintf("max length %d", *d.MaxLength))
		}
		if p.Type == "array" && d.Items != nil {
			if t := SchemaType(d.Items.Type); t != "" {
				p.Type = "array of " + t
			}
		}
		p.Constraints = strings.Join(cons, ", ")
		out = append(out, p)
	}
	return out
}

// RequiredFirst orders props for a form: the required ones first, in the
// order of the schema's "required" list (an array, so the author's order
// even when the properties object has lost it), then the others as they
// were.
func RequiredFirst(schema json.RawMessage, props []SchemaProp) []SchemaProp {
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
	slices.SortStableFunc(props, func(a, b SchemaProp) int {
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

// SchemaType reads "type", which may be a string or a list of strings
// (["string", "null"] reads as "string").
func SchemaType(raw json.RawMessage) string {
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

func FormatNumber(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".")
}

// maxExample bounds an example value built from a schema.
const maxExample = 400

// JSONExample is a value of the shape a schema describes, as compact JSON
// with its properties in written order: empty strings, zeros, false, the
// first enum value or const, one item per array. It gives a person a
// skeleton to fill in for a field typed as JSON. "" when the schema says
// too little (no type at all) or the example would pass maxExample.
func JSONExample(raw json.RawMessage) string {
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
	t := SchemaType(s.Type)
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
		names, values := OrderedObject(s.Properties)
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

// OrderedObject returns an object's keys and raw values in written order.
func OrderedObject(raw json.RawMessage) ([]string, []json.RawMessage) {
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

// TypeKeyValues types key=value arguments by an input schema: a value for
// an integer or number property is sent as a JSON number when it is one,
// for a boolean as true or false when strconv.ParseBool reads it (1, t,
// true, 0, f, false, any case), for an array, object or null as the JSON
// it spells. Anything else, and a value that does not read as its type,
// stays the string typed: the schema check then names the problem. `.call`
// in the chat and `howl call` both type their arguments here.
func TypeKeyValues(schema json.RawMessage, kv map[string]string) map[string]any {
	types := map[string]string{}
	for _, p := range SchemaProps(schema) {
		types[p.Name] = p.Type
	}
	out := make(map[string]any, len(kv))
	for k, v := range kv {
		out[k] = v
		switch t, _, _ := strings.Cut(types[k], " "); t { // "array of string" is an array
		case "integer", "number":
			var n json.Number
			if json.Unmarshal([]byte(strings.TrimSpace(v)), &n) == nil {
				out[k] = n
			}
		case "boolean":
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				out[k] = b
			}
		case "array", "object", "null":
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			var j any
			if dec.Decode(&j) == nil && !dec.More() {
				out[k] = j
			}
		}
	}
	return out
}

// CheckValue checks one answer against its property's own schema (its
// bounds, lengths, formats, item counts) with the JSON Schema validator
// the model's calls are checked with, formats asserted. It returns what is
// wrong, said so a person can fix it, or "" when the value passes (or the
// property's schema cannot be compiled: the server then judges).
func CheckValue(p SchemaProp, v any) string {
	if len(p.Raw) == 0 {
		return ""
	}
	sch := p.compiled()
	if sch == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	verr := sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if verr == nil || !errors.As(verr, &ve) {
		return ""
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return valueProblem(p, inst, ve.ErrorKind)
}

// compiled compiles the property's own schema, with formats asserted
// (nil when it does not compile).
func (p SchemaProp) compiled() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(p.Raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	const loc = "howl://property.json"
	if c.AddResource(loc, doc) != nil {
		return nil
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	return sch
}

// valueProblem says what is wrong with inst, and what to write instead.
func valueProblem(p SchemaProp, inst any, k jsonschema.ErrorKind) string {
	n := func(r *big.Rat) string {
		f, _ := r.Float64()
		return FormatNumber(f)
	}
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("%s is below the minimum %s: enter %s", n(k.Got), n(k.Want), p.numberWanted())
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s is not above %s: enter a larger number", n(k.Got), n(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("%s is above the maximum %s: enter %s", n(k.Got), n(k.Want), p.numberWanted())
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s is not below %s: enter a smaller number", n(k.Got), n(k.Want))
	case *kind.MinLength:
		return fmt.Sprintf("%d characters, at least %d needed: write more", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("%d characters, at most %d allowed: shorten it", k.Got, k.Want)
	case *kind.Format:
		return fmt.Sprintf("%q is not a valid %s: write it like %s", fmt.Sprint(inst), k.Want, FormatExample(k.Want))
	case *kind.MinItems:
		return fmt.Sprintf("%d chosen, at least %d needed: pick more", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("%d chosen, at most %d allowed: unpick some", k.Got, k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("%q does not match the pattern %s: write it so it does", fmt.Sprint(inst), k.Want)
	case *kind.Enum:
		return leafReason(k)
	}
	return k.LocalizedString(printer())
}

// numberWanted says which numbers the property takes.
func (p SchemaProp) numberWanted() string {
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		return "a number from " + FormatNumber(*p.Minimum) + " to " + FormatNumber(*p.Maximum)
	case p.Minimum != nil:
		return "a number of at least " + FormatNumber(*p.Minimum)
	case p.Maximum != nil:
		return "a number of at most " + FormatNumber(*p.Maximum)
	}
	return "a number"
}

// FormatExample shows what a string of an elicitation format looks like.
func FormatExample(format string) string {
	switch format {
	case "email":
		return "name@example.com"
	case "uri":
		return "https://example.com/page"
	case "date":
		return "2026-01-31"
	case "date-time":
		return "2026-01-31T14:30:00Z"
	}
	return format
}
