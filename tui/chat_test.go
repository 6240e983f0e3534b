package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

// scriptedModel starts a scripted OpenAI-compatible server and resolves a
// model pointing at it through the production code (llm.Resolve, NewModel).
func scriptedModel(t testing.TB, script llmtest.Script) (*llmtest.Server, llm.Model) {
	t.Helper()
	srv := llmtest.NewOpenAI(script)
	t.Cleanup(srv.Close)
	c, err := llm.Resolve(context.Background(), llm.ResolveOptions{
		Flags:  llm.Settings{Model: "openai-compat/scripted", BaseURL: srv.URL},
		Getenv: func(string) (string, bool) { return "", false }, OllamaURL: "off"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := llm.NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// newChatHarness is newHarness with chat options, opened on the chat.
func newChatHarness(t testing.TB, rt common.Runtime, servers []string, w, h int, o Options) *harness {
	t.Helper()
	g := &guardRuntime{inner: rt, t: t}
	clip := &fakeClipboard{}
	o.ModelRuntime = rt // the model's calls run beside Update, unguarded
	if o.Tick == nil {
		o.Tick = noTick
	}
	o.Runtime, o.Servers, o.Theme, o.Clipboard, o.DisplayPath = g, servers, testTheme(), clip, displayTestPath
	o.StartInChat = true
	m := New(o)
	hs := &harness{t: t, m: m, rt: g, clip: clip}
	t.Cleanup(m.Close)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

// line types s into the input and presses enter.
func (h *harness) line(s string) {
	h.t.Helper()
	h.m.input.SetValue(s)
	h.keys("enter")
}

// lastUser is the last user message the scripted model received.
func lastUser(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model received no request")
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Text
		}
	}
	t.Fatal("no user message in the last request")
	return ""
}

// conversationScript searches the demo, then answers in Markdown with a
// code block.
func conversationScript() llmtest.Script {
	return llmtest.Sequence(
		llmtest.Turn{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp_invoke_demo", Arguments: `{"tool":"add","arguments":{"a":2,"b":3}}`}}, InputTokens: 1200, OutputTokens: 30},
		llmtest.Turn{Text: "## The sum\n\nThe demo's **add** tool says `2 + 3` is **5**:\n\n```go\nfunc add(a, b int) int { return a + b }\n```\n\n- fast\n- exact\n", InputTokens: 1500, OutputTokens: 60},
	)
}

func TestChatStreamsAnAnswerWithAToolCallBlock(t *testing.T) {
	srv, model := scriptedModel(t, conversationScript())
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("what is 2 + 3?")
	v := hs.view()
	for _, want := range []string{"› you", "what is 2 + 3?", "⚙ mcp_invoke_demo", "The sum", "func add(a, b int)", "openai-compat/scripted · 2.7k in 90 out"} {
		if !strings.Contains(v, want) {
			t.Errorf("the chat lacks %q", want)
		}
	}
	if hs.m.chat.Running() {
		t.Error("the turn is still running after Done")
	}
	if got := lastUser(t, srv); got != "what is 2 + 3?" {
		t.Errorf("the model received %q", got)
	}
	// The tool block expands and opens its result in the viewer.
	hs.keys("shift+tab", "space")
	if v := hs.view(); !strings.Contains(v, "arguments") || !strings.Contains(v, `"sum"`) && !strings.Contains(v, "5") {
		t.Errorf("the expanded block lacks its arguments or result:\n%s", v)
	}
	hs.keys("enter")
	if !hs.m.viewer.Open() || hs.m.chatMode {
		t.Fatal("enter on a tool block did not open its result in the viewer")
	}
	hs.keys("esc")
	if !hs.m.chatMode {
		t.Error("closing the viewer did not return to the chat")
	}
}

func TestEscCancelsARunningTurn(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "I am thinking about it at length", Stall: true}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.m.input.SetValue("tell me everything")
	start := hs.update(keyMsg("enter"))
	if !hs.m.chat.Running() {
		t.Fatal("enter did not start a turn")
	}
	// The stream stalls after its first piece: apply it, keep the next read.
	first := execCmd(t, start).(common.Result)
	next := hs.update(first)
	if !hs.m.chat.Running() || !strings.Contains(hs.view(), "I am") {
		t.Fatalf("the first piece did not stream:\n%s", hs.view())
	}
	hs.run(hs.update(keyMsg("esc")))
	hs.run(next) // the read ends once the cancelled run closes its stream
	if hs.m.chat.Running() {
		t.Fatal("esc did not end the turn")
	}
	if v := hs.view(); !strings.Contains(v, "cancelled") {
		t.Errorf("no cancelled notice:\n%s", v)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests, want 1", len(srv.Requests()))
	}
	// The conversation holds no half turn: the next message is sent cleanly.
	if n := len(hs.m.chat.Messages()); n != 1 {
		t.Errorf("conversation has %d messages after cancelling, want the 1 user message", n)
	}
}

func TestPromptResultsStartingWithBangOrDotAreChattedNeverRun(t *testing.T) {
	for _, tc := range []struct{ prompt, text string }{{demo.BangPrompt, demo.BangText}, {demo.DotPrompt, demo.DotText}} {
		t.Run(tc.prompt, func(t *testing.T) {
			srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
			hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
			defer hs.dumpOnFailure()
			hs.line(".prompt demo " + tc.prompt)
			got := lastUser(t, srv)
			if !strings.Contains(got, tc.text) || !strings.HasPrefix(got, "[user]") {
				t.Errorf("the model received %q, want the flattened prompt with %q", got, tc.text)
			}
			if hs.quit {
				t.Error("the .quit in the prompt's text was run")
			}
		})
	}
	// A result that itself starts with "." goes to the model verbatim.
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	_, id := hs.m.chatReqs.Start("getting the prompt x")
	hs.send(common.Result{Owner: common.OwnerRoot, ID: id, Msg: promptResultMsg{item: mcp.CatalogItem{Server: "demo", Name: "x"}, res: &mcp.PromptResult{Text: ".quit\n!rm -rf /"}}})
	if got := lastUser(t, srv); got != ".quit\n!rm -rf /" || hs.quit {
		t.Errorf("received %q, quit %v: a prompt result must be chatted verbatim", got, hs.quit)
	}
}

func TestPromptArgumentsAreNamedAndQuoted(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line(`.prompt demo code_review language=go focus="error \"handling\" paths"`)
	got := lastUser(t, srv)
	if !strings.Contains(got, `focusing on error "handling" paths`) || !strings.Contains(got, "experienced go developer") {
		t.Errorf("the quoted arguments did not arrive whole: %q", got)
	}
	// Positional arguments and unterminated quotes are errors that teach.
	hs.line(".prompt demo code_review go")
	hs.line(`.prompt demo code_review language="go`)
	v := hs.view()
	if !strings.Contains(v, "is not key=value") || !strings.Contains(v, "unterminated") {
		t.Errorf("missing teaching errors:\n%s", v)
	}
}

func TestPromptWithMissingArgumentsOpensTheFormThenPreviews(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Model: model, Tick: pauseNow})
	defer hs.dumpOnFailure()
	hs.line(".prompt demo code_review focus=tests")
	d, ok := hs.m.dialogs.Top().(*dialog.FormDialog)
	if !ok || d.Form().Submit != "Preview" {
		t.Fatalf("no prompt form: %T", hs.m.dialogs.Top())
	}
	// Completion as the user types: the debounce tick fires the request.
	hs.typeText("g")
	if fl := d.Form().Fields()[0]; len(fl.Suggestions()) == 0 || fl.Suggestions()[0] != "go" {
		t.Fatalf("suggestions for language=g: %v", fl.Suggestions())
	}
	hs.keys("right") // accepts "go"
	hs.keys("ctrl+s")
	if _, ok := hs.m.dialogs.Top().(*dialog.PromptPreviewDialog); !ok {
		t.Fatalf("no preview after submitting: %T", hs.m.dialogs.Top())
	}
	if v := hs.view(); !strings.Contains(v, "[user]") || !strings.Contains(v, "focusing on tests") {
		t.Errorf("the preview lacks the messages:\n%s", v)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the prompt was sent before the preview was accepted")
	}
	hs.keys("enter")
	if got := lastUser(t, srv); !strings.Contains(got, "experienced go developer") {
		t.Errorf("sent %q", got)
	}
}

