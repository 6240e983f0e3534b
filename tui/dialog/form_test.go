package dialog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// The form asks for the required arguments first, then the rest, each
// group in the schema's order.
func TestToolFieldsPutRequiredFirstThenFollowTheSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"zeta":{"type":"string","description":"last letter, first field"},
		"n":{"type":"number","minimum":0,"maximum":10},
		"i":{"type":["integer","null"],"default":3},
		"b":{"type":"boolean"},
		"e":{"enum":[1,2,3]},
		"obj":{"type":"object"}
	},"required":["zeta","b"]}`)
	fields := ToolFields(schema)
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "zeta,b,n,i,e,obj" {
		t.Fatalf("order %v", names)
	}
	kinds := []FieldKind{FieldText, FieldBool, FieldNumber, FieldInteger, FieldEnum, FieldJSON}
	for i, f := range fields {
		if f.Kind != kinds[i] {
			t.Errorf("%s: kind %d, want %d", f.Name, f.Kind, kinds[i])
		}
	}
	if !fields[0].Required || !fields[1].Required || fields[2].Required || !strings.Contains(fields[2].Hint, "0–10") || !strings.Contains(fields[3].Hint, "default 3") {
		t.Errorf("required/hints: %+v %+v %+v", fields[0], fields[2], fields[3])
	}
	// A required bool has no unset choice; an optional enum has one.
	if fields[1].Choices[0] == unsetChoice || fields[4].Choices[0] != unsetChoice {
		t.Errorf("choices %v / %v", fields[1].Choices, fields[4].Choices)
	}
}

func TestFormValuesAreTypedAndOptionalEmptiesLeftOut(t *testing.T) {
	com := &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap(), Theme: testTheme()}
	schema := json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"e":{"type":"string","enum":["x","y"]},"j":{"type":"array"},"opt":{"type":"string"}},"required":["s","b"]}`)
	f := NewForm(com, "t", "Call", ToolFields(schema))
	f.SetValue("s", "")
	f.SetValue("n", "2.50")
	f.SetValue("i", "7")
	f.SetValue("j", `[1, "two"]`)
	f.fields[3].choice = 0 // a required bool offers true, false
	f.fields[4].choice = 2 // "y"
	got, err := f.Values()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"b":true,"e":"y","i":7,"j":[1,"two"],"n":2.50,"s":""}` {
		t.Fatalf("values %s", b)
	}
	f.SetValue("n", "two")
	if _, err := f.Values(); err == nil || !strings.Contains(err.Error(), `"two" is not a number`) {
		t.Fatalf("err %v", err)
	}
}

func TestPromptAndTemplateFormsRequireTheirValues(t *testing.T) {
	com := &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap(), Theme: testTheme()}
	p := NewPromptForm(com, mcp.CatalogItem{Kind: mcp.KindPrompt, Name: "p", Arguments: []mcp.PromptArgument{{Name: "lang", Required: true}, {Name: "focus"}}})
	if res, _ := p.form.HandleKey(keyMsg("ctrl+s")); res != FormContinue || p.form.fields[0].err == "" {
		t.Fatalf("an empty required prompt argument submitted: %v", res)
	}
	p.form.SetValue("lang", "go")
	if res, _ := p.form.HandleKey(keyMsg("ctrl+s")); res != FormSubmitted {
		t.Fatal("a filled prompt form did not submit")
	}
	if s := p.form.Strings(); len(s) != 1 || s["lang"] != "go" {
		t.Errorf("strings %v: an empty optional argument must be left out", s)
	}
	tf := NewTemplateForm(com, mcp.CatalogItem{Kind: mcp.KindTemplate, Name: "u", URI: "x://u/{id}/{part}", Variables: []string{"id", "part"}})
	tf.form.SetValue("id", "a b")
	prev, err := tf.form.Preview(tf.form)
	if err == nil || !strings.Contains(err.Error(), "part") {
		t.Errorf("preview with a missing variable: %q, %v", prev, err)
	}
	tf.form.SetValue("part", "x")
	if prev, err := tf.form.Preview(tf.form); err != nil || prev != "x://u/a%20b/x" {
		t.Errorf("preview %q, %v", prev, err)
	}
}
