package tui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// textInput is a bubbles text input styled from the theme, with a steady
// cursor: no blink timer runs, and no blink frame reaches a golden.
type textInput struct {
	textinput.Model
}

func newTextInput(com *Common, prompt, placeholder string) textInput {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	st := com.Styles.TextInput
	ti.PromptStyle = st.Prompt
	ti.TextStyle = st.Text
	ti.PlaceholderStyle = st.Placeholder
	ti.Cursor.Style = st.Cursor
	ti.Cursor.SetMode(cursor.CursorStatic)
	return textInput{ti}
}

// Update feeds a message to the input.
func (t *textInput) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	t.Model, cmd = t.Model.Update(msg)
	return cmd
}

// Focus focuses the input (returns no blink command: the cursor is steady).
func (t *textInput) Focus() tea.Cmd {
	t.Model.Focus()
	return nil
}

// SetWidth sets how many cells of text show at once.
func (t *textInput) SetWidth(w int) { t.Width = w }
