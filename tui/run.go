package tui

import (
	"context"
	"errors"
	"io"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/tui/common"
)

// FramesPerSecond is how often the screen is redrawn when it changed:
// bubbletea's most. A key's echo waits for the next frame; at its default
// of 60 that is up to 16.7 ms, the whole of an echo's budget (issue 20:
// 16 ms); at 120, up to 8.3. An idle screen costs a tick that finds
// nothing changed.
const FramesPerSecond = 120

// Run runs the TUI until the person quits or ctx ends, then cancels what
// is in flight and restores the terminal. The relay's goroutine runs for
// exactly as long as the program. The caller owns the runtime: start it
// before Run (its events queue in the relay until the program reads them)
// and close it after.
//
// out is the terminal the program draws on. Run turns its line autowrap
// off for the program's lifetime: terminals disagree about the width of
// some characters (combining marks, emoji sequences), and a line a server's
// text makes one cell too wide must be clipped, not wrapped into the next.
func Run(ctx context.Context, o Options, relay *Relay, out io.Writer, programOpts ...tea.ProgramOption) error {
	if o.Context == nil {
		o.Context = ctx
	}
	m := New(o)
	defer common.KeepSpareProc()()
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithOutput(out), tea.WithFPS(FramesPerSecond)}, programOpts...)
	p := tea.NewProgram(m, opts...)
	_, _ = io.WriteString(out, ansi.ResetModeAutoWrap)
	defer io.WriteString(out, ansi.SetModeAutoWrap)

	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		relay.Run(rctx, p.Send)
	}()
	_, err := p.Run()
	stop()
	wg.Wait()
	m.Close()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		// A signal ended the program: the terminal is restored, nothing failed.
		return nil
	}
	return err
}
