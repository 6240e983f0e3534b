package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/llm/store/storetest"
	"github.com/howl-mcp/howl/tui/common"
)

// guardStore fails the test when the store is used while Update or View
// runs (the runtime guard's flag): only commands may touch the database.
type guardStore struct {
	inner common.SessionStore
	g     *guardRuntime
	uses  atomic.Int64
}

func (s *guardStore) check(name string) {
	s.uses.Add(1)
	if s.g.busy.Load() {
		s.g.t.Errorf("SessionStore.%s was called inside Update or View: Update must do no I/O; return a tea.Cmd instead", name)
	}
}

func (s *guardStore) Create(ctx context.Context, title, model string, servers []string, first []llm.Message) (store.Session, error) {
	s.check("Create")
	return s.inner.Create(ctx, title, model, servers, first)
}
func (s *guardStore) AppendTurn(ctx context.Context, id string, msgs []llm.Message) error {
	s.check("AppendTurn")
	return s.inner.AppendTurn(ctx, id, msgs)
}
func (s *guardStore) List(ctx context.Context, filter string, limit int) ([]store.Session, error) {
	s.check("List")
	return s.inner.List(ctx, filter, limit)
}
func (s *guardStore) Get(ctx context.Context, id string) (store.Session, error) {
	s.check("Get")
	return s.inner.Get(ctx, id)
}
func (s *guardStore) Load(ctx context.Context, id string) (*llm.Conversation, error) {
	s.check("Load")
	return s.inner.Load(ctx, id)
}
func (s *guardStore) Rename(ctx context.Context, id, title string) error {
	s.check("Rename")
	return s.inner.Rename(ctx, id, title)
}
func (s *guardStore) Delete(ctx context.Context, id string) error {
	s.check("Delete")
	return s.inner.Delete(ctx, id)
}
func (s *guardStore) Search(ctx context.Context, q string, limit int) (store.SearchResult, error) {
	s.check("Search")
	return s.inner.Search(ctx, q, limit)
}
func (s *guardStore) Export(ctx context.Context, id string, w io.Writer) error {
	s.check("Export")
	return s.inner.Export(ctx, id, w)
}

// testStore opens a store in a fresh $HOWL_DATA_DIR.
func testStore(t testing.TB) *store.Store {
	t.Helper()
	t.Setenv("HOWL_DATA_DIR", t.TempDir())
	path, err := store.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// Each session and turn is stamped a second after the one before, so
	// they list in the order they were made without sleeping between them.
	var mu sync.Mutex
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	st.Clock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(time.Second)
		return at
	}
	return st
}

