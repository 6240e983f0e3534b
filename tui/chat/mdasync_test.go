package chat

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// longMarkdown is a 1 MiB answer with no paragraph break and Markdown on
// every line of it, so a screen tells a plain line from a rendered one.
var longMarkdown = strings.Repeat("Some **bold** prose, repeated. ", (1<<20)/31)

// endTurn is the end of the pane's turn, as its stream's last read
// brings it: the commands it starts, the Markdown's render among them.
func endTurn(m *Pane) tea.Cmd {
	return m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{
		events: []llm.Event{llm.Done{Reason: llm.StopAnswered, Steps: 1}}, closed: true}})
}

// deliver runs cmd as the program would, on a goroutine of its own, and
// hands the pane its results (a test pane starts nothing that blocks):
// the command the last of them starts.
func deliver(t *testing.T, m *Pane, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command was started")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	switch msg := (<-done).(type) {
	case tea.BatchMsg:
		var next tea.Cmd
		for _, c := range msg {
			if c != nil {
				next = tea.Batch(next, deliver(t, m, c))
			}
		}
		return next
	case common.Result:
		return m.HandleResult(msg)
	default:
		t.Fatalf("a command answered %T, not a result", msg)
		return nil
	}
}

// checkUpdateCost runs f, an Update and a View, and fails the test when
// it allocates over allocMax bytes (glamour allocates about 120 bytes a
// byte it renders) or gives glamour over mdMax bytes.
func checkUpdateCost(t *testing.T, m *Pane, what string, allocMax uint64, mdMax int, f func()) {
	t.Helper()
	before := m.tr.mdBytes
	got := commontest.AllocatedBy(f)
	t.Logf("%s allocated %d KiB", what, got>>10)
	if got > allocMax {
		t.Errorf("%s allocated %d KiB, over %d KiB: it renders the Markdown", what, got>>10, allocMax>>10)
	}
	if n := m.tr.mdBytes - before; n > mdMax {
		t.Errorf("%s gave glamour %d bytes on the update path, over %d", what, n, mdMax)
	}
}

// frameBound is what an Update and a View of a 1 MiB answer may allocate
// (its text sanitized and wrapped at most: a few MiB); glamour rendering
// it allocates about 120 MB.
const frameBound = 12 << 20

// endedLongAnswer is a chat whose 1 MiB answer streamed and ended, its
// Markdown rendered: the answer's item.
func endedLongAnswer(t *testing.T) (*Pane, *chatItem) {
	t.Helper()
	m := benchChat(&testing.B{}, 10)
	feed(m, llm.TextDelta{Text: longMarkdown})
	m.Render(0)
	it := m.cur
	if cmd := endTurn(m); cmd != nil {
		deliver(t, m, cmd)
	}
	return m, it
}

// TestALongAnswerEndsWithoutGlamourOnTheUpdatePath: when a 1 MiB answer
// ends, the Update and the View that follow give glamour no more than a
// streaming frame does and allocate what a few copies of the text do,
// not glamour's 120 MB (the old code rendered it whole there, ~0.4 s with
// no key echoed); the screen keeps the lines it streamed. The command
// they start renders the Markdown, which the item then draws: the whole
// answer's render, as before.
func TestALongAnswerEndsWithoutGlamourOnTheUpdatePath(t *testing.T) {
	m := benchChat(&testing.B{}, 10)
	feed(m, llm.TextDelta{Text: longMarkdown})
	m.Render(0)
	it := m.cur
	var cmd tea.Cmd
	var screen []string
	// At most the tail block a streaming frame renders (MaxStreamingBlockBytes).
	checkUpdateCost(t, m, "the end of a 1 MiB answer", frameBound, MaxStreamingBlockBytes, func() {
		cmd = endTurn(m)
		screen = m.Render(0)
	})
	if s := strings.Join(screen, "\n"); !strings.Contains(s, "Some **bold** prose") {
		t.Errorf("until its Markdown arrives the answer draws the lines it streamed:\n%s", s)
	}

	deliver(t, m, cmd)
	want := m.tr.md.Render(it.text, m.width)
	if got := m.tr.itemLines(it, m.width)[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the answer's lines are not its Markdown render: %d lines, want %d", len(got), len(want))
	}
	if s := strings.Join(m.Render(0), "\n"); strings.Contains(s, "**") || !strings.Contains(s, "Some bold prose") {
		t.Errorf("the rendered Markdown is not on the screen:\n%s", s)
	}
	if it.live != nil {
		t.Error("the streamed lines are kept after the Markdown arrived")
	}
}

