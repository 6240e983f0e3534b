package common

import (
	"fmt"
	"io"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/render"
)

// Clipboard receives what `y` copies.
type Clipboard interface {
	Copy(text string) error
}

// OSC52 copies through the terminal with an OSC 52 sequence, which works
// over ssh and, with set-clipboard on, through tmux. The sequence is one
// write to the terminal, made from a command; it moves no cursor, so it
// cannot disturb the frame bubbletea draws.
type OSC52 struct {
	mu  sync.Mutex
	Out io.Writer
}

// Copy writes the sequence that sets the system clipboard to text.
func (o *OSC52) Copy(text string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Out == nil {
		return fmt.Errorf("no terminal to copy through")
	}
	_, err := io.WriteString(o.Out, ansi.SetSystemClipboard(text))
	return err
}

// maxCopyBytes bounds what one copy sends through the terminal; many
// terminals drop larger OSC 52 payloads.
const MaxCopyBytes = 100_000

// copyCmd copies text off the update path and reports the outcome.
func CopyCmd(cb Clipboard, text, what string) tea.Cmd {
	if cb == nil {
		return ReportWarn("no clipboard: copying needs a terminal")
	}
	return func() tea.Msg {
		note := ""
		if len(text) > MaxCopyBytes {
			cut := render.RuneBoundary(text, MaxCopyBytes)
			text = text[:cut]
			note = fmt.Sprintf(" (the first %d bytes: terminals drop larger copies)", cut)
		}
		if err := cb.Copy(text); err != nil {
			return InfoMsg{Type: InfoError, Msg: fmt.Sprintf("copying failed: %v", err), TTL: DefaultInfoTTL}
		}
		return InfoMsg{Type: InfoPlain, Msg: fmt.Sprintf("copied the %s to the clipboard%s", what, note), TTL: DefaultInfoTTL}
	}
}
