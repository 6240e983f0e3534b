package common

import (
	"github.com/charmbracelet/bubbles/cursor"
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