// seedSession stores a conversation of user/assistant pairs.
func seedSession(t testing.TB, st *store.Store, pairs ...string) store.Session {
	t.Helper()
	ctx := context.Background()
	var sess store.Session
	for i := 0; i+1 < len(pairs); i += 2 {
		turn := []llm.Message{
			{Role: llm.RoleUser, Text: pairs[i], Time: time.Now()},
			{Role: llm.RoleAssistant, Text: pairs[i+1], Model: "openai-compat/scripted", Time: time.Now()},
		}
		var err error
		if i == 0 {
			sess, err = st.Create(ctx, pairs[0], "openai-compat/scripted", []string{"demo"}, turn)
		} else {
			err = st.AppendTurn(ctx, sess.ID, turn)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return sess
}

// newStoreHarness is a chat harness whose store is guarded like its runtime.
func newStoreHarness(t testing.TB, st common.SessionStore, w, h int, o Options) (*harness, *guardStore) {
	t.Helper()
	rt := demoRuntime(t)
	g := &guardRuntime{inner: rt, t: t}
	var gs *guardStore
	if st != nil {
		gs = &guardStore{inner: st, g: g}
		o.Store = gs
	}
	o.ModelRuntime = rt
	o.Runtime, o.Servers, o.Theme, o.Tick, o.Clipboard, o.DisplayPath = g, []string{"demo"}, testTheme(), noTick, &fakeClipboard{}, displayTestPath
	o.StartInChat = true
	if o.Location == nil {
		o.Location = time.UTC
	}
	m := New(o)
	hs := &harness{t: t, m: m, rt: g}
	t.Cleanup(m.Close)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs, gs
}

func TestATurnIsSavedAndThenListedWithItsCount(t *testing.T) {
	st := testStore(t)
	_, model := scriptedModel(t, conversationScript())
	hs, gs := newStoreHarness(t, st, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("what is 2 + 3?")
	list, err := st.List(context.Background(), "", 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, err %v", list, err)
	}
	// The person's message, the call, its result and the answer.
	if list[0].Title != "what is 2 + 3?" || list[0].Messages != 4 {
		t.Fatalf("stored %+v", list[0])
	}
	conv, err := st.Load(context.Background(), list[0].ID)
	if err != nil || len(conv.Messages) != len(hs.m.chat.Messages()) {
		t.Fatalf("stored %d messages, the chat holds %d (err %v)", len(conv.Messages), len(hs.m.chat.Messages()), err)
	}
	hs.keys("ctrl+r")
	v := hs.view()
	for _, want := range []string{"Sessions 1", "›● what is 2 + 3?", "4 messages"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	// A second turn goes to the same session.
	hs.keys("esc")
	_, model2 := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "Still 5."}))
	hs.m.chat.SetModel(model2)
	hs.line("sure?")
	if list, _ := st.List(context.Background(), "", 0); len(list) != 1 || list[0].Messages != 6 {
		t.Fatalf("after a second turn: %+v", list)
	}
	if gs.uses.Load() == 0 {
		t.Fatal("the store was never used: the guard checked nothing")
	}
}

// TestAFirstTurnThatCannotBeWrittenLeavesNoEmptySession: with the disk
// full, the chat says the turn was not saved, goes on, and the sessions
// list stays empty (it showed an empty session); the next turn that can be
// written starts the session.
func TestAFirstTurnThatCannotBeWrittenLeavesNoEmptySession(t *testing.T) {
	st := testStore(t)
	restore := storetest.FailTurnWrites(t, st.Path())
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "5."}, llmtest.Turn{Text: "Still 5."}))
	hs, _ := newStoreHarness(t, st, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("what is 2 + 3?")
	if v := hs.view(); !strings.Contains(v, "this turn was not saved") || !strings.Contains(v, "disk is full") {
		t.Errorf("the chat does not say the turn was not saved:\n%s", v)
	}
	if list, err := st.List(context.Background(), "", 0); err != nil || len(list) != 0 {
		t.Fatalf("a failed first turn left sessions %+v (%v)", list, err)
	}
	restore()
	hs.line("sure?")
	if v := hs.view(); !strings.Contains(v, "Still 5.") {
		t.Errorf("the chat did not go on after the failed write:\n%s", v)
	}
	list, err := st.List(context.Background(), "", 0)
	if err != nil || len(list) != 1 || list[0].Title != "sure?" || list[0].Messages != 2 {
		t.Fatalf("after a turn that could be written: %+v (%v)", list, err)
	}
}

