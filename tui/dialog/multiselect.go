package dialog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// NewMultiField builds a multi-select field: choices are shown, values
// (JSON, in the same order) are sent, as an array in the choices' order.
// picked pre-selects options (a default); minItems and maxItems (-1: no
// bound) are checked on submit.
func NewMultiField(name string, choices []string, values []json.RawMessage, picked []bool, minItems, maxItems int) *Field {
	fl := &Field{Name: name, Kind: FieldMulti, Choices: choices, values: values, picked: make([]bool, len(choices))}
	copy(fl.picked, picked)
	fl.Check = func(v any) string {
		n := len(v.([]any))
		switch {
		case minItems >= 0 && n < minItems:
			return fmt.Sprintf("%d chosen, at least %d needed: pick more with space", n, minItems)
		case maxItems >= 0 && n > maxItems:
			return fmt.Sprintf("%d chosen, at most %d allowed: unpick some with space", n, maxItems)
		}
		return ""
	}
	return fl
}

// multiKey handles a key on a focused multi-select, a vertical list: up
// and down move between options (past the first or the last they leave
// the field, as they do between fields), space picks or unpicks. It
// reports whether it used the key.
func (fl *Field) multiKey(msg tea.KeyMsg, k *common.KeyMap) bool {
	if len(fl.Choices) == 0 {
		return false
	}
	switch {
	case msg.Type == tea.KeyUp && fl.cursor > 0:
		fl.cursor--
	case msg.Type == tea.KeyDown && fl.cursor < len(fl.Choices)-1:
		fl.cursor++
	case key.Matches(msg, k.Toggle) && msg.Type != tea.KeyLeft && msg.Type != tea.KeyRight:
		fl.picked[fl.cursor] = !fl.picked[fl.cursor]
		fl.err = ""
	default:
		return false
	}
	return true
}

// multiValue is the chosen values as a JSON array (numbers as
// json.Number). An optional field with nothing picked sends nothing.
func (fl *Field) multiValue() (any, bool, string) {
	out := []any{}
	for i, p := range fl.picked {
		if !p {
			continue
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(fl.values[i]))
		dec.UseNumber()
		_ = dec.Decode(&v)
		out = append(out, v)
	}
	if len(out) == 0 && !fl.Required {
		return nil, false, ""
	}
	return out, true, ""
}

// pickedChoices are the shown names of the picked options.
func (fl *Field) pickedChoices() []string {
	var out []string
	for i, p := range fl.picked {
		if p {
			out = append(out, fl.Choices[i])
		}
	}
	return out
}

// renderMulti draws one line per option: a box, picked or not, and the
// cursor's option highlighted while the field has focus.
func (fl *Field) renderMulti(st *theme.Styles, focused bool, w int) []string {
	out := make([]string, 0, len(fl.Choices))
	for i, c := range fl.Choices {
		mark := "[ ] "
		if fl.picked[i] {
			mark = "[x] "
		}
		line := common.Truncate(mark+c, w)
		if focused && i == fl.cursor {
			line = common.Truncate(st.Form.LabelFocused.Render("›"+mark+c)+st.Form.Hint.Render("  space picks · ↑/↓ move"), w)
		} else {
			line = " " + line
		}
		out = append(out, line)
	}
	return out
}
