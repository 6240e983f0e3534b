package dialog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// manyProps is an object schema of n string properties.
func manyProps(n int) json.RawMessage {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"f%d":{"type":"string"}`, i)
	}
	return json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
}

func TestCountPropertiesCountsTheTopLevelOnesWithoutDecoding(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   int
	}{
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"object","properties":{"x":1,"y":2,"z":3}}}}`, 2},
		{` { "properties" : { "a" : [1, {"}": "{"}], "b" : "\"}" , "c": null } } `, 3},
		{`{"description":"\"properties\": {\"a\":1,\"b\":2}","properties":{"a":1}}`, 1},
		{`{"propert\u0069es":{"a":1,"b":2}}`, 2},
		{`{"properties":{"a":1},"properties":{"a":1,"b":2,"c":3}}`, 3},
		{`{"properties":[1,2,3]}`, 0},
		{`[{"properties":{"a":1}}]`, 0},
		{`{"properties":{"a":1,"b":`, 2}, // what was read
		{``, 0},
	} {
		if got := countProperties([]byte(c.schema)); got != c.want {
			t.Errorf("countProperties(%s) = %d, want %d", c.schema, got, c.want)
		}
	}
	if got := countProperties(manyProps(200_000)); got != 200_000 {
		t.Errorf("200,000 properties counted as %d", got)
	}
}

// A tool's input schema of 200,000 properties built 200,000 text inputs
// (seconds inside Update, a gigabyte). Past MaxFormFields the call form is
// one JSON object of the arguments, and its note says why and what else
// works; the object typed is what is called.
func TestToolFormPastMaxFormFieldsTakesTheArgumentsAsOneJSONObject(t *testing.T) {
	com := &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}
	if fs := ToolFields(manyProps(MaxFormFields)); len(fs) != MaxFormFields {
		t.Fatalf("a schema of MaxFormFields properties has %d fields, want %d", len(fs), MaxFormFields)
	}
	it := mcp.CatalogItem{Kind: mcp.KindTool, Server: "big", Name: "wide", Schema: manyProps(200_000)}
	d := NewToolForm(com, it)
	if n := len(d.form.fields); n != 1 || d.form.fields[0].Kind != FieldJSON {
		t.Fatalf("the form of 200,000 properties has %d fields, want the one JSON object", n)
	}
	want := fmt.Sprintf("this tool's input schema has 200000 fields, more than a form holds (MaxFormFields = %d): type them as one JSON object here, or in the chat: .call big wide key=value", MaxFormFields)
	if !strings.Contains(d.form.Note, want) {
		t.Errorf("the note reads %q, want %q", d.form.Note, want)
	}
	d.form.fields[0].setText(`{"f7": "seven"}`)
	if got := rawArguments(d.form); got["f7"] != "seven" || len(got) != 1 {
		t.Errorf("the arguments sent are %v, want the object typed", got)
	}
	d.form.fields[0].setText(`["not", "an object"]`)
	if _, err := d.form.Values(); err == nil || !strings.Contains(err.Error(), "write the arguments as a JSON object") {
		t.Errorf("an array as the arguments: %v, want it refused", err)
	}
}

func TestPromptFormPastMaxFormFieldsTakesTheArgumentsAsOneJSONObject(t *testing.T) {
	com := &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}
	args := make([]mcp.PromptArgument, MaxFormFields+1)
	for i := range args {
		args[i] = mcp.PromptArgument{Name: fmt.Sprintf("a%d", i)}
	}
	args[3].Required = true
	d := NewPromptForm(com, mcp.CatalogItem{Kind: mcp.KindPrompt, Server: "big", Name: "wide", Arguments: args})
	if n := len(d.form.fields); n != 1 || !strings.Contains(d.form.Note, "this prompt has 257 fields") || !strings.Contains(d.form.Note, ".prompt big wide key=value") {
		t.Fatalf("the prompt form has %d fields and the note %q, want the one JSON object and why", n, d.form.Note)
	}
	d.form.fields[0].setText(`{"a3": 3}`)
	if _, err := d.form.Values(); err == nil || !strings.Contains(err.Error(), `"a3" is not a string`) {
		t.Errorf("a number as a prompt argument: %v, want it refused", err)
	}
	d.form.fields[0].setText(`{"a3": "three"}`)
	if got := d.stringValues(); got["a3"] != "three" || d.form.Check(d.form) != nil {
		t.Errorf("the prompt's values are %v (check: %v), want a3 and no missing argument", got, d.form.Check(d.form))
	}
}

