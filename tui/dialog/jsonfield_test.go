package dialog

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

var entitiesTool = mcp.CatalogItem{Kind: mcp.KindTool, Server: "memory", ID: "create_entities", Name: "create_entities",
	Schema: json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{` +
		`"name":{"type":"string"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},` +
		`"required":["name","entityType","observations"]}}},"required":["entities"]}`)}

// ctrl+o on a JSON field writes its text to a file for $EDITOR, and what
// the editor saved comes back into that field.
func TestCtrlOEditsAJSONArgumentInTheEditor(t *testing.T) {
	com := testCommon()
	com.Editor = "vi"
	d := NewToolForm(com, entitiesTool)
	d.setOwner(common.DialogOwner(1))
	d.form.SetValue("entities", `[{"name":"Ada"}]`)
	a, ok := d.HandleKey(tea.KeyMsg{Type: tea.KeyCtrlO}).(Cmd)
	if !ok {
		t.Fatalf("ctrl+o did nothing: %#v", d.HandleKey(tea.KeyMsg{Type: tea.KeyCtrlO}))
	}
	msgs := commontest.Messages(a.Cmd)
	r := msgs[0].(common.Result)
	ready := r.Msg.(chat.EditorReady)
	t.Cleanup(func() { os.Remove(ready.Path) })
	if b, err := os.ReadFile(ready.Path); err != nil || string(b) != `[{"name":"Ada"}]` {
		t.Fatalf("the editor's file holds %q, %v", b, err)
	}
	if _, ok := d.HandleResult(r).(Cmd); !ok {
		t.Fatal("the written file did not start the editor")
	}
	edited := "[{\"name\":\"Ada\",\n  \"entityType\":\"person\",\"observations\":[\"x\"]}]"
	d.HandleResult(common.Result{Owner: d.Owner(), Msg: chat.EditorDone{Text: edited}})
	if got := d.form.Strings()["entities"]; got != edited {
		t.Errorf("the field holds %q after the editor, want what it saved", got)
	}
}

// Without $EDITOR, ctrl+o says how to set it, on the field.
func TestCtrlOWithoutAnEditorSaysHowToSetOne(t *testing.T) {
	d := NewToolForm(testCommon(), entitiesTool)
	d.HandleKey(tea.KeyMsg{Type: tea.KeyCtrlO})
	if v := strings.Join(d.form.Render(80), "\n"); !strings.Contains(v, "$EDITOR is not set") {
		t.Errorf("ctrl+o without $EDITOR:\n%s", v)
	}
}

// Empty strings are flagged where the schema requires a value, named by
// their path; a present, filled value is not.
func TestEmptyRequiredNamesTheSkeletonsLeftovers(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`[{"name":"","entityType":"x","observations":["", "seen"]},{"name":"b","entityType":"","observations":[]}]`), &v)
	props := mcp.SchemaProps(entitiesTool.Schema)
	got := emptyRequired(props[0].Raw, v, true, "entities")
	if strings.Join(got, " ") != "entities[0].name entities[0].observations[0] entities[1].entityType" {
		t.Errorf("flagged %v", got)
	}
}
