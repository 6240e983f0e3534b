package common

import tea "github.com/charmbracelet/bubbletea"

// Pane is the one contract of the panes the root lays out (the catalog
// list, the detail pane, the viewer, the chat, the server log): the root
// pushes sizes and focus, offers keys, delivers the results addressed to
// the pane, and draws it. A pane keeps its state private; the root asks
// through methods.
type Pane interface {
	// SetSize sets the pane's outer size, and asks for what the size needs.
	SetSize(w, h int) tea.Cmd
	// Focus and Blur give the pane the keys and take them back.
	Focus()
	Blur()
	Focused() bool
	// HandleKey handles a key while the pane has the keys; it reports
	// whether it used the key (an unused key goes on to the global keys).
	HandleKey(msg tea.KeyMsg) (tea.Cmd, bool)
	// HandleResult takes the answer to one of the pane's requests.
	HandleResult(r Result) tea.Cmd
	// Render draws the pane at its size; frame turns its spinners.
	Render(frame int) []string
}
