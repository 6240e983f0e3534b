package tui

import (
	"bytes"
	"io"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Frames drawn the moment they are made.
//
// bubbletea v1's renderer writes a changed view only on its next tick, at
// most 120 a second: up to 8.3 ms of every key's echo waited for it, half
// of the echo's budget (issue 20: 16 ms). Its renderer is unexported and
// has no flush. So howl hands bubbletea a view that never changes
// (standInView), which its renderer has nothing to draw for, and draws
// the real one itself: the program's View offers each frame to a
// goroutine of Run's that writes the lines that changed at once, the
// latest frame winning when frames come faster than the terminal takes
// them. bubbletea keeps everything else (raw mode, resize, the alt
// screen, mouse and paste modes, handing the terminal to an editor), and
// its writes pass through frames.Write, which is how frames learns when
// the alt screen is up.

// standInView is the view bubbletea's renderer sees.
const standInView = " "

// frames draws the views offered to it on out. Its Write is the output
// bubbletea writes to.
//
// Two locks, so that a terminal slow to take a write (a paused tty, a
// flooded ssh link) holds back only the drawing, never the update loop:
// slot holds what the loop hands over (the latest view, the size), and
// the loop takes nothing else; mu holds the screen's state and every
// write to out, so that bubbletea's writes and frames' keep their order.
// A goroutine holding both takes mu first.
type frames struct {
	slot   sync.Mutex
	frame  string // the latest view offered
	fresh  bool   // frame is not drawn yet
	nw, nh int    // the latest size, which draw takes

	mu  sync.Mutex
	out io.Writer
	// shown: the alt screen is up, so frames may be drawn. Frames are
	// drawn only there: outside it (before the program, after it, while
	// an editor has the terminal) the screen is not howl's.
	shown bool
	// last is the lines on the screen, nil when it holds none of howl's
	// (at first, on a new size, back from an editor).
	last          []string
	width, height int
	buf           bytes.Buffer

	wake chan struct{} // a frame was offered (cap 1)
	done chan struct{}
}

// frames is the program's output, and bubbletea looks for a terminal's
// descriptor on it.
var _ term.File = (*frames)(nil)

func newFrames(out io.Writer) *frames {
	return &frames{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// run draws each frame offered, until stop. Run owns it. It draws as
// soon as a frame comes: a minimum gap between frames (tried: 120 a
// second, leading edge) brought back the wait it is here to remove, as
// a key's frame often follows another (a filter's results) closely. The
// terminal is not flooded: the latest frame wins, and a write the
// terminal is slow to take holds back the next.
func (f *frames) run() {
	for {
		select {
		case <-f.done:
			return
		case <-f.wake:
			f.draw()
		}
	}
}

// stop ends run; frames offered after it are not drawn.
func (f *frames) stop() { close(f.done) }

// offer hands over the latest view; run draws it.
func (f *frames) offer(view string) {
	f.slot.Lock()
	f.frame, f.fresh = view, true
	f.slot.Unlock()
	f.signal()
}

// signal wakes run, unless a wake-up is waiting already: run draws the
// latest frame either way.
func (f *frames) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// resize takes the terminal's new size; the next frame is drawn whole.
func (f *frames) resize(w, h int) {
	f.slot.Lock()
	f.nw, f.nh = w, h
	f.slot.Unlock()
}

// Write passes bubbletea's writes to the terminal, but for its renderer's
// frames (which start at the alt screen's home and hold the stand-in),
// and notes the alt screen going up and down. When bubbletea clears the
// screen (as it does right after putting the alt screen up: at the
// start, back from an editor), the latest frame is drawn again, whole.
func (f *frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch s := string(p); {
	case len(s) > len(ansi.CursorHomePosition) && strings.HasPrefix(s, ansi.CursorHomePosition):
		return len(p), nil // bubbletea's renderer drawing the stand-in
	case s == ansi.SetModeAltScreenSaveCursor:
		f.shown, f.last = true, nil
	case s == ansi.ResetModeAltScreenSaveCursor:
		f.shown = false
	case s == ansi.EraseEntireScreen:
		n, err := f.out.Write(p)
		f.last = nil
		f.slot.Lock()
		f.fresh = f.frame != ""
		fresh := f.fresh
		f.slot.Unlock()
		if fresh {
			f.signal()
		}
		return n, err
	}
	return f.out.Write(p)
}

// Fd, Read and Close make frames stand for the terminal that out is:
// bubbletea asks its output's descriptor for the window's size (and, on
// Windows, turns on its escape sequences). Out that is no file has no
// descriptor. Close leaves out open: its owner closes it.
func (f *frames) Fd() uintptr {
	if t, ok := f.out.(term.File); ok {
		return t.Fd()
	}
	return ^uintptr(0)
}

func (f *frames) Read([]byte) (int, error) { return 0, io.EOF }

func (f *frames) Close() error { return nil }

// draw writes the latest frame's lines that differ from the screen's,
// as bubbletea's renderer does: each cut to the width and cleared to its
// end, the rows below the frame cleared, the cursor left at the start of
// the frame's last line.
func (f *frames) draw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slot.Lock()
	if f.nw != f.width || f.nh != f.height {
		f.width, f.height, f.last = f.nw, f.nh, nil
	}
	if !f.fresh || !f.shown {
		f.slot.Unlock()
		return // drawn already, or not howl's screen: the next offer draws
	}
	f.fresh = false
	frame := f.frame
	f.slot.Unlock()
	if frame == "" {
		frame = standInView
	}
	lines := strings.Split(frame, "\n")
	if f.height > 0 && len(lines) > f.height {
		lines = lines[len(lines)-f.height:]
	}
	f.buf.Reset()
	for i, line := range lines {
		if i < len(f.last) && f.last[i] == line {
			continue
		}
		f.buf.WriteString(ansi.CursorPosition(1, i+1))
		if f.width > 0 {
			line = ansi.Truncate(line, f.width, "")
		}
		f.buf.WriteString(line)
		if ansi.StringWidth(line) < f.width {
			f.buf.WriteString(ansi.EraseLineRight)
		}
	}
	if len(f.last) > len(lines) {
		f.buf.WriteString(ansi.CursorPosition(1, len(lines)+1) + ansi.EraseScreenBelow)
	}
	if f.buf.Len() == 0 {
		return // the same frame again
	}
	f.buf.WriteString(ansi.CursorPosition(1, len(lines)))
	_, _ = f.out.Write(f.buf.Bytes())
	f.last = lines
}

// framedModel is the program's model as bubbletea sees it: inner's
// updates, frames' size, and the stand-in for a view, inner's own going
// to frames.
type framedModel struct {
	inner  tea.Model
	frames *frames
}

func (m framedModel) Init() tea.Cmd { return m.inner.Init() }

func (m framedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		m.frames.resize(ws.Width, ws.Height)
	}
	var cmd tea.Cmd
	m.inner, cmd = m.inner.Update(msg)
	return m, cmd
}

func (m framedModel) View() string {
	m.frames.offer(m.inner.View())
	return standInView
}
