package chat

import (
	"os"
	"os/exec"
	"strings"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// maxInputLines is how tall the input line grows before it scrolls.
const MaxInputLines = 6

// maxHistory bounds the input history.
const maxHistory = 200

// chatInput is the line at the bottom of the chat: multi-line editing
// (alt+enter or ctrl+j for a newline, enter sends), a history walked with
// up and down from the first and last line, and ctrl+o for $EDITOR.
type Input struct {
	com   *common.Common
	ta    textarea.Model
	width int

	history []string
	// hpos is the history entry shown; len(history) is the draft.
	hpos  int
	draft string
}

func NewInput(com *common.Common) *Input {
	ta := common.NewTextArea(com, "ask anything · .help lists the commands")
	ta.Focus()
	return &Input{com: com, ta: ta}
}

// Height is how many rows the input takes.
func (in *Input) Height() int { return common.Clamp(in.ta.LineCount(), 1, MaxInputLines) }

// SetWidth sets the width.
func (in *Input) SetWidth(w int) {
	in.width = w
	in.ta.SetWidth(max(w, 4))
	in.ta.SetHeight(in.Height())
}

// Value is the text typed.
func (in *Input) Value() string { return in.ta.Value() }

// SetValue replaces the text, the cursor at its end.
func (in *Input) SetValue(s string) {
	in.ta.SetValue(s)
	in.ta.SetHeight(in.Height())
}

// Take returns the text, records it in the history and empties the line.
func (in *Input) Take() string {
	s := in.ta.Value()
	if strings.TrimSpace(s) != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != s) {
		in.history = append(in.history, s)
		if len(in.history) > maxHistory {
			in.history = in.history[len(in.history)-maxHistory:]
		}
	}
	in.hpos = len(in.history)
	in.draft = ""
	in.SetValue("")
	return s
}

// HandleKey edits the text; up on the first line and down on the last
// walk the history.
func (in *Input) HandleKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyUp:
		if in.ta.Line() == 0 && in.hpos > 0 {
			if in.hpos == len(in.history) {
				in.draft = in.ta.Value()
			}
			in.hpos--
			in.SetValue(in.history[in.hpos])
			return nil
		}
	case tea.KeyDown:
		if in.ta.Line() == in.ta.LineCount()-1 && in.hpos < len(in.history) {
			in.hpos++
			if in.hpos == len(in.history) {
				in.SetValue(in.draft)
			} else {
				in.SetValue(in.history[in.hpos])
			}
			return nil
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	in.ta.SetHeight(in.Height())
	return cmd
}

// View draws the input's rows.
func (in *Input) View() []string {
	return common.PadLines(strings.Split(in.ta.View(), "\n"), in.width, in.Height())
}

// editorReadyMsg: the draft was written to a file for the editor.
type EditorReady struct {
	Path string
	Err  error
}

// editorDoneMsg: the editor exited; text is what the file holds now.
type EditorDone struct {
	Text string
	Err  error
}

// writeDraftCmd writes the draft to a temporary file for $EDITOR.
func WriteDraftCmd(draft string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "howl-input-*.md")
		if err != nil {
			return EditorReady{Err: err}
		}
		_, err = f.WriteString(draft)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return EditorReady{Path: f.Name(), Err: err}
	}
}

// EditorCmd suspends the program and runs com's editor on path, on the
// terminal; the file is read back and removed when it exits.
func EditorCmd(com *common.Common, path string, id common.RequestID) tea.Cmd {
	return EditorCmdFor(common.OwnerChat, com, path, id)
}

// EditorCmdFor is EditorCmd answering owner (a form's JSON field, say).
func EditorCmdFor(owner common.Owner, com *common.Common, path string, id common.RequestID) tea.Cmd {
	words := strings.Fields(com.Editor)
	c := exec.Command(words[0], append(words[1:], path)...)
	// The terminal itself, not the program's output (Run's frames): an
	// editor whose output is a pipe is not on a terminal.
	c.Stdout = com.Terminal
	return tea.ExecProcess(c, func(err error) tea.Msg {
		b, rerr := os.ReadFile(path)
		_ = os.Remove(path)
		if err == nil {
			err = rerr
		}
		return common.Result{Owner: owner, ID: id, Msg: EditorDone{Text: strings.TrimRight(string(b), "\n"), Err: err}}
	})
}