// TestResizingALongAnswerRendersItOffTheUpdatePath: a new width draws a
// long answer's text wrapped plain at that width, without glamour on the
// update path (the old code rendered it whole on every resize); its
// Markdown at the new width follows. A render for a width the pane has
// left is dropped and the next starts at the pane's width; one for an
// answer a .clear removed is dropped too.
func TestResizingALongAnswerRendersItOffTheUpdatePath(t *testing.T) {
	m, it := endedLongAnswer(t)
	short := 0 // the short answers render at once, as before
	for _, x := range m.tr.items {
		if x.kind == itemAssistant && x != it {
			short += len(x.text)
		}
	}
	var cmd tea.Cmd
	checkUpdateCost(t, m, "a resize with a 1 MiB answer", frameBound, short, func() {
		cmd = m.SetSize(90, 36)
		m.Render(0)
	})
	lines := m.tr.itemLines(it, 90)
	if !strings.Contains(lines[1], "Some **bold** prose") {
		t.Errorf("until its Markdown arrives the answer is its text wrapped plain; line 1 is %q", lines[1])
	}
	if s := strings.Join(lines, "\n"); !strings.Contains(s, "AsyncMarkdownBytes") {
		t.Errorf("the plain answer has no line naming AsyncMarkdownBytes:\n%s", s[max(len(s)-400, 0):])
	}
	for _, l := range lines {
		if common.WidthOf(l) > 90 {
			t.Fatalf("a plain line is %d cells wide, over the pane's 90: %q", common.WidthOf(l), l)
		}
	}

	// The pane leaves 90 before its render arrives: it is dropped, and
	// the render at 70 starts then (one at a time).
	if m.SetSize(70, 36) != nil {
		t.Fatal("a second render started while one is in flight")
	}
	cmd = deliver(t, m, cmd)
	if it.md != nil && it.md.w == 90 {
		t.Fatal("the render for width 90 was applied at width 70")
	}
	deliver(t, m, cmd)
	want := m.tr.md.Render(it.text, 70)
	if got := m.tr.itemLines(it, 70)[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the resize the answer's lines are not its Markdown render at 70: %d lines, want %d", len(got), len(want))
	}

	// A .clear removes the answer while its render runs: dropped.
	cmd = m.SetSize(80, 36)
	m.running = false
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	if next := deliver(t, m, cmd); next != nil || it.md.w == 80 {
		t.Errorf("the render of a cleared answer was applied (next command: %v)", next != nil)
	}
}

// TestALongAnswerRendersBesideAStreamingOne runs a long answer's render
// on its goroutine while Update and View render a streaming answer's
// Markdown, code blocks and all, without colour and with: under -race,
// it shows the two share no renderer.
func TestALongAnswerRendersBesideAStreamingOne(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		t.Run(p.Name(), func(t *testing.T) {
			rendersBesideAStreamingOne(t, theme.New(theme.Options{Dark: true, Profile: p}))
		})
	}
}

// rendersBesideAStreamingOne is TestALongAnswerRendersBesideAStreamingOne
// in theme th (colour highlights code blocks through chroma).
func rendersBesideAStreamingOne(t *testing.T, th *theme.Theme) {
	m := benchChat(&testing.B{}, 2)
	m.tr.md, m.tr.asyncMD = common.NewMarkdown(th), common.NewMarkdown(th)
	code := "\n\n```go\nfunc main() { println(\"hi\") }\n```\n\n"
	feed(m, llm.TextDelta{Text: strings.Repeat(strings.Repeat("Some **bold** prose. ", AsyncMarkdownBytes/21/4)+code, 5)})
	cmd := endTurn(m)
	if cmd == nil {
		t.Fatal("the long answer's render did not start")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	m.running, m.turn = true, m.com.NewID()
	m.cur = m.tr.add(&chatItem{kind: itemAssistant, model: "m", streaming: true})
	for i := 0; ; i++ {
		feed(m, llm.TextDelta{Text: "More **prose**." + code})
		m.Render(0)
		select {
		case msg := <-done:
			m.HandleResult(msg.(common.Result))
			if _, ok := m.tr.items[len(m.tr.items)-2].rendered(m.width); !ok {
				t.Fatal("the long answer's render was not applied")
			}
			return
		default:
		}
		if i > 1e5 {
			t.Fatal("the render never answered")
		}
	}
}

// TestALoadedSessionRendersItsLongAnswersOffTheUpdatePath: opening a
// stored session with two 1 MiB answers draws them wrapped plain, without
// glamour (the old code rendered both there, ~1 s with no key echoed);
// their renders follow one at a time, the last answer first.
func TestALoadedSessionRendersItsLongAnswersOffTheUpdatePath(t *testing.T) {
	m := benchChat(&testing.B{}, 2)
	m.running = false
	conv := llm.NewConversation()
	for _, q := range []string{"first", "second"} {
		conv.AddUser(q)
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Model: "m", Text: q + ": " + longMarkdown})
	}
	var cmd tea.Cmd
	checkUpdateCost(t, m, "loading a session with two 1 MiB answers", 2*frameBound, 64, func() {
		m.LoadSession(store.Session{ID: "s", Title: "long"}, conv)
		cmd = m.SetSize(m.width, m.height) // the root's relayout after the Update
		m.Render(0)
	})
	var long []*chatItem
	for _, it := range m.tr.items {
		if asyncMarkdown(it) {
			long = append(long, it)
		}
	}
	if len(long) != 2 {
		t.Fatalf("%d long answers in the transcript, want 2", len(long))
	}
	cmd = deliver(t, m, cmd)
	if _, ok := long[1].rendered(m.width); !ok {
		t.Fatal("the first render is not the last answer's")
	}
	if next := deliver(t, m, cmd); next != nil {
		t.Error("a render started with every answer rendered")
	}
	if _, ok := long[0].rendered(m.width); !ok {
		t.Fatal("the first answer was not rendered")
	}
}

