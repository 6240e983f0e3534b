package dialog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// A JSON argument is edited over several lines: long JSON wraps instead
// of scrolling away sideways, ctrl+j (or alt+enter) starts a new line, and
// ctrl+o opens it in $EDITOR, as the chat's input does.

// jsonAreaRows is how tall a focused JSON field grows before it scrolls;
// jsonAreaRowsBlurred how much of it shows when another field has focus.
const (
	jsonAreaRows        = 8
	jsonAreaRowsBlurred = 3
)

// jsonArea is a JSON field's multi-line editor.
type jsonArea struct {
	ta textarea.Model
}

func newJSONArea(com *common.Common, placeholder string) *jsonArea {
	return &jsonArea{ta: common.NewTextArea(com, placeholder)}
}

// rows is how many rows the text takes at the area's width, wrapped: the
// cursor's line as the textarea wraps it, the others estimated a little
// narrower (it keeps a cell for the cursor).
func (a *jsonArea) rows() int {
	w := max(a.ta.Width()-2, 1)
	n := 0
	for i, l := range strings.Split(a.ta.Value(), "\n") {
		if i == a.ta.Line() {
			n += max(a.ta.LineInfo().Height, 1)
			continue
		}
		n += max(len(common.WrapWords(l, w)), 1)
	}
	return n
}

// view draws the area w cells wide, as tall as its text (bounded).
func (a *jsonArea) view(w int, focused bool) []string {
	a.ta.SetWidth(max(w, 6))
	limit := jsonAreaRowsBlurred
	if focused {
		limit = jsonAreaRows
	}
	a.ta.SetHeight(common.Clamp(a.rows(), 1, limit))
	return strings.Split(a.ta.View(), "\n")
}

// leaves reports whether up or down moves off the area: from its first
// or last row. Other rows move the cursor within the text.
func (a *jsonArea) leaves(msg tea.KeyMsg) bool {
	li := a.ta.LineInfo()
	switch msg.Type {
	case tea.KeyUp:
		return a.ta.Line() == 0 && li.RowOffset == 0
	case tea.KeyDown:
		return a.ta.Line() == a.ta.LineCount()-1 && li.RowOffset >= li.Height-1
	}
	return true
}

// emptyRequired lists where v, checked against schema, has an empty
// string in a required property (or in an array that one holds): what a
// skeleton leaves until it is filled in. Paths read like
// entities[0].name.
func emptyRequired(schema json.RawMessage, v any, required bool, path string) []string {
	switch x := v.(type) {
	case string:
		if x == "" && required && path != "" {
			return []string{path}
		}
	case []any:
		var s struct {
			Items json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(schema, &s)
		var out []string
		for i, e := range x {
			out = append(out, emptyRequired(s.Items, e, required, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case map[string]any:
		var out []string
		for _, p := range mcp.SchemaProps(schema) {
			if e, ok := x[p.Name]; ok {
				sub := p.Name
				if path != "" {
					sub = path + "." + p.Name
				}
				out = append(out, emptyRequired(p.Raw, e, p.Required, sub)...)
			}
		}
		return out
	}
	return nil
}

// emptyWarning is what a JSON field says of its empty required strings
// ("" when there are none).
func emptyWarning(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	shown := paths
	if len(shown) > 4 {
		shown = append(shown[:4:4], fmt.Sprintf("%d more", len(paths)-4))
	}
	verb, them := "is still empty where the schema asks for a value", "it"
	if len(paths) > 1 {
		verb, them = "are still empty where the schema asks for values", "them"
	}
	return render.SanitizeLine(common.JoinAnd(shown)) + " " + verb + ": fill " + them + " in, or press ctrl+s again to send " + them + " empty"
}

// jsonEditorKey opens the focused JSON field in $EDITOR (ctrl+o): its
// text is written to a file first, off the update path.
func (d *FormDialog) jsonEditorKey(km tea.KeyMsg) (Action, bool) {
	f := d.form
	if f.focus >= len(f.fields) || f.fields[f.focus].Kind != FieldJSON || !key.Matches(km, d.com.Keys.Editor) {
		return nil, false
	}
	fl := f.fields[f.focus]
	if d.com.Editor == "" {
		fl.err = "ctrl+o opens $EDITOR, and $EDITOR is not set: set it (e.g. EDITOR=vim) and start howl again, or type the JSON here"
		return None{}, true
	}
	d.editing = fl
	return Cmd{common.Deliver(d.Owner(), d.com.NewID(), chat.WriteDraftCmd(fl.text()))}, true
}

// handleEditorResult runs the editor on the written file, then puts what
// it saved into the field it was opened from.
func (d *FormDialog) handleEditorResult(msg tea.Msg) (Action, bool) {
	switch msg := msg.(type) {
	case chat.EditorReady:
		if msg.Err != nil {
			d.editorFailed(fmt.Errorf("writing the JSON for $EDITOR: %w", msg.Err))
			return None{}, true
		}
		return Cmd{chat.EditorCmdFor(d.Owner(), d.com, msg.Path, d.com.NewID())}, true
	case chat.EditorDone:
		if msg.Err != nil {
			d.editorFailed(fmt.Errorf("$EDITOR (%s) failed: %w; the field is unchanged", d.com.Editor, msg.Err))
		} else if d.editing != nil {
			d.editing.setText(msg.Text)
			d.editing.err = ""
			d.form.touched = true
		}
		d.editing = nil
		return None{}, true
	}
	return nil, false
}

// editorFailed shows why the editor did not run, on the field it was for.
func (d *FormDialog) editorFailed(err error) {
	if d.editing != nil {
		d.editing.err = err.Error()
	}
}
