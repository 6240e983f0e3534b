package common

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// textInput is a bubbles text input styled from the theme, with a steady
// cursor: no blink timer runs, and no blink frame reaches a golden.
type TextInput struct {
	textinput.Model
}

func NewTextInput(com *Common, prompt, placeholder string) TextInput {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	st := com.Styles.TextInput
	ti.PromptStyle = st.Prompt
	ti.TextStyle = st.Text
	ti.PlaceholderStyle = st.Placeholder
	ti.Cursor.Style = st.Cursor
	ti.Cursor.SetMode(cursor.CursorStatic)
	return TextInput{ti}
}

// Update feeds a message to the input.
func (t *TextInput) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	t.Model, cmd = t.Model.Update(msg)
	return cmd
}

// Focus focuses the input (returns no blink command: the cursor is steady).
func (t *TextInput) Focus() tea.Cmd {
	t.Model.Focus()
	return nil
}

// SetWidth sets how many cells of text show at once.
func (t *TextInput) SetWidth(w int) { t.Width = w }

// NewTextArea is a multi-line input styled from the theme: "› " before
// its first line, a steady cursor, no line numbers or length limit, one
// row tall until its owner sizes it, and a new line on the keymap's
// Newline (enter is left to the owner).
func NewTextArea(com *Common, placeholder string) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Prompt = "› "
	ta.SetPromptFunc(2, func(line int) string {
		if line == 0 {
			return "› "
		}
		return "  "
	})
	ta.Placeholder = placeholder
	st := com.Styles.TextInput
	plain := textarea.Style{Prompt: st.Prompt, Text: st.Text, Placeholder: st.Placeholder}
	ta.FocusedStyle, ta.BlurredStyle = plain, plain
	ta.Cursor.Style = st.Cursor
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.KeyMap.InsertNewline = com.Keys.Newline
	ta.SetHeight(1)
	return ta
}
