package dialog

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

func testCommon() *common.Common {
	return &common.Common{Styles: testTheme().Styles, Keys: common.DefaultKeyMap(), Theme: testTheme()}
}

// choiceShown is what the focused choice field shows, ‹ … ›.
func choiceShown(f *Form) string {
	for _, l := range f.Render(80) {
		if i := strings.Index(l, "‹ "); i >= 0 && strings.Contains(l, "space") {
			return l[i : strings.Index(l, " ›")+len(" ›")]
		}
	}
	return ""
}

// presses sends key n times and returns what the choice showed after each.
func presses(f *Form, name string, n int) string {
	var seen []string
	for range n {
		f.HandleKey(keyMsg(name))
		seen = append(seen, choiceShown(f))
	}
	return strings.Join(seen, " ")
}

// Space toggles a yes/no between yes and no; it never passes "not set".
// An optional one starts "not set" (and says it sends nothing), and
// backspace returns it there; a required one starts at "choose".
func TestABooleanTogglesBetweenYesAndNoWithSpace(t *testing.T) {
	fields := ElicitFields([]byte(`{"type":"object","properties":{
	 "agree":{"type":"boolean"},
	 "news":{"type":"boolean"}
	},"required":["agree"]}`))
	f := NewForm(testCommon(), "", "Accept", fields)
	if got := choiceShown(f); got != "‹ choose ›" {
		t.Fatalf("a required yes/no without a default shows %q, want ‹ choose ›", got)
	}
	if seen := presses(f, "space", 4); seen != "‹ yes › ‹ no › ‹ yes › ‹ no ›" {
		t.Fatalf("space on a required yes/no went %v", seen)
	}
	f.HandleKey(keyMsg("backspace"))
	if got := choiceShown(f); got != "‹ no ›" {
		t.Errorf("backspace unset a required yes/no: %q", got)
	}

	f.HandleKey(keyMsg("tab"))
	if got := choiceShown(f); got != "‹ not set ›" || !strings.Contains(strings.Join(f.Render(80), "\n"), "optional: sends nothing") {
		t.Fatalf("an optional yes/no shows %q:\n%s", got, strings.Join(f.Render(80), "\n"))
	}
	if seen := presses(f, "space", 3); seen != "‹ yes › ‹ no › ‹ yes ›" {
		t.Fatalf("space on an optional yes/no went %v", seen)
	}
	f.HandleKey(keyMsg("backspace"))
	if got := choiceShown(f); got != "‹ not set ›" {
		t.Fatalf("backspace did not return the optional yes/no to not set: %q", got)
	}
	vals, err := f.Values()
	if err != nil || vals["agree"] != false || vals["news"] != nil {
		t.Errorf("values %v, %v: want agree=false and news left out", vals, err)
	}
}

// A checklist is drawn one option a line, so ↑/↓ move through it; past
// its ends they move to the field before or after.
func TestAChecklistMovesWithUpAndDown(t *testing.T) {
	fields := ElicitFields([]byte(`{"type":"object","properties":{
	 "days":{"type":"array","items":{"type":"string","enum":["mon","tue","wed"]}},
	 "note":{"type":"string"}
	}}`))
	f := NewForm(testCommon(), "", "Accept", fields)
	f.HandleKey(keyMsg("down"))
	f.HandleKey(keyMsg("down"))
	f.HandleKey(keyMsg("space"))
	f.HandleKey(keyMsg("up"))
	f.HandleKey(keyMsg("space"))
	if got := f.Strings()["days"]; got != "tue,wed" {
		t.Fatalf("picked %q after down, down, space, up, space; want tue,wed", got)
	}
	if v := strings.Join(f.Render(80), "\n"); !strings.Contains(v, "↑/↓ move") || strings.Contains(v, "←/→") {
		t.Errorf("the checklist does not say ↑/↓ move:\n%s", v)
	}
	f.HandleKey(keyMsg("down"))
	f.HandleKey(keyMsg("down"))
	if f.focus != 1 {
		t.Errorf("down past the last option stays in the list (focus %d)", f.focus)
	}
	f.HandleKey(keyMsg("up"))
	if f.focus != 0 || f.fields[0].cursor != 2 {
		t.Errorf("up from the next field: focus %d cursor %d", f.focus, f.fields[0].cursor)
	}
}

// The help line offers the choice keys only on a choice, and the editor
// only on a JSON field.
func TestTheFormsHelpLineFollowsTheFocusedField(t *testing.T) {
	com := testCommon()
	d := NewToolForm(com, mcp.CatalogItem{Kind: mcp.KindTool, Name: "t", Schema: []byte(`{"type":"object","properties":{
	 "s":{"type":"string"},"b":{"type":"boolean"},"j":{"type":"object"}}}`)})
	helpFor := func() string {
		var keys []string
		for _, b := range d.ShortHelp() {
			keys = append(keys, b.Help().Key)
		}
		return strings.Join(keys, " ")
	}
	for _, c := range []struct{ has, lacks string }{
		{"ctrl+s", "space"}, // s: text
		{"space", "ctrl+o"}, // b: yes/no
		{"ctrl+o", "space"}, // j: JSON
	} {
		h := helpFor()
		if !strings.Contains(h, c.has) || strings.Contains(h, c.lacks) {
			t.Errorf("field %d: help %q, want %q and not %q", d.form.focus, h, c.has, c.lacks)
		}
		d.HandleKey(keyMsg("tab"))
	}
}
