package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store/storetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// writerEnv makes the test binary a writer process: it appends turns to the
// database in a loop (for the kill and concurrency tests).
const writerEnv = "HOWL_STORE_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(writerEnv); spec != "" {
		os.Exit(writer(spec))
	}
	os.Exit(m.Run())
}

// writer: "path,session,turns" appends turns of three messages each.
func writer(spec string) int {
	parts := strings.Split(spec, ",")
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	s, err := Open(ctx, parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	for i := 0; n == 0 || i < n; i++ {
		if err := s.AppendTurn(ctx, parts[1], turn(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(i) // progress, for the test to kill at a moment of its choosing
	}
	return 0
}

// turn is a realistic three-message turn: question, tool call, result, answer.
func turn(i int) []llm.Message {
	at := time.Date(2026, 11, 30, 10, 0, i, 0, time.UTC)
	return []llm.Message{
		{Role: llm.RoleUser, Text: fmt.Sprintf("question %d: what failed in the payments log?", i), Time: at},
		{Role: llm.RoleAssistant, Model: "openai/gpt-test", Time: at,
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "mcp_read_demo", Arguments: `{"uri":"demo://logs/app.log","pattern":"ERROR"}`}},
			Usage:     &llm.Usage{InputTokens: 100, OutputTokens: 20}},
		{Role: llm.RoleTool, Time: at, ToolResults: []llm.ToolResult{{CallID: fmt.Sprintf("c%d", i), Name: "mcp_read_demo",
			Content: `{"uri":"demo://logs/app.log","truncated":true,"note":"pattern matched 3 of 10 lines","text":"3:ERROR payments timeout"}`,
			Summary: "pattern matched 3 of 10 lines", Duration: 1500 * time.Microsecond}}},
		{Role: llm.RoleAssistant, Model: "openai/gpt-test", Text: fmt.Sprintf("Answer %d: the payments **timeout** errors.", i), Time: at},
	}
}

func open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "howl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenMigratesAnEmptyDatabaseAndReopens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "howl.db")
	for i := 0; i < 2; i++ {
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := s.Version(context.Background()); v != SchemaVersion {
			t.Errorf("version %d, want %d", v, SchemaVersion)
		}
		var mode string
		_ = s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
		if mode != "wal" {
			t.Errorf("journal mode %q, want wal", mode)
		}
		s.Close()
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 { // Windows keeps no modes
		t.Errorf("database mode %v, want 0600", st.Mode().Perm())
	}
}

// TestDataDirWithURICharactersKeepsThePrivateDatabaseExactlyThere: a ?,
// # or % in the data dir once cut the SQLite file name short (the database
// went to a world-readable file elsewhere) or failed to open. The
// database, and its journal files, are created at the path, 0600, and
// nothing else appears.
func TestDataDirWithURICharactersKeepsThePrivateDatabaseExactlyThere(t *testing.T) {
	for _, name := range []string{"a?b#c%d e", "100%", "x#y", "q?mode=memory", "%3F"} {
		if runtime.GOOS == "windows" && strings.Contains(name, "?") {
			t.Logf("%q: not tried: Windows forbids ? in file names", name)
			continue
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, name)
		path := filepath.Join(dir, "howl.db")
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if _, err := s.Create(context.Background(), "where is it?", "", nil, turn(0)); err != nil {
			t.Errorf("%q: writing: %v", name, err)
		}
		var timeout, fk int
		_ = s.db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout)
		_ = s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
		if timeout != int(BusyTimeout.Milliseconds()) || fk != 1 {
			t.Errorf("%q: busy_timeout %d, foreign_keys %d: the connection settings were lost", name, timeout, fk)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 || entries[0].Name() != name {
			t.Errorf("%q: the data dir's parent holds %v, want only the data dir", name, entries)
		}
		entries, _ := os.ReadDir(dir)
		found := false
		for _, e := range entries {
			fi, _ := e.Info()
			switch {
			case e.Name() != "howl.db" && e.Name() != "howl.db-wal" && e.Name() != "howl.db-shm":
				t.Errorf("%q: an unexpected file %q appeared beside the database", name, e.Name())
			case runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600:
				t.Errorf("%q: %s has mode %v, want 0600", name, e.Name(), fi.Mode().Perm())
			}
			found = found || e.Name() == "howl.db"
		}
		s.Close()
		if !found {
			t.Errorf("%q: no howl.db at %s", name, path)
			continue
		}
		s, err = Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%q: reopening: %v", name, err)
		}
		if list, err := s.List(context.Background(), "", 0); err != nil || len(list) != 1 || list[0].Messages != len(turn(0)) {
			t.Errorf("%q: reopened, the session is %+v (%v)", name, list, err)
		}
		s.Close()
	}
}

