package tui

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// shownFrames is frames on a buffer, with the alt screen up and a size.
func shownFrames(w, h int) (*frames, *bytes.Buffer) {
	var out bytes.Buffer
	f := newFrames(&out)
	_, _ = f.Write([]byte(ansi.SetModeAltScreenSaveCursor))
	f.resize(w, h)
	out.Reset()
	return f, &out
}

// drawn offers view and returns what drawing it wrote.
func drawn(f *frames, out *bytes.Buffer, view string) string {
	out.Reset()
	f.offer(view)
	f.draw()
	return out.String()
}

func TestFramesDrawOnlyTheLinesThatChanged(t *testing.T) {
	f, out := shownFrames(10, 5)
	row := func(n int, line string) string { return ansi.CursorPosition(1, n) + line + ansi.EraseLineRight }
	park := func(n int) string { return ansi.CursorPosition(1, n) }
	cases := []struct {
		name, view, want string
	}{
		{"the first frame, whole", "one\ntwo\nthree", row(1, "one") + row(2, "two") + row(3, "three") + park(3)},
		{"one line changed", "one\nTWO\nthree", row(2, "TWO") + park(3)},
		{"the same frame again", "one\nTWO\nthree", ""},
		{"a shorter frame clears below it", "one\nTWO", ansi.CursorPosition(1, 3) + ansi.EraseScreenBelow + park(2)},
		{"a line as wide as the screen is not cleared after", "one\n0123456789", row(2, "0123456789")[:len(row(2, "0123456789"))-len(ansi.EraseLineRight)] + park(2)},
		{"a wider line is cut to the width", "one\n0123456789abc", ansi.CursorPosition(1, 2) + "0123456789" + park(2)},
		{"a taller frame keeps its last rows", "1\n2\n3\n4\n5\n6", row(1, "2") + row(2, "3") + row(3, "4") + row(4, "5") + row(5, "6") + park(5)},
	}
	for _, c := range cases {
		if got := drawn(f, out, c.view); got != c.want {
			t.Errorf("%s: wrote %q, want %q", c.name, got, c.want)
		}
	}
	f.resize(12, 5)
	if got, want := drawn(f, out, "1\n2"), row(1, "1")+row(2, "2")+park(2); got != want {
		t.Errorf("after a new size: wrote %q, want the frame whole, %q", got, want)
	}
}

// Frames are drawn only on the alt screen: not before the program has put
// it up, not while an editor has the terminal, and whole when it is back
// (bubbletea clears it).
func TestFramesDrawOnlyWhileTheAltScreenIsUp(t *testing.T) {
	var out bytes.Buffer
	f := newFrames(&out)
	f.resize(10, 3)
	f.offer("early")
	f.draw()
	if out.Len() != 0 {
		t.Errorf("drew %q before the alt screen was up", out.String())
	}
	_, _ = f.Write([]byte(ansi.SetModeAltScreenSaveCursor))
	if out.String() != ansi.SetModeAltScreenSaveCursor {
		t.Errorf("bubbletea's write became %q", out.String())
	}
	if got := drawn(f, &out, "a\nb"); !strings.Contains(got, "a") || !strings.Contains(got, "b") {
		t.Errorf("on the alt screen: wrote %q", got)
	}
	_, _ = f.Write([]byte(ansi.ResetModeAltScreenSaveCursor))
	if got := drawn(f, &out, "a\nc"); got != "" {
		t.Errorf("drew %q with the alt screen down (an editor has the terminal)", got)
	}
	_, _ = f.Write([]byte(ansi.SetModeAltScreenSaveCursor))
	f.draw() // too early: bubbletea clears the screen next
	_, _ = f.Write([]byte(ansi.EraseEntireScreen))
	out.Reset()
	f.draw()
	if got, want := out.String(), ansi.CursorHomePosition+"a"+ansi.EraseLineRight+ansi.CursorPosition(1, 2)+"c"; !strings.HasPrefix(got, want) {
		t.Errorf("back on the alt screen, once it is cleared: wrote %q, want the latest frame whole (%q...)", got, want)
	}
}