func TestPromptFormEscCancelsWithoutSideEffects(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "ok"}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	hs.line(".prompt demo code_review")
	hs.typeText("go")
	hs.keys("esc")
	if hs.m.dialogs.Len() != 0 || len(srv.Requests()) != 0 || len(hs.m.chat.Messages()) != 0 {
		t.Fatalf("esc left dialogs %d, requests %d, messages %d", hs.m.dialogs.Len(), len(srv.Requests()), len(hs.m.chat.Messages()))
	}
}

func TestUnknownCommandSuggestsTheClosest(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{})
	hs.line(".promt demo x")
	hs.line(".lst prompts")
	v := hs.view()
	if !strings.Contains(v, "did you mean .prompt?") || !strings.Contains(v, "did you mean .list?") {
		t.Errorf("no suggestion:\n%s", v)
	}
}

func TestListPromptsPrintsATableAcrossServers(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	hs.line(".list prompts")
	v := hs.view()
	for _, want := range []string{"server", "arguments", "code_review", "language* focus", demo.BangPrompt} {
		if !strings.Contains(v, want) {
			t.Errorf("the table lacks %q:\n%s", want, v)
		}
	}
}

func TestNoModelExplainsHowToConfigureOneAndCommandsStillWork(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{ModelError: &llm.Error{Kind: llm.KindNoModel, Cause: "no model", Fix: "set $OPENAI_API_KEY or pass --model"}})
	v := hs.view()
	if !strings.Contains(v, "No model is configured") || !strings.Contains(v, "Set $OPENAI_API_KEY or pass --model.") || !strings.Contains(v, "no model") {
		t.Errorf("no explanation:\n%s", v)
	}
	hs.line("hello")
	hs.line(".help")
	if v := hs.view(); !strings.Contains(v, ".quit") || !strings.Contains(v, "quit howl") { // the table's last row
		t.Errorf(".help did not work without a model:\n%s", v)
	}
}