func TestFileURIOfAWindowsPathIsTripleSlashed(t *testing.T) {
	got := fileURI("C:/Users/Ann Lee/AppData/howl#1/howl.db")
	if want := "file:///C:/Users/Ann%20Lee/AppData/howl%231/howl.db?"; !strings.HasPrefix(got, want) {
		t.Errorf("fileURI = %q, want it to start %q", got, want)
	}
}

func TestOpenMigratesTheePreviousSchemaKeepingData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "howl.db")
	// Build a version-1 database by hand, with a session in it.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1)`)
	mustExec(t, db, migrations[0])
	mustExec(t, db, `INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('old', 'from before', 1, 2)`)
	mustExec(t, db, `INSERT INTO messages(session_id, seq, turn, role, body, search_text, created_at) VALUES ('old', 0, 0, 'user', '{"role":"user","text":"kept","time":"2026-01-01T00:00:00Z"}', 'kept', 1)`)
	db.Close()

	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(context.Background()); v != SchemaVersion {
		t.Errorf("version %d after migrating, want %d", v, SchemaVersion)
	}
	sess, err := s.Get(context.Background(), "old")
	if err != nil || sess.Messages != 1 || sess.Title != "from before" {
		t.Errorf("the old session after migrating: %+v %v", sess, err)
	}
	conv, _ := s.Load(context.Background(), "old")
	if len(conv.Messages) != 1 || conv.Messages[0].Text != "kept" {
		t.Errorf("old messages: %+v", conv.Messages)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func TestResumeRestoresTheExactConversationTheModelSaw(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	sess, err := s.Create(ctx, "What failed in the payments log yesterday, and why did it keep failing after the retry budget was raised?\nmore", "openai/gpt-test", []string{"demo"}, turn(0))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(sess.Title, "…") || len([]rune(sess.Title)) > maxTitle+1 || strings.Contains(sess.Title, "more") {
		t.Errorf("title %q", sess.Title)
	}
	want := llm.NewConversation()
	want.Messages = append(want.Messages, turn(0)...)
	for i := 1; i < 3; i++ {
		tr := turn(i)
		want.Messages = append(want.Messages, tr...)
		if err := s.AppendTurn(ctx, sess.ID, tr); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Load(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("resumed conversation differs:\n got %+v\nwant %+v", got.Messages, want.Messages)
	}
	info, _ := s.Get(ctx, sess.ID)
	if info.Messages != 12 || info.Model != "openai/gpt-test" || !reflect.DeepEqual(info.Servers, []string{"demo"}) {
		t.Errorf("session info %+v", info)
	}
	if err := s.AppendTurn(ctx, "nope", turn(0)); !errors.Is(err, ErrNotFound) {
		t.Errorf("appending to a missing session: %v", err)
	}
}

// TestASessionIsStoredOnlyWithItsFirstTurn: when the first turn cannot be
// written (a full disk), no session is left behind, empty; a session
// cannot be created without a turn at all.
func TestASessionIsStoredOnlyWithItsFirstTurn(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	restore := storetest.FailTurnWrites(t, s.Path())
	if _, err := s.Create(ctx, "will it fit?", "", nil, turn(0)); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("Create on a full disk = %v, want the write's error", err)
	}
	if _, err := s.Create(ctx, "nothing said", "", nil, nil); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("Create without a turn = %v, want ErrNoTurn", err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d sessions stored without their turn (%v)", n, err)
	}
	restore()
	sess, err := s.Create(ctx, "will it fit?", "", nil, turn(0))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, sess.ID); err != nil || !reflect.DeepEqual(got, sess) || got.Messages != len(turn(0)) {
		t.Errorf("stored %+v (%v), Create said %+v", got, err, sess)
	}
}

