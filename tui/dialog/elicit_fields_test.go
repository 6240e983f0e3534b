package dialog

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/tui/common"
)

func TestElicitFieldsFillDefaultsButNeverChooseForThePerson(t *testing.T) {
	fields := ElicitFields([]byte(`{"type":"object","properties":{
	 "agree":{"type":"boolean"},
	 "count":{"type":"number","default":2.5},
	 "mode":{"type":"string","enum":["a","b"],"default":"b"},
	 "tier":{"type":"string","oneOf":[{"const":"x","title":"Ex"}]}
	},"required":["agree","tier"]}`))
	byName := map[string]*Field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	if f := byName["agree"]; f.Choices[f.choice] != unsetChoice {
		t.Errorf("a required yes/no without a default starts at %q, want %q", f.Choices[f.choice], unsetChoice)
	}
	if f := byName["tier"]; f.Choices[f.choice] != unsetChoice || f.Choices[1] != "Ex" {
		t.Errorf("tier choices %v at %d: want unset first and the title shown", f.Choices, f.choice)
	}
	if f := byName["mode"]; f.Choices[f.choice] != "b" {
		t.Errorf("mode starts at %q, want its default b", f.Choices[f.choice])
	}
	if f := byName["count"]; f.Initial != "2.5" {
		t.Errorf("count starts with %q, want its default 2.5 filled in", f.Initial)
	}
	form := NewForm(&common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}, "", "Accept", fields)
	if _, err := form.Values(); err == nil || !strings.Contains(err.Error(), "agree: choose a value") {
		t.Errorf("an unmade required choice: %v, want agree: choose a value", err)
	}
}

// A server's format, default and enum text reach the form's placeholder,
// hints and errors; none may carry a terminal escape to the screen.
func TestElicitFormNeverDrawsAServersEscapes(t *testing.T) {
	fields := ElicitFields([]byte(`{"type":"object","properties":{
	 "a":{"type":"string","format":"\u001b]0;pwned\u0007"},
	 "b":{"type":"string","title":"\u001b[31mred","description":"\u009b2J"},
	 "c":{"type":"string","enum":["\u001b[5mx"]}
	},"required":["a"]}`))
	form := NewForm(&common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}, "", "Accept", fields)
	check := func(when string) {
		t.Helper()
		for i := range fields {
			form.setFocus(i)
			out := strings.Join(form.Render(80), "\n")
			if strings.ContainsAny(out, "\x1b\x07\u009b") {
				t.Fatalf("%s: a server escape reached the form (field %d):\n%q", when, i, out)
			}
		}
	}
	check("empty (placeholders)")
	form.SetValue("a", "typed")
	form.submit() // the format check fails and names the format
	check("after a failed check (errors)")
}
