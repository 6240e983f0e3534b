package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui"
)

func TestNoVerbOnAPipePrintsTheOverviewNotTheTUI(t *testing.T) {
	isolate(t)
	var out bytes.Buffer
	if writesToTerminal(&out) {
		t.Fatal("a buffer is not a terminal")
	}
	stdout, errOut, code := howl(t)
	if code != 0 || !strings.Contains(stdout, "demo") || !strings.Contains(stdout, "ready") || strings.Contains(stdout, "\x1b[") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
}

func TestHomeTildeShortensPathsUnderHome(t *testing.T) {
	dir := isolate(t)
	if got := homeTilde(filepath.Join(dir, "cache", "x.png")); got != filepath.Join("~", "cache", "x.png") {
		t.Errorf("homeTilde = %q", got)
	}
	if got := homeTilde("/elsewhere/x"); got != "/elsewhere/x" {
		t.Errorf("homeTilde = %q", got)
	}
}

// tmuxSession drives the real binary in a detached tmux server of its own.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "smoke") }

// waitFor polls the screen until it contains want (the timeout only guards
// against a hang).
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// buildHowl builds the real binary, with the developer's environment
// (build cache, module cache), before a test isolates its run.
func buildHowl(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("SKIPPED: tmux is not installed, so the TUI test of the real binary did not run; install tmux to run it")
	}
	if testing.Short() {
		t.Skip("skipped with -short: it builds and runs the real binary")
	}
	bin := filepath.Join(t.TempDir(), "howl")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startTmux opens a shell of w x h in a tmux server of the test's own,
// with the isolated home dir (see isolate), and waits for its prompt.
func startTmux(t *testing.T, dir string, w, h int) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, socket: fmt.Sprintf("howl-smoke-%d-%d", os.Getpid(), time.Now().UnixNano())}
	env := []string{
		"HOWL_CACHE_DIR=" + filepath.Join(dir, "cache"), "HOWL_CONFIG=", "HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "TERM=xterm-256color", "PS1=smoke$ ",
	}
	s.run(append([]string{"new-session", "-d", "-s", "smoke", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-c", dir, "env"}, append(env, "sh")...)...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("smoke$")
	return s
}

// TestTUISmokeInTmux builds howl, runs it on the demo server in a detached
// tmux session of a fixed size, opens the 2 MiB log, pages forward, quits,
// and checks the terminal is back to the shell.
func TestTUISmokeInTmux(t *testing.T) {
	bin := buildHowl(t)
	s := startTmux(t, isolate(t), 100, 30)
	s.run("send-keys", "-t", "smoke", bin+"; echo howl-exited-$?", "Enter")

	s.waitFor("Resources 126")
	s.run("send-keys", "-t", "smoke", "2")
	s.waitFor("[Resources 126]")
	s.run("send-keys", "-t", "smoke", "Enter")
	s.waitFor("page 1 of 41")
	s.run("send-keys", "-t", "smoke", "n")
	scr := s.waitFor("page 2 of 41")
	if !strings.Contains(scr, "demo://logs/app.log") {
		t.Fatalf("the viewer does not show the log:\n%s", scr)
	}
	s.run("send-keys", "-t", "smoke", "q")
	scr = s.waitFor("howl-exited-0")
	if strings.Contains(scr, "Resources 126") || strings.Contains(scr, "page 2 of 41") {
		t.Fatalf("the TUI is still on screen after quitting:\n%s", scr)
	}
	if !strings.Contains(scr, "smoke$") {
		t.Fatalf("the shell is not back:\n%s", scr)
	}
}

func TestResumeFlagsLoadTheConversationBeforeTheTUIStarts(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	// Nothing saved yet: --continue says how to start one.
	_, err := openTUIStore(ctx, resumeFlags{latest: true})
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--continue: no sessions yet") {
		t.Fatalf("--continue with no session: %v", err)
	}
	st, err := openStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.Create(ctx, "remember the otter", "openai/x", nil, []llm.Message{{Role: llm.RoleUser, Text: "remember the otter"}, {Role: llm.RoleAssistant, Text: "ok"}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, rf := range []resumeFlags{{latest: true}, {session: sess.ID}} {
		got, err := openTUIStore(ctx, rf)
		if err != nil || got.unavailable != nil || got.resume == nil || got.resume.Session.ID != sess.ID || len(got.resume.Conv.Messages) != 2 {
			t.Fatalf("%+v: %+v, err %v", rf, got, err)
		}
		got.st.Close()
	}
	// An unknown id is a usage error naming the fix, before any TUI.
	_, err = openTUIStore(ctx, resumeFlags{session: "nope"})
	if !errors.As(err, &ue) || !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `session "nope": no such session (list them with howl sessions list)`) {
		t.Fatalf("--session nope: %v", err)
	}
	if _, err := openTUIStore(ctx, resumeFlags{latest: true, session: sess.ID}); !errors.As(err, &ue) {
		t.Fatalf("both flags: %v", err)
	}
}

func TestAStoreThatCannotBeOpenedLeavesTheTUIWithoutSaving(t *testing.T) {
	dir := isolate(t)
	// A file where the data directory should be.
	blocker := filepath.Join(dir, "data")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOWL_DATA_DIR", filepath.Join(blocker, "sub"))
	got, err := openTUIStore(context.Background(), resumeFlags{})
	if err != nil || got.st != nil || got.resume != nil || got.unavailable == nil {
		t.Fatalf("%+v, err %v", got, err)
	}
	if tuiStore(got.st) != nil {
		t.Fatal("a nil store became a non-nil SessionStore")
	}
	if _, err := openTUIStore(context.Background(), resumeFlags{latest: true}); err == nil {
		t.Fatal("--continue without a store is not an error")
	}
}

func TestRootTakesContinueAndSession(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{})
	if err := root.ParseFlags([]string{"--continue", "--session", "x"}); err != nil {
		t.Fatal(err)
	}
	if rf := resumeFrom(root); !rf.latest || rf.session != "x" {
		t.Fatalf("%+v", rf)
	}
}

func TestTUIElicitorAsksThroughTheDialogUnlessToldOtherwise(t *testing.T) {
	relay := tui.NewRelay()
	for _, c := range []struct {
		flag string
		want string
	}{{"", "ask"}, {"ask", "ask"}, {"defaults", "defaults"}, {"decline", "decline"}} {
		fn := tuiElicitor(&globalFlags{elicit: c.flag}, relay)
		if fn == nil {
			t.Fatalf("--elicit=%q: the TUI declares no elicitation", c.flag)
		}
		req := mcp.ElicitRequest{Mode: "form", Schema: []byte(`{"type":"object","properties":{"n":{"type":"integer","default":3}}}`)}
		ctx, cancel := context.WithCancel(context.Background())
		if c.want == "ask" {
			cancel() // nobody answers here: the dialog's question ends with ctx
		}
		resp, _ := fn(ctx, "s", req)
		cancel()
		got := map[string]string{mcp.ElicitAccept: "defaults", mcp.ElicitDecline: "decline", mcp.ElicitCancel: "ask"}[resp.Action]
		if got != c.want {
			t.Errorf("--elicit=%q answered %+v, want the %s behaviour", c.flag, resp, c.want)
		}
	}
}