func TestListRenameDeleteAndLatest(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, "alpha question", "", nil, turn(0))
	b, _ := s.Create(ctx, "beta question", "", nil, []llm.Message{{Role: llm.RoleUser, Text: "beta question"}})
	_ = s.AppendTurn(ctx, a.ID, turn(1)) // a is now the latest
	list, _ := s.List(ctx, "", 0)
	if len(list) != 2 || list[0].ID != a.ID {
		t.Errorf("list not newest first: %+v", list)
	}
	if l, _ := s.List(ctx, "BETA", 0); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("filter: %+v", l)
	}
	if l, _ := s.List(ctx, "%", 0); len(l) != 0 {
		t.Errorf("a %% filter must match literally: %+v", l)
	}
	if err := s.Rename(ctx, b.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(ctx, b.ID, " "); err == nil {
		t.Error("empty title accepted")
	}
	if latest, _ := s.Latest(ctx); latest.ID != a.ID {
		t.Errorf("latest %s", latest.ID)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session still there: %v", err)
	}
	if res, _ := s.Search(ctx, "payments", 0); len(res.Hits) != 0 {
		t.Errorf("a deleted session's messages are still searchable: %+v", res.Hits)
	}
}

func TestSearchFindsTextAcrossSessionsCoverageFirst(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, "logs", "", nil, turn(1))
	b, _ := s.Create(ctx, "other", "", nil, []llm.Message{{Role: llm.RoleUser, Text: "how do I rotate the TLS certificates?"}})
	res, err := s.Search(ctx, "timeout", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SessionID != a.ID || !strings.Contains(res.Hits[0].Snippet, "[timeout]") {
		t.Fatalf("hits %+v", res.Hits)
	}
	if !strings.HasPrefix(res.Coverage, "showing ") {
		t.Errorf("coverage %q", res.Coverage)
	}
	if res, _ := s.Search(ctx, "certif", 0); len(res.Hits) != 1 || res.Hits[0].SessionID != b.ID {
		t.Errorf("prefix search: %+v", res.Hits)
	}
	// Tool calls are searchable by name; FTS operators in a query are words.
	if res, _ := s.Search(ctx, `mcp_read_demo OR "NEAR(`, 0); len(res.Hits) != 0 {
		t.Errorf("operators were interpreted: %+v", res.Hits)
	}
	if res, _ := s.Search(ctx, "mcp_read_demo", 0); len(res.Hits) == 0 {
		t.Error("tool call names are not searchable")
	}
	if _, err := s.Search(ctx, "  ...  ", 0); err == nil {
		t.Error("a query without words was accepted")
	}
}

func TestExportMarkdownGolden(t *testing.T) {
	sess := Session{ID: "20261130-abc", Title: "What failed?", Created: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		Updated: time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC), Model: "openai/gpt-test", Servers: []string{"demo"}}
	conv := &llm.Conversation{Messages: turn(0)}
	conv.Messages[2].ToolResults[0].Content = "text with ``` fences inside"
	conv.Messages[2].ToolResults[0].Decision = "allowed once by you"
	var buf bytes.Buffer
	if err := ExportMarkdown(&buf, sess, conv); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "export.golden.md")
	if *update {
		_ = os.MkdirAll("testdata", 0o755)
		_ = os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./llm/store -run Export -update)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("export differs from %s:\n%s", golden, buf.String())
	}
}