// A template's variables are fields too: a URI template of 257 of them
// (a server's string) gets the one JSON object, and its address is built
// from it.
func TestTemplateFormPastMaxFormFieldsTakesTheVariablesAsOneJSONObject(t *testing.T) {
	com := &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}
	vars := make([]string, MaxFormFields+1)
	uri := "demo://wide/"
	for i := range vars {
		vars[i] = fmt.Sprintf("v%d", i)
		uri += "{" + vars[i] + "}"
	}
	d := NewTemplateForm(com, mcp.CatalogItem{Kind: mcp.KindTemplate, Server: "big", Name: "wide", URI: uri, Variables: vars})
	if n := len(d.form.fields); n != 1 || !strings.Contains(d.form.Note, "this template has 257 fields") || !strings.Contains(d.form.Note, ".read big demo://wide/") {
		t.Fatalf("the template form has %d fields and the note %q, want the one JSON object and why", n, d.form.Note)
	}
	obj := map[string]string{}
	for _, v := range vars {
		obj[v] = "x"
	}
	b, _ := json.Marshal(obj)
	d.form.fields[0].setText(string(b))
	got, err := d.form.Preview(d.form)
	if err != nil || got != "demo://wide/"+strings.Repeat("x", len(vars)) {
		t.Errorf("the address from the object: %q, %v", got, err)
	}
}

// An enum of 100,000 values was a choice of 100,000 lines; the first
// MaxFieldChoices are offered and the hint says so.
func TestChoicesPastMaxFieldChoicesKeepTheFirstAndSaySo(t *testing.T) {
	vals := make([]string, 100_000)
	for i := range vals {
		vals[i] = fmt.Sprintf(`"v%d"`, i)
	}
	enum := strings.Join(vals, ",")
	items := strings.ReplaceAll(enum, `"v`, `{"const":"v`)
	items = strings.ReplaceAll(items, `",`, `"},`) + "}"
	schema := json.RawMessage(`{"type":"object","properties":{"one":{"type":"string","enum":[` + enum + `]},"many":{"type":"array","items":{"anyOf":[` + items + `]}}},"required":["one"]}`)
	note := fmt.Sprintf("the first %d of 100000 choices (MaxFieldChoices)", MaxFieldChoices)
	for name, fields := range map[string][]*Field{"elicitation": ElicitFields(schema), "tool": ToolFields(schema)} {
		for _, fl := range fields {
			if fl.Name == "many" && name == "tool" {
				continue // a tool's array is typed as JSON
			}
			if len(fl.Choices) > MaxFieldChoices+1 || !strings.Contains(fl.Hint, note) {
				t.Errorf("%s field %s has %d choices and the hint %q, want at most %d and %q", name, fl.Name, len(fl.Choices), fl.Hint, MaxFieldChoices, note)
			}
		}
	}
}

// BenchmarkRefuseAFormOf200000Properties is what refusing the 5.2 MiB
// schema of the review (200,000 string properties) costs inside Update.
func BenchmarkRefuseAFormOf200000Properties(b *testing.B) {
	schema := manyProps(200_000)
	b.SetBytes(int64(len(schema)))
	b.ReportAllocs()
	for b.Loop() {
		if CheckFormFields("it", schema) == nil {
			b.Fatal("not refused")
		}
	}
}