// completionLabels is the open popup's labels.
func completionLabels(h *harness) []string {
	var out []string
	for _, c := range h.m.comp.Items() {
		out = append(out, c.Label())
	}
	return out
}

func TestPromptCompletionStagesAgainstTheDemo(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	before := hs.rt.uses.Load()
	hs.m.input.SetValue(".prompt ")
	hs.keys("tab")
	if got := completionLabels(hs); strings.Join(got, ",") != "demo" {
		t.Errorf("stage 1: %v, want [demo]", got)
	}
	if hs.rt.uses.Load() != before {
		t.Error("stage 1 made a request")
	}
	hs.keys("enter")
	if hs.m.input.Value() != ".prompt demo " {
		t.Fatalf("accepting: %q", hs.m.input.Value())
	}
	hs.keys("tab")
	got := completionLabels(hs)
	if !contains(got, demo.CodeReviewPrompt) || !contains(got, demo.BangPrompt) {
		t.Errorf("stage 2: %v", got)
	}
	for _, c := range hs.m.comp.Items() {
		if c.Label() == demo.CodeReviewPrompt && !strings.Contains(c.Desc(), "Asks for a review") {
			t.Errorf("code_review's description: %q", c.Desc())
		}
	}
	hs.m.comp.Close()
	hs.m.input.SetValue(".prompt demo code_review language=go ")
	hs.keys("tab")
	if got := completionLabels(hs); strings.Join(got, ",") != "focus=" {
		t.Errorf("stage 3 with language typed: %v, want [focus=]", got)
	}
	hs.m.comp.Close()
	hs.m.input.SetValue(".prompt demo code_review ")
	hs.keys("tab")
	if got := completionLabels(hs); strings.Join(got, ",") != "language=,focus=" || !hs.m.comp.Items()[0].Required() {
		t.Errorf("stage 3: %v (language required first)", got)
	}
	// Accepting an argument's name goes on to its values, no second tab.
	hs.keys("enter")
	if got := completionLabels(hs); hs.m.input.Value() != ".prompt demo code_review language=" || !contains(got, "go") || !contains(got, "rust") {
		t.Errorf("after accepting language=: line %q, values %v", hs.m.input.Value(), got)
	}
	// Values come from the server's completion/complete.
	hs.m.comp.Close()
	hs.m.input.SetValue(".prompt demo code_review language=ru")
	hs.keys("tab")
	if got := completionLabels(hs); !contains(got, "rust") && !contains(got, "ruby") {
		t.Errorf("value completion: %v", got)
	}
	// An unknown server gives nothing, silently, and asks nobody.
	hs.m.comp.Close()
	before = hs.rt.uses.Load()
	hs.m.input.SetValue(".prompt nosuch ")
	hs.keys("tab")
	if hs.m.comp.IsOpen() || hs.rt.uses.Load() != before {
		t.Errorf("unknown server: open %v, requests %d", hs.m.comp.IsOpen(), hs.rt.uses.Load()-before)
	}
}