// TestKillDuringWritesNeverCorrupts kills a writer process at arbitrary
// moments, in a loop; after each kill the database opens, passes SQLite's
// integrity check, and holds only whole turns.
func TestKillDuringWritesNeverCorrupts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "howl.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := s.Create(context.Background(), "killed", "", nil, turn(0))
	s.Close()
	for round := 0; round < 6; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+path+","+sess.ID+",0")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write a varying number of turns, then kill it mid-stream.
		buf := make([]byte, 64)
		for seen := 0; seen < 3+round*7; {
			n, err := out.Read(buf)
			if err != nil {
				break
			}
			seen += bytes.Count(buf[:n], []byte("\n"))
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if res, err := s.Check(context.Background()); err != nil || res != "ok" {
			t.Fatalf("round %d: integrity %q %v", round, res, err)
		}
		conv, err := s.Load(context.Background(), sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := s.Get(context.Background(), sess.ID)
		if len(conv.Messages)%4 != 0 || info.Messages != len(conv.Messages) {
			t.Fatalf("round %d: %d messages stored, count says %d: a turn was torn", round, len(conv.Messages), info.Messages)
		}
		s.Close()
	}
}

// TestTwoProcessesWriteConcurrentlyWithoutLoss runs two writer processes on
// one database at once.
func TestTwoProcessesWriteConcurrentlyWithoutLoss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "howl.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := s.Create(context.Background(), "a", "", nil, turn(200))
	b, _ := s.Create(context.Background(), "b", "", nil, turn(201))
	const turns = 40
	var cmds []*exec.Cmd
	for _, id := range []string{a.ID, b.ID} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%d", writerEnv, path, id, turns))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// This process writes too, while they do.
	for i := 0; i < 10; i++ {
		if err := s.AppendTurn(context.Background(), a.ID, turn(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v: %s", err, c.Stderr)
		}
	}
	for id, want := range map[string]int{a.ID: (1 + turns + 10) * 4, b.ID: (1 + turns) * 4} {
		info, _ := s.Get(context.Background(), id)
		conv, _ := s.Load(context.Background(), id)
		if info.Messages != want || len(conv.Messages) != want {
			t.Errorf("session %s: %d messages (count %d), want %d", id, len(conv.Messages), info.Messages, want)
		}
	}
}

// BenchmarkListThousandSessions opens a store of 1,000 sessions of 200
// messages and lists them; BenchmarkAppendTurn appends one turn.
func BenchmarkListThousandSessions(b *testing.B) {
	path := filepath.Join(b.TempDir(), "howl.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 1000; i++ {
		var msgs []llm.Message
		for j := 0; j < 50; j++ {
			msgs = append(msgs, turn(j)...)
		}
		if _, err := s.Create(ctx, fmt.Sprintf("session %d", i), "openai/gpt-test", []string{"demo"}, msgs); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	b.Run("open+list", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			list, err := s.List(ctx, "", 0)
			if err != nil || len(list) != 1000 {
				b.Fatalf("%d sessions, %v", len(list), err)
			}
			s.Close()
		}
	})
	b.Run("append-turn", func(b *testing.B) {
		s, _ := Open(ctx, path)
		defer s.Close()
		list, _ := s.List(ctx, "", 1)
		i := 0
		for b.Loop() {
			if err := s.AppendTurn(ctx, list[0].ID, turn(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

func TestExportSaysHowEachToolCallWasDecided(t *testing.T) {
	s := open(t)
	msgs := turn(0)
	msgs[2].ToolResults[0].Decision = "denied by you"
	sess, err := s.Create(context.Background(), "decided", "m", nil, msgs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Export(context.Background(), sess.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(ok, 2ms, denied by you)") {
		t.Errorf("the export must say how the call was decided:\n%s", buf.String())
	}
}

// A tool call's name is the model's text inside the export's HTML: it is
// escaped, so a name that closes the summary stays text in a viewer that
// renders the export.
func TestExportEscapesAToolCallsNameInItsHTML(t *testing.T) {
	s := open(t)
	msgs := turn(0)
	msgs[1].ToolCalls[0].Name = "</summary><script>alert(1)</script>"
	sess, err := s.Create(context.Background(), "named", "m", nil, msgs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Export(context.Background(), sess.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "<script>") || !strings.Contains(out, "&lt;/summary&gt;&lt;script&gt;") {
		t.Errorf("the tool call's name is written into the HTML as:\n%s", out)
	}
}