// syncBuffer is an output a program writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// framedProgram runs inner as Run does, drawing on out, with the keys
// written to keys as its input. stop quits it and waits for it and for
// its frames' goroutine.
func framedProgram(inner tea.Model, out io.Writer, opts ...tea.ProgramOption) (p *tea.Program, keys *io.PipeWriter, stop func() error) {
	fr := newFrames(out)
	in, keys := io.Pipe()
	p = tea.NewProgram(framedModel{inner: inner, frames: fr}, append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithOutput(fr), tea.WithInput(in)}, opts...)...)
	drawn := make(chan struct{})
	go func() {
		defer close(drawn)
		fr.run()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	return p, keys, func() error {
		p.Quit()
		err := <-done
		fr.stop()
		<-drawn
		_ = keys.Close()
		return err
	}
}

// typist is a model that shows what was typed; ctrl+e runs a process
// as an editor would be.
type typist struct {
	typed string
	ran   bool
}

func (m typist) Init() tea.Cmd { return nil }

type ranMsg struct{ err error }

func (m typist) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch msg.String() {
		case "ctrl+e":
			c := exec.Command(os.Args[0], "-test.run=^$")
			c.Stdin = strings.NewReader("") // not the test's keys
			c.Stderr = io.Discard           // "no tests to run"
			return m, tea.ExecProcess(c, func(err error) tea.Msg { return ranMsg{err} })
		}
		m.typed += msg.String()
	case ranMsg:
		m.ran = msg.err == nil
	}
	return m, nil
}

func (m typist) View() string {
	v := "typed: " + m.typed
	if m.ran {
		v += "\nthe editor ran"
	}
	return v
}

// TestAProgramDrawsItsFramesAndNotBubbleteasStandIn: a real program whose
// output is frames, as Run sets it up. Each key's frame reaches the
// terminal; bubbletea's own frame (the stand-in) never does; the alt
// screen comes up, goes down for a process run on the terminal and comes
// back with the frame drawn again, and goes down at the end.
func TestAProgramDrawsItsFramesAndNotBubbleteasStandIn(t *testing.T) {
	var out syncBuffer
	p, keys, stop := framedProgram(typist{}, &out, tea.WithFPS(120))
	go p.Send(tea.WindowSizeMsg{Width: 40, Height: 5})
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), what); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q:\n%q", what, out.String())
			}
		}
	}
	for _, k := range "abc" {
		_, _ = keys.Write([]byte(string(k)))
		waitFor("typed: " + strings.SplitAfter("abc", string(k))[0])
	}
	_, _ = keys.Write([]byte{0x05}) // ctrl+e
	waitFor("the editor ran")
	// Not a key: after the process, the reader bubbletea stopped is still
	// blocked on the pipe (a pipe cannot be cancelled) and takes one.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Contains(s, ansi.CursorHomePosition+"\r") {
		t.Errorf("bubbletea's renderer drew its frame (it starts %q):\n%q", ansi.CursorHomePosition+"\r", s)
	}
	if n := strings.Count(s, ansi.SetModeAltScreenSaveCursor); n != 2 {
		t.Errorf("the alt screen came up %d times, want 2 (at the start, after the process)", n)
	}
	if strings.LastIndex(s, ansi.ResetModeAltScreenSaveCursor) < strings.LastIndex(s, ansi.SetModeAltScreenSaveCursor) {
		t.Errorf("the program did not end by taking the alt screen down:\n%q", s)
	}
	back := s[strings.LastIndex(s, ansi.SetModeAltScreenSaveCursor):]
	if !strings.Contains(back, ansi.CursorHomePosition+"typed: abc") {
		t.Errorf("after the process, the frame was not drawn whole:\n%q", back)
	}
	if strings.Contains(s[strings.LastIndex(s, ansi.ResetModeAltScreenSaveCursor):], "typed") {
		t.Errorf("a frame was drawn after the alt screen went down:\n%q", s)
	}
}

// echoSink is a program's output that says when a frame showing want has
// been written.
type echoSink struct {
	mu   sync.Mutex
	want string
	seen chan struct{}
}

func (s *echoSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.want != "" && bytes.Contains(p, []byte(s.want)) {
		s.want = ""
		s.seen <- struct{}{}
	}
	return len(p), nil
}

func (s *echoSink) await(want string) {
	s.mu.Lock()
	s.want = want
	s.mu.Unlock()
}

// counter shows how many keys it has had.
type counter struct{ n int }

func (m counter) Init() tea.Cmd { return nil }

func (m counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		m.n++
	}
	return m, nil
}

func (m counter) View() string { return "keys: " + strconv.Itoa(m.n) + "\nthe rest of the screen" }

