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
	m.com.Terminal = out
	defer common.KeepSpareProc()()
	// bubbletea draws a stand-in; howl draws each frame as it is made
	// (frames.go says why).
	fr := newFrames(out)
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithOutput(fr)}, programOpts...)
	p := tea.NewProgram(framedModel{inner: m, frames: fr}, opts...)
	_, _ = io.WriteString(out, ansi.ResetModeAutoWrap)
	defer io.WriteString(out, ansi.SetModeAutoWrap)

	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		relay.Run(rctx, p.Send)
	}()
	go func() {
		defer wg.Done()
		fr.run()
	}()
	_, err := p.Run()
	stop()
	fr.stop()
	wg.Wait()
	m.Close()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		// A signal ended the program: the terminal is restored, nothing failed.
		return nil
	}
	return err
}