func TestOpeningASessionRestoresTheTranscriptAndTheNextTurnContinuesIt(t *testing.T) {
	st := testStore(t)
	sess := seedSession(t, st, "remember the otter", "The otter is remembered.")
	srv, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "It was an otter."}))
	hs, _ := newStoreHarness(t, st, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.keys("ctrl+r", "enter")
	if hs.m.dialogs.Len() != 0 {
		t.Fatal("enter did not close the dialog")
	}
	v := hs.view()
	for _, want := range []string{"remember the otter", "The otter is remembered.", "the next turn continues it"} {
		if !strings.Contains(v, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	hs.line("what animal was it?")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var texts []string
	for _, m := range reqs[0].Messages {
		texts = append(texts, m.Text)
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "remember the otter|The otter is remembered.|what animal was it?") {
		t.Errorf("the model did not receive the stored conversation: %q", got)
	}
	got, err := st.Get(context.Background(), sess.ID)
	if err != nil || got.Messages != 4 {
		t.Fatalf("the continued session holds %d messages (err %v)", got.Messages, err)
	}
	if list, _ := st.List(context.Background(), "", 0); len(list) != 1 {
		t.Errorf("continuing made %d sessions", len(list))
	}
}

func TestResumeOpensTheChatOnAStoredConversation(t *testing.T) {
	st := testStore(t)
	sess := seedSession(t, st, "remember the otter", "The otter is remembered.")
	conv, err := st.Load(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := newStoreHarness(t, st, 80, 24, Options{Resume: &Resume{Session: sess, Conv: conv}})
	if v := hs.view(); !hs.m.chatMode || !strings.Contains(v, "The otter is remembered.") {
		t.Fatalf("the resumed conversation is not shown:\n%s", v)
	}
	if hs.m.chat.Session().SessionID() != sess.ID {
		t.Errorf("the next turn would not continue %s", sess.ID)
	}
}

func TestRenameAndDeleteFromTheDialog(t *testing.T) {
	st := testStore(t)
	seedSession(t, st, "first question", "first answer")
	second := seedSession(t, st, "second question", "second answer")
	hs, _ := newStoreHarness(t, st, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.keys("ctrl+r")
	// The newest is first: rename it.
	hs.keys("r")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	hs.typeText("renamed otter talk")
	hs.keys("enter")
	if got, _ := st.Get(context.Background(), second.ID); got.Title != "renamed otter talk" {
		t.Fatalf("title %q", got.Title)
	}
	if v := hs.view(); !strings.Contains(v, "renamed otter talk") {
		t.Errorf("the list does not show the new title:\n%s", v)
	}
	// d asks first; any key but y keeps the session.
	hs.keys("d")
	if v := hs.view(); !strings.Contains(v, `delete "renamed otter talk" and its 2 messages? y deletes`) {
		t.Fatalf("no confirmation:\n%s", v)
	}
	hs.keys("n")
	if _, err := st.Get(context.Background(), second.ID); err != nil {
		t.Fatalf("n deleted the session: %v", err)
	}
	hs.keys("d", "y")
	if _, err := st.Get(context.Background(), second.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("y did not delete the session: %v", err)
	}
	if v := hs.view(); !strings.Contains(v, "Sessions 1") || strings.Contains(v, "renamed otter talk") {
		t.Errorf("the list still shows the deleted session:\n%s", v)
	}
}

func TestFilterAndSearchFromTheDialog(t *testing.T) {
	st := testStore(t)
	otter := seedSession(t, st, "animals", "An otter floats on its back.")
	seedSession(t, st, "weather today", "Sunny.")
	hs, _ := newStoreHarness(t, st, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.keys("ctrl+r", "/")
	hs.typeText("weath")
	if v := hs.view(); !strings.Contains(v, "Sessions 1/2") || strings.Contains(v, "animals") {
		t.Fatalf("the filter did not apply:\n%s", v)
	}
	hs.keys("esc", "s")
	hs.typeText("otter")
	hs.keys("enter")
	v := hs.view()
	for _, want := range []string{"showing 1 of 1 matching messages", "animals · assistant", "[otter]"} {
		if !strings.Contains(v, want) {
			t.Errorf("the hits lack %q:\n%s", want, v)
		}
	}
	hs.keys("enter")
	if hs.m.chat.Session().SessionID() != otter.ID || !strings.Contains(hs.view(), "An otter floats on its back.") {
		t.Fatal("enter on a hit did not open its session")
	}
}

func TestExportWritesTheSessionAsMarkdown(t *testing.T) {
	st := testStore(t)
	_, model := scriptedModel(t, conversationScript())
	hs, _ := newStoreHarness(t, st, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	out := filepath.Join(t.TempDir(), "talk.md")
	hs.line(".export " + out)
	if v := hs.view(); !strings.Contains(v, "no saved turn yet") {
		t.Errorf("exporting before any turn did not explain:\n%s", v)
	}
	hs.line("what is 2 + 3?")
	hs.line(".export " + out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := st.Export(context.Background(), hs.m.chat.Session().SessionID(), &want); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf(".export wrote\n%s\nwant\n%s", got, want.String())
	}
	// The shape of the golden export: sections and a collapsible call.
	norm := regexp.MustCompile("(?m)^- (session|created|updated): .*$").ReplaceAllString(string(got), "- $1: X")
	for _, want := range []string{"# what is 2 + 3?\n\n- session: X\n- created: X\n- updated: X\n- model: openai-compat/scripted\n- servers: demo\n",
		"\n## You\n\nwhat is 2 + 3?\n", "<summary>tool call <code>mcp_invoke_demo</code>", "## The sum"} {
		if !strings.Contains(norm, want) {
			t.Errorf("the export lacks %q:\n%s", want, norm)
		}
	}
	if v := hs.view(); !strings.Contains(v, "exported the session as Markdown") {
		t.Errorf("the chat does not say where the export went")
	}
}

func TestAStoreThatCannotBeOpenedIsSaidOnceAndTheChatWorks(t *testing.T) {
	_, model := scriptedModel(t, conversationScript())
	hs, _ := newStoreHarness(t, nil, 120, 40, Options{Model: model, StoreError: errors.New("opening /nowhere/howl.db: permission denied")})
	defer hs.dumpOnFailure()
	hs.line("what is 2 + 3?")
	if !strings.Contains(hs.view(), "The sum") {
		t.Error("the chat did not answer without a store")
	}
	hs.line(".help")
	n := 0
	for _, text := range hs.m.chat.Texts() {
		if strings.Contains(text, "not being saved") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the store failure was said %d times", n)
	}
	hs.keys("ctrl+r")
	if v := hs.view(); !strings.Contains(v, "permission denied") {
		t.Errorf("the dialog does not explain:\n%s", v)
	}
}

// dates hides the clock from goldens.
var dates = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}`)

// TestGoldenSessions draws the sessions dialog: the list, a delete's
// confirmation, and search hits.
func TestGoldenSessions(t *testing.T) {
	steps := []struct {
		name string
		do   func(h *harness)
	}{
		{"sessions_list", func(h *harness) { h.keys("ctrl+r") }},
		{"sessions_confirm_delete", func(h *harness) { h.keys("ctrl+r", "down", "d") }},
		{"sessions_search", func(h *harness) { h.keys("ctrl+r", "s"); h.typeText("otter"); h.keys("enter") }},
		{"sessions_no_store", func(h *harness) {
			h.m.com.Store, h.m.com.StoreErr = nil, errors.New("opening $HOWL_DATA_DIR/howl.db: permission denied")
			h.keys("ctrl+r")
		}},
	}
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					st := testStore(t)
					seedSession(t, st, "how do otters sleep?", "Otters hold hands so they do not drift apart.")
					seedSession(t, st, "what is 2 + 3?", "5", "and 2 + 4?", "6")
					seedSession(t, st, "a very long question about the weather in the mountains next week, and whether to pack a coat or not", "Pack a coat.")
					h, _ := newStoreHarness(t, st, size.w, size.h, Options{})
					s.do(h)
					requireGolden(t, dates.ReplaceAllString(h.view(), "2026-01-02 15:04"))
				})
			}
		})
	}
}

// TestTurnsFinishedDuringAWriteAreWrittenInOrderToOneSession: a turn that
// ends while the first one's write (which creates the session) is still in
// flight waits for it, and lands in the same session.
func TestTurnsFinishedDuringAWriteAreWrittenInOrderToOneSession(t *testing.T) {
	st := testStore(t)
	hs, _ := newStoreHarness(t, st, 80, 24, Options{})
	turn := func(q, a string) []llm.Message {
		return []llm.Message{{Role: llm.RoleUser, Text: q, Time: time.Now()}, {Role: llm.RoleAssistant, Text: a, Time: time.Now()}}
	}
	first := hs.m.chat.SaveTurn(turn("first question", "one"))
	if second := hs.m.chat.SaveTurn(turn("second question", "two")); second != nil {
		t.Fatal("a second write started while the first was in flight")
	}
	hs.run(first)
	list, err := st.List(context.Background(), "", 0)
	if err != nil || len(list) != 1 || list[0].Messages != 4 || list[0].Title != "first question" {
		t.Fatalf("sessions %+v, err %v", list, err)
	}
	conv, _ := st.Load(context.Background(), list[0].ID)
	if conv.Messages[2].Text != "second question" {
		t.Errorf("the turns were stored out of order: %+v", conv.Messages)
	}
}

func TestSessionsDialogHelpShowsItsKeys(t *testing.T) {
	k := common.DefaultKeyMap()
	var descs []string
	for _, b := range k.ShortHelp(common.HelpState{Dialog: "sessions"}) {
		descs = append(descs, b.Help().Desc)
	}
	if got := strings.Join(descs, ","); !strings.Contains(got, "rename") || !strings.Contains(got, "delete") || !strings.Contains(got, "search text") {
		t.Errorf("sessions help: %s", got)
	}
}

func TestDeletingTheOpenSessionStartsANewOneOnTheNextTurn(t *testing.T) {
	st := testStore(t)
	sess := seedSession(t, st, "remember the otter", "The otter is remembered.")
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "noted"}))
	hs, _ := newStoreHarness(t, st, 120, 40, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.keys("ctrl+r", "enter")
	if hs.m.chat.Session().SessionID() != sess.ID {
		t.Fatal("the session did not open")
	}
	hs.keys("ctrl+r", "d", "y", "esc")
	if hs.m.chat.Session().SessionID() != "" || !strings.Contains(hs.view(), "its next turn starts a new session") {
		t.Fatalf("the chat still points at the deleted session %q", hs.m.chat.Session().SessionID())
	}
	hs.line("one more")
	list, _ := st.List(context.Background(), "", 0)
	if len(list) != 1 || list[0].ID == sess.ID || list[0].Title != "one more" {
		t.Fatalf("sessions after the next turn: %+v", list)
	}
}