// hangingRuntime never answers a live catalog listing.
type hangingRuntime struct{ common.Runtime }

func (h hangingRuntime) Catalog(ctx context.Context, server string, refresh bool) (*mcp.Catalog, error) {
	if refresh {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.Runtime.Catalog(ctx, server, refresh)
}

func TestCompletionOfAServerThatNeverAnswersIsEmptyAfterTheTimeout(t *testing.T) {
	hs := newChatHarness(t, hangingRuntime{demoRuntime(t)}, []string{"demo"}, 80, 24, Options{CompletionTimeout: 50 * time.Millisecond})
	hs.m.input.SetValue(".prompt demo ")
	start := time.Now()
	hs.keys("tab")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("completion took %v, want about the 50ms timeout", d)
	}
	v := hs.view()
	if hs.m.comp.IsOpen() || strings.Contains(v, "deadline") || strings.Contains(v, "✗") {
		t.Errorf("a timeout must give an empty list silently:\n%s", v)
	}
	if hs.m.input.Value() != ".prompt demo " {
		t.Errorf("the line changed: %q", hs.m.input.Value())
	}
}

func TestOtherCommandsComplete(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	for _, tc := range []struct {
		line string
		want string
	}{
		{".pr", ".prompt"},
		{".list ", "templates"},
		{".mcp ", "reconnect"},
		{".mcp reconnect ", "demo"},
		{".read demo ", demo.WelcomeURI},
		{".call demo ", "add"},
		{".call demo add a=1 ", "b="},
		{".read demo " + demo.UserTemplate + " ", "id="},
		{".read demo " + demo.UserTemplate + " id=", demo.UserIDs()[0]},
		{".read demo " + demo.LogTemplate + " date=2025-06-1", "2025-06-14"},
	} {
		hs.m.comp.Close()
		hs.m.input.SetValue(tc.line)
		hs.keys("tab")
		if got := completionLabels(hs); !contains(got, tc.want) {
			t.Errorf("%q completes to %v, want %q among them", tc.line, got, tc.want)
		}
	}
}

func TestInputHistoryAndMultiLineEditing(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{})
	hs.line(".help")
	hs.line(".list servers")
	hs.keys("up")
	if hs.m.input.Value() != ".list servers" {
		t.Errorf("up: %q", hs.m.input.Value())
	}
	hs.keys("up")
	if hs.m.input.Value() != ".help" {
		t.Errorf("up up: %q", hs.m.input.Value())
	}
	hs.keys("down", "down")
	if hs.m.input.Value() != "" {
		t.Errorf("down to the draft: %q", hs.m.input.Value())
	}
	hs.typeText("one")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlJ})
	hs.typeText("two")
	if hs.m.input.Value() != "one\ntwo" || hs.m.layout.Input.H != 2 {
		t.Errorf("ctrl+j: %q, input height %d", hs.m.input.Value(), hs.m.layout.Input.H)
	}
}

