package mcp

import (
	"encoding/json"
	"testing"
)

// The elicitation formats are checked by the JSON Schema validator (formats
// asserted), for the TUI's dialog and the terminal's questions alike.
func TestCheckValueAssertsElicitationFormats(t *testing.T) {
	for _, c := range []struct {
		format, value string
		ok            bool
	}{
		{"email", "a@example.com", true}, {"email", "Ann <a@example.com>", false}, {"email", "a.example.com", false},
		{"uri", "https://example.com/x", true}, {"uri", "urn:isbn:123", true}, {"uri", "example.com", false},
		{"date", "2026-02-28", true}, {"date", "2026-02-30", false}, {"date", "28/02/2026", false},
		{"date-time", "2026-02-28T10:00:00+01:00", true}, {"date-time", "2026-02-28 10:00", false},
	} {
		p := SchemaProps(json.RawMessage(`{"properties":{"x":{"type":"string","format":"` + c.format + `"}}}`))[0]
		if got := CheckValue(p, c.value) == ""; got != c.ok {
			t.Errorf("CheckValue(%s, %q) passes = %v, want %v (%s)", c.format, c.value, got, c.ok, CheckValue(p, c.value))
		}
	}
}

// Bounds and lengths are said with what to write instead.
func TestCheckValueSaysWhatToWrite(t *testing.T) {
	schema := json.RawMessage(`{"properties":{
	 "age":{"type":"integer","minimum":18,"maximum":130},
	 "name":{"type":"string","minLength":2,"maxLength":4},
	 "email":{"type":"string","format":"email"}}}`)
	props := map[string]SchemaProp{}
	for _, p := range SchemaProps(schema) {
		props[p.Name] = p
	}
	for _, c := range []struct {
		prop string
		v    any
		want string
	}{
		{"age", 7, "7 is below the minimum 18: enter a number from 18 to 130"},
		{"age", json.Number("131"), "131 is above the maximum 130: enter a number from 18 to 130"},
		{"age", 36, ""},
		{"name", "A", "1 characters, at least 2 needed: write more"},
		{"name", "Alfred", "6 characters, at most 4 allowed: shorten it"},
		{"email", "not-an-email", `"not-an-email" is not a valid email: write it like name@example.com`},
	} {
		if got := CheckValue(props[c.prop], c.v); got != c.want {
			t.Errorf("CheckValue(%s, %v) = %q, want %q", c.prop, c.v, got, c.want)
		}
	}
}

// `.call` in the chat and `howl call` type key=value arguments the same
// way: flag=1 is the boolean true for a boolean property, not the number 1.
func TestTypeKeyValuesTypesByTheSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
	 "flag":{"type":"boolean"},"n":{"type":"integer"},"x":{"type":["number","null"]},
	 "tags":{"type":"array","items":{"type":"string"}},"o":{"type":"object"},"s":{"type":"string"}}}`)
	got := TypeKeyValues(schema, map[string]string{"flag": "1", "n": "12345678901234567890", "x": "2.5",
		"tags": `["a","b"]`, "o": `{"k":1}`, "s": "42", "unknown": "true"})
	b, _ := json.Marshal(got)
	want := `{"flag":true,"n":12345678901234567890,"o":{"k":1},"s":"42","tags":["a","b"],"unknown":"true","x":2.5}`
	if string(b) != want {
		t.Errorf("typed %s\nwant  %s", b, want)
	}
	bad := TypeKeyValues(schema, map[string]string{"flag": "maybe", "n": "Inf"})
	if bad["flag"] != "maybe" || bad["n"] != "Inf" {
		t.Errorf("values that are not their type stay strings (the check names them): %#v", bad)
	}
}

func TestANullOptionalIsDroppedOnlyWhereTheSchemaRefusesNull(t *testing.T) {
	tool := CatalogItem{ID: "t", Schema: json.RawMessage(`{"type":"object","properties":{
		"plain":{"type":"string"},"either":{"type":["string","null"]},"none":{"type":"null"},
		"untyped":{},"needed":{"type":"integer"}},"required":["needed"]}`)}
	args := map[string]any{"plain": nil, "either": nil, "none": nil, "untyped": nil, "needed": nil, "undeclared": nil}
	got := DropNullOptionals(tool, args)
	if _, ok := got["plain"]; ok || len(got) != 5 {
		t.Fatalf("only the optional string's null must go, got %v", got)
	}
	if len(args) != 6 {
		t.Fatal("the caller's map was changed")
	}
}
