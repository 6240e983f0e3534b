package dialog

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/theme"
)

// testTheme is the dark theme under the Ascii profile, as goldens draw.
func testTheme() *theme.Theme { return theme.New(theme.Options{Dark: true, Profile: termenv.Ascii}) }

// keyMsg builds a synthetic key from its name.
func keyMsg(name string) tea.KeyMsg {
	types := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "ctrl+s": tea.KeyCtrlS,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace}
	if t, ok := types[name]; ok {
		return tea.KeyMsg{Type: t}
	}
	if name == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}