func TestScrollingUpStopsFollowing(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{})
	for range 10 {
		hs.line(".help")
	}
	if !hs.m.chat.Following() {
		t.Fatal("not following at the bottom")
	}
	hs.send(tea.MouseMsg{X: 5, Y: 5, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if hs.m.chat.Following() {
		t.Error("the wheel up did not stop following")
	}
	top := hs.m.chat.Top()
	hs.line(".help")
	if hs.m.chat.Top() != top {
		t.Error("new lines moved a scrolled-up view")
	}
	hs.keys("pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown")
	if !hs.m.chat.Following() {
		t.Error("reaching the bottom did not resume following")
	}
}

func TestCallAndReadOpenTheViewerAndReturnToTheChat(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.line(".call demo add a=2 b=40")
	if !hs.m.viewer.Open() || !strings.Contains(hs.view(), "42") {
		t.Fatalf(".call did not show the result:\n%s", hs.view())
	}
	hs.keys("esc")
	if !hs.m.chatMode {
		t.Fatal("closing the viewer did not return to the chat")
	}
	hs.line(".read demo " + demo.WelcomeURI)
	if !hs.m.viewer.Open() || !strings.Contains(hs.view(), demo.WelcomeURI) {
		t.Fatalf(".read did not open the resource:\n%s", hs.view())
	}
}

func TestMCPDisableHidesAServerFromTheModel(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{})
	hs.line(".mcp disable demo")
	tools := chat.VisibleTools(hs.m.com.RT, hs.m.com.Hidden)
	if d := tools.Declarations(); len(d) != 0 {
		t.Errorf("a disabled server still declares %d functions", len(d))
	}
	if _, err := tools.CallMeta(context.Background(), mcp.PrefixSearch+"demo", []byte(`{"query":""}`)); err == nil {
		t.Error("a disabled server's function was called")
	}
	hs.line(".prompt demo greeting")
	if v := hs.view(); !strings.Contains(v, "is switched off") {
		t.Errorf(".prompt on a disabled server:\n%s", v)
	}
	hs.line(".mcp enable demo")
	if d := tools.Declarations(); len(d) == 0 {
		t.Error("enabling did not bring the functions back")
	}
}

func TestModelCommandSwitchesTheModel(t *testing.T) {
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "from the new model"}))
	var asked string
	sw := func(_ context.Context, spec string) (llm.Model, error) {
		asked = spec
		if spec == "bad" {
			return nil, &llm.Error{Kind: llm.KindConfig, Cause: `model "bad" has no provider`, Fix: "write it as provider/name"}
		}
		return model, nil
	}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{SwitchModel: sw})
	hs.line(".model bad")
	if v := hs.view(); !strings.Contains(v, "provider/name") {
		t.Errorf("no teaching error:\n%s", v)
	}
	hs.line(".model openai-compat/scripted")
	hs.line("hello")
	if asked != "openai-compat/scripted" || len(srv.Requests()) != 1 || !strings.Contains(hs.view(), "from the new model") {
		t.Errorf("asked %q, %d requests:\n%s", asked, len(srv.Requests()), hs.view())
	}
}

func TestChatFitsTheMinimumSize(t *testing.T) {
	_, model := scriptedModel(t, conversationScript())
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, MinWidth, MinHeight, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("what is 2 + 3?")
	hs.m.input.SetValue(".prompt demo ")
	hs.keys("tab")
	check := func(what string) {
		lines := strings.Split(hs.view(), "\n")
		if len(lines) != MinHeight {
			t.Errorf("%s: %d lines, want %d", what, len(lines), MinHeight)
		}
		for i, l := range lines {
			if w := common.WidthOf(l); w != MinWidth {
				t.Errorf("%s: line %d is %d cells wide: %q", what, i, w, l)
			}
		}
	}
	check("popup")
	hs.keys("esc")
	hs.line(".prompt demo code_review")
	check("form")
}

func TestPromptPreviewShowsEveryMessageWithItsRole(t *testing.T) {
	com := &common.Common{Theme: testTheme(), Styles: testTheme().Styles, Keys: common.DefaultKeyMap()}
	res := &mcp.PromptResult{Note: "3 messages", Text: "[user]\nhello\n\n[assistant]\nhi, how can I help?\n\n[user]\nresource demo://docs/readme (text/markdown):\n# Guide"}
	d := dialog.NewPromptPreview(com, mcp.CatalogItem{Name: "conversation"}, res)
	v := strings.Join(d.Render(100, 30), "\n")
	for _, want := range []string{"[assistant]", "hi, how can I help?", "demo://docs/readme", "# Guide", "enter sends it as your message"} {
		if !strings.Contains(v, want) {
			t.Errorf("the preview lacks %q:\n%s", want, v)
		}
	}
	if a, ok := d.HandleKey(keyMsg("enter")).(dialog.SendChat); !ok || a.Text != res.Text {
		t.Errorf("enter: %#v", a)
	}
	if _, ok := d.HandleKey(keyMsg("esc")).(dialog.Close); !ok {
		t.Error("esc does not close the preview")
	}
}

