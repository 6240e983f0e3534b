package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/dialog"
)

// openLogTemplateForm opens the demo's log template form (its date is
// completed by the server).
func openLogTemplateForm(t *testing.T) (*harness, *dialog.FormDialog) {
	t.Helper()
	hs := newHarnessWith(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Tick: pauseNow})
	hs.keys("3")
	hs.selectItem(demo.LogTemplate)
	hs.keys("enter")
	d, ok := hs.m.dialogs.Top().(*dialog.FormDialog)
	if !ok {
		t.Fatalf("no template form: %T", hs.m.dialogs.Top())
	}
	return hs, d
}

// Before anything is typed the template form shows no error; once the
// person types, what is missing is said to them, not to a model.
func TestTemplateFormShowsNoErrorBeforeTheFirstKey(t *testing.T) {
	hs, _ := openLogTemplateForm(t)
	defer hs.dumpOnFailure()
	for _, bad := range []string{"has no value", "pass it in arguments", "fill in date"} {
		if v := hs.view(); strings.Contains(v, bad) {
			t.Fatalf("the untouched form shows %q:\n%s", bad, v)
		}
	}
	hs.typeText("2025-06-02")
	if v := hs.view(); !strings.Contains(v, "→ demo://logs/2025-06-02") && !strings.Contains(v, "2025-06-02.log") {
		t.Errorf("the preview does not show the address once filled:\n%s", v)
	}
	for range "2025-06-02" {
		hs.keys("backspace")
	}
	v := hs.view()
	if strings.Contains(v, "has no value") || strings.Contains(v, "pass it in arguments") {
		t.Fatalf("the emptied form speaks to a model:\n%s", v)
	}
	if !strings.Contains(v, "fill in date to see the address it reads") {
		t.Errorf("the emptied form does not say what to fill in:\n%s", v)
	}
}

// Tab on a typed value takes the highlighted completion, as the chat's
// completion does, so the read gets a whole date; the next tab moves on.
func TestTabTakesTheHighlightedCompletionInATemplateForm(t *testing.T) {
	hs, d := openLogTemplateForm(t)
	defer hs.dumpOnFailure()
	hs.typeText("2025-06-1")
	if fl := d.Form().Fields()[0]; len(fl.Suggestions()) == 0 {
		t.Fatal("precondition: the server offers no completions")
	}
	if v := hs.view(); !strings.Contains(v, "tab/→ accepts") {
		t.Errorf("the form does not say tab accepts:\n%s", v)
	}
	hs.keys("tab")
	if got := d.Form().Strings()["date"]; got != "2025-06-10" {
		t.Fatalf("after tab the date is %q, want the highlighted 2025-06-10", got)
	}
	hs.keys("enter")
	if hs.m.dialogs.Len() != 0 || !strings.Contains(hs.view(), "2025-06-10") {
		t.Fatalf("the read did not go out with the completed date:\n%s", hs.view())
	}
}

// memoryCreateEntities is server-memory's create_entities as it lists it.
var memoryCreateEntities = mcp.CatalogItem{Kind: mcp.KindTool, ID: "create_entities", Name: "create_entities",
	Schema: json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{` +
		`"name":{"type":"string","description":"The name of the entity"},"entityType":{"type":"string","description":"The type of the entity"},` +
		`"observations":{"type":"array","items":{"type":"string"},"description":"An array of observation contents associated with the entity"}},` +
		`"required":["name","entityType","observations"]}}},"required":["entities"]}`)}

// The skeleton a JSON field offers can be sent unchanged only on purpose:
// its empty strings where the schema requires a value are flagged first,
// by name; a second ctrl+s sends it as it is.
func TestAJSONArgumentLeftAsTheSkeletonIsFlaggedBeforeSending(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("memory", memoryCreateEntities)
	hs := newHarness(t, rt, []string{"memory"}, 120, 40)
	defer hs.dumpOnFailure()
	hs.keys("enter", "right", "ctrl+s")
	if n := rt.callCount("mcp_invoke_memory"); n != 0 {
		t.Fatalf("the skeleton was sent unchanged: %v", rt.calls)
	}
	v := hs.view()
	for _, want := range []string{"entities[0].name", "entities[0].entityType", "entities[0].observations[0]", "ctrl+s again"} {
		if !strings.Contains(v, want) {
			t.Errorf("the form does not flag %q:\n%s", want, v)
		}
	}
	hs.keys("ctrl+s")
	if n := rt.callCount(`mcp_invoke_memory {"arguments":{"entities":[{"entityType":"","name":"","observations":[""]}]}`); n != 1 {
		t.Fatalf("a second ctrl+s did not send it as it is: %v", rt.calls)
	}
}

// A long JSON argument wraps over several lines instead of scrolling away
// sideways, and ctrl+j starts a new line in it.
func TestAJSONArgumentIsEditedOverSeveralLines(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("memory", memoryCreateEntities)
	hs := newHarness(t, rt, []string{"memory"}, 80, 24)
	defer hs.dumpOnFailure()
	hs.keys("enter")
	long := `[{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first program","worked with Babbage on the engine"]}]`
	hs.typeText(long)
	v := hs.view()
	for _, part := range []string{`› [{"name":"Ada`, `Babbage`, `engine"]}]`} {
		if !strings.Contains(v, part) {
			t.Errorf("%q of the JSON is not on screen:\n%s", part, v)
		}
	}
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlJ})
	d := hs.m.dialogs.Top().(*dialog.FormDialog)
	if got := d.Form().Strings()["entities"]; !strings.HasSuffix(got, "\n") {
		t.Errorf("ctrl+j did not start a new line: %q", got)
	}
	hs.keys("ctrl+s")
	if n := rt.callCount(`mcp_invoke_memory {"arguments":{"entities":[{"entityType":"person","name":"Ada Lovelace"`); n != 1 {
		t.Fatalf("the filled JSON was not sent: %v", rt.calls)
	}
}