// BenchmarkKeyEcho: a key written to a real program's input, to its
// echo written to the output; one key at a time, each sent as the last
// echoed. ticker is bubbletea's renderer at its most, 120 frames a
// second, as howl drew before frames: a key sent right after a frame
// waits a whole tick, 8.3 ms (a person's key lands anywhere in one).
// frames is Run's set-up.
func BenchmarkKeyEcho(b *testing.B) {
	for _, mode := range []string{"ticker", "frames"} {
		b.Run(mode, func(b *testing.B) {
			sink := &echoSink{seen: make(chan struct{}, 1)}
			in, keys := io.Pipe()
			var p *tea.Program
			var fr *frames
			switch mode {
			case "ticker":
				p = tea.NewProgram(counter{}, tea.WithAltScreen(), tea.WithOutput(sink), tea.WithInput(in), tea.WithFPS(120))
			case "frames":
				fr = newFrames(sink)
				p = tea.NewProgram(framedModel{inner: counter{}, frames: fr}, tea.WithAltScreen(), tea.WithOutput(fr), tea.WithInput(in))
				go fr.run()
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = p.Run()
			}()
			p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
			b.ResetTimer()
			for i := range b.N {
				sink.await("keys: " + strconv.Itoa(i+1))
				_, _ = keys.Write([]byte("x"))
				<-sink.seen
			}
			b.StopTimer()
			p.Quit()
			<-done
			if fr != nil {
				fr.stop()
			}
			_ = keys.Close()
		})
	}
}

// stallingTerminal is a terminal that stops taking writes while stalled
// (a paused tty, a flooded ssh link), until released.
type stallingTerminal struct {
	syncBuffer
	mu      sync.Mutex
	stalled bool
	blocked chan struct{} // a write is held (cap 1)
	release chan struct{} // closed: held writes go on
}

func (s *stallingTerminal) Write(p []byte) (int, error) {
	s.mu.Lock()
	stalled := s.stalled
	s.mu.Unlock()
	if stalled {
		select {
		case s.blocked <- struct{}{}:
		default:
		}
		<-s.release
	}
	return s.syncBuffer.Write(p)
}

// reporting is counter that tells the test each key it has had.
type reporting struct {
	counter
	keys chan<- int
}

func (m reporting) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c, _ := m.counter.Update(msg)
	m.counter = c.(counter)
	if _, ok := msg.(tea.KeyMsg); ok {
		m.keys <- m.n
	}
	return m, nil
}

// TestATerminalThatStopsTakingWritesHoldsBackOnlyTheDrawing: while the
// terminal holds a frame's write, keys and a new size still reach the
// update loop; once it takes writes again, the latest frame is drawn
// (whole, for the new size) and the frames in between are not.
func TestATerminalThatStopsTakingWritesHoldsBackOnlyTheDrawing(t *testing.T) {
	term := &stallingTerminal{blocked: make(chan struct{}, 1), release: make(chan struct{})}
	updates := make(chan int, 100)
	p, keys, stop := framedProgram(reporting{keys: updates}, term)
	p.Send(tea.WindowSizeMsg{Width: 40, Height: 5})
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(term.String(), "keys: 0"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first frame never came:\n%q", term.String())
		}
	}
	term.mu.Lock()
	term.stalled = true
	term.mu.Unlock()
	_, _ = keys.Write([]byte("x"))
	select {
	case <-term.blocked:
	case <-time.After(20 * time.Second):
		t.Fatal("the first key's frame was never written")
	}
	const n = 50
	go func() { // the sends block if the loop does
		for i := 2; i <= n; i++ {
			if i == n/2 {
				p.Send(tea.WindowSizeMsg{Width: 30, Height: 5})
			}
			_, _ = keys.Write([]byte("x"))
		}
	}()
	got := 0
	for got < n {
		select {
		case got = <-updates:
		case <-time.After(20 * time.Second):
			t.Fatalf("with the terminal holding a write, the update loop stopped after key %d of %d", got, n)
		}
	}
	before := len(term.String())
	close(term.release)
	want := "keys: " + strconv.Itoa(n)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(term.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("once the terminal took writes again, %q was never drawn:\n%q", want, term.String())
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	after := term.String()[before:]
	if c := strings.Count(after, "keys: "); c > 3 {
		t.Errorf("after the stall, %d frames were drawn, want the held one and the latest (the rest superseded):\n%q", c, after)
	}
	if !strings.Contains(after, "the rest of the screen") {
		t.Errorf("after a new size during the stall, the frame was not drawn whole:\n%q", after)
	}
}