// A word typed faster than one read arrives as one message; when its text
// is a key's name ("delete", "up", "end", "home") it must still be text.
func TestWordsTypedFastThatNameKeysAreText(t *testing.T) {
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 100, 30, Options{})
	for _, w := range []string{"delete", " up", " end", " home", " tab"} {
		hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(w)})
	}
	if got := hs.m.input.Value(); got != "delete up end home tab" {
		t.Errorf("input = %q, want the typed words", got)
	}
}

func TestTemplateFormCompletesVariablesFromTheServer(t *testing.T) {
	hs, d := openLogTemplateForm(t)
	defer hs.dumpOnFailure()
	hs.typeText("2025-06-1")
	if fl := d.Form().Fields()[0]; len(fl.Suggestions()) == 0 || fl.Suggestions()[0] != "2025-06-10" {
		t.Fatalf("suggestions for date=2025-06-1: %v", fl.Suggestions())
	}
	if v := hs.view(); !strings.Contains(v, "2025-06-14") {
		t.Errorf("the suggestions are not drawn:\n%s", v)
	}
	hs.keys("right") // accepts the first
	if got := d.Form().Strings()["date"]; got != "2025-06-10" {
		t.Errorf("accepted %q", got)
	}
}

// `.call` sent before the catalog on screen has loaded still types its
// arguments by the tool's schema (the load command asks for it).
func TestCallBeforeTheCatalogLoadedTypesItsArguments(t *testing.T) {
	rt := demoRuntime(t)
	g := &guardRuntime{inner: rt, t: t}
	m := New(Options{Runtime: g, Servers: []string{"demo"}, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath, StartInChat: true})
	t.Cleanup(m.Close)
	h := &harness{t: t, m: m, rt: g, clip: &fakeClipboard{}}
	defer h.dumpOnFailure()
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	st, _ := rt.ServerStatus("demo")
	h.update(EventsMsg{Events: []mcp.Event{{Kind: mcp.EventState, Server: "demo", Status: st}}}) // the listing it starts is not run
	if sv := m.catalog.Servers()[0]; sv.Loaded() {
		t.Fatal("precondition: the catalog must not be loaded yet")
	}
	h.line(".call demo add a=2 b=3")
	if m.viewer.Title() == "" || m.viewer.Failed() || !strings.Contains(m.viewer.Plain(), "5") {
		t.Fatalf("the call did not succeed with typed arguments:\n%s", m.viewer.Plain())
	}
}

// `.call` types key=value arguments as `howl call` does (one function,
// mcp.TypeKeyValues): flag=1 for a boolean property is true, not the
// number 1, which a server's schema check would reject.
func TestDotCallSendsABooleanForABooleanPropertyAsHowlCallDoes(t *testing.T) {
	rt := newFakeRuntime()
	rt.addServer("demo", mcp.CatalogItem{Kind: mcp.KindTool, ID: "toggle", Name: "toggle",
		Schema: json.RawMessage(`{"type":"object","properties":{"flag":{"type":"boolean"},"n":{"type":"integer"}}}`)})
	hs := newChatHarness(t, rt, []string{"demo"}, 100, 30, Options{})
	defer hs.dumpOnFailure()
	hs.line(".call demo toggle flag=1 n=7")
	var sent string
	rt.mu.Lock()
	for _, c := range rt.calls {
		if strings.HasPrefix(c, mcp.PrefixInvoke) {
			sent = c
		}
	}
	rt.mu.Unlock()
	if !strings.Contains(sent, `"flag":true`) || !strings.Contains(sent, `"n":7`) {
		t.Fatalf(".call sent %s, want flag true and n 7, as howl call sends them", sent)
	}
}

// pauseNow fires at once the timers that end in a result for their owner
// (a form's pause in typing), and no other (spinners, status timeouts).
func pauseNow(_ time.Duration, msg tea.Msg) tea.Cmd {
	if r, ok := msg.(common.Result); ok {
		return func() tea.Msg { return r }
	}
	return nil
}