// TestResizingManyAnswersRendersAFewInPlace: at a new width a hundred
// 3 KiB answers (none over AsyncMarkdownBytes) give glamour no more than
// InlineMarkdownBytes on the update path, not their 300 KiB (the old
// code: 0.36 s a resize); the rest draw plain, with a line naming the
// bound, and render one at a time off it, the last first, until each is
// its Markdown render at the width.
func TestResizingManyAnswersRendersAFewInPlace(t *testing.T) {
	m := benchChat(&testing.B{}, 2)
	m.running = false
	var answers []*chatItem
	for i := range 100 {
		m.tr.add(&chatItem{kind: itemUser, text: "q"})
		answers = append(answers, m.tr.add(&chatItem{kind: itemAssistant, model: "m",
			text: fmt.Sprintf("Answer %d. ", i) + strings.Repeat("Some **bold** prose, `code`. ", 3000/29)}))
	}
	for cmd := m.SetSize(120, 36); cmd != nil; {
		cmd = deliver(t, m, cmd)
	}
	var cmd tea.Cmd
	// InlineMarkdownBytes a pass: an Update's and a View's.
	checkUpdateCost(t, m, "a resize with 100 answers of 3 KiB", frameBound, 2*InlineMarkdownBytes, func() {
		cmd = m.SetSize(100, 36)
		m.Render(0)
	})
	last := answers[len(answers)-1]
	if s := strings.Join(m.tr.itemLines(last, 100), "\n"); !strings.Contains(s, "InlineMarkdownBytes") {
		t.Errorf("the last answer, drawn plain, has no line naming InlineMarkdownBytes:\n%s", s)
	}
	cmd = deliver(t, m, cmd)
	if _, ok := last.rendered(100); !ok {
		t.Fatal("the first render off the update path is not the last answer's")
	}
	for n := 0; cmd != nil; n++ {
		if n > len(answers) {
			t.Fatal("the renders never end")
		}
		cmd = deliver(t, m, cmd)
	}
	for i, it := range answers {
		want := m.tr.md.Render(it.text, 100)
		if got := m.tr.itemLines(it, 100)[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("answer %d is not its Markdown render at 100", i)
		}
	}
}

// Once a long answer has ended, its streamed lines, drawn until its
// Markdown arrives, no longer say it renders "until the answer ends":
// they name AsyncMarkdownBytes, as a plain drawing of it does.
func TestAnEndedLongAnswerSaysItsMarkdownIsRendering(t *testing.T) {
	m := benchChat(&testing.B{}, 10)
	feed(m, llm.TextDelta{Text: longMarkdown})
	m.Render(0)
	if s := strings.Join(m.Render(0), "\n"); !strings.Contains(s, "until the answer ends") {
		t.Fatalf("while it streams the long block does not say why it is plain:\n%s", s)
	}
	endTurn(m)
	s := strings.Join(m.Render(0), "\n")
	if strings.Contains(s, "until the answer ends") || !strings.Contains(s, "AsyncMarkdownBytes") {
		t.Errorf("the ended answer's note is not the one of an answer whose Markdown renders:\n%s", s[max(len(s)-600, 0):])
	}
}
