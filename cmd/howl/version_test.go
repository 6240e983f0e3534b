package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestVersionLineNamesTheRevisionItsTimeAndWhetherTheTreeWasClean(t *testing.T) {
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/howl-mcp/howl", Version: "v0.0.0-20261130141400-2b9af4e1c0de+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "2b9af4e1c0de3f6e9b1c0a4d5e6f7a8b9c0d1e2f"},
				{Key: "vcs.time", Value: "2026-11-30T14:14:00Z"}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, c := range []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"a checkout with changes", "", vcs("true"),
			"v0.0.0-20261130141400-2b9af4e1c0de+dirty (revision 2b9af4e1c0de3f6e9b1c0a4d5e6f7a8b9c0d1e2f, 2026-11-30T14:14:00Z, modified) go1.26.8 linux/amd64"},
		{"a release build", "1.4.0", vcs("false"),
			"1.4.0 (revision 2b9af4e1c0de3f6e9b1c0a4d5e6f7a8b9c0d1e2f, 2026-11-30T14:14:00Z, clean) go1.26.8 linux/amd64"},
		{"go install of a tag", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}},
			"v1.4.0 (no VCS information) go1.26.8 linux/amd64"},
		{"go run", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"dev (no VCS information) go1.26.8 linux/amd64"},
	} {
		if got := describeBuild(c.bi, c.stamped, "linux/amd64"); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// The real binary, built from this checkout as a person would (go build
// stamps the VCS state), names the commit and whether the tree was clean.
func TestVersionOfABuiltBinaryNamesItsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds the real binary")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("SKIP: not a git checkout, so there is no commit to name (%v)", err)
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("SKIP: a git worktree (.git is a file): go build does not stamp VCS information there")
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	dirty, _ := exec.Command("git", "status", "--porcelain").Output()
	bin := filepath.Join(t.TempDir(), "howl")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	state := "clean"
	if len(dirty) > 0 {
		state = "modified"
	}
	for _, want := range []string{"howl ", "revision " + strings.TrimSpace(string(head)), state} {
		if !strings.Contains(string(out), want) {
			t.Errorf("howl --version says %q: want %q in it", out, want)
		}
	}
}

// howl completion SHELL prints cobra's script for that shell byte for
// byte: the sanitizing writer every verb prints through keeps it whole.
func TestCompletionScriptsAreCobrasOwnForEveryShell(t *testing.T) {
	isolate(t)
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{})
	for shell, gen := range map[string]func(*cobra.Command, *bytes.Buffer) error{
		"bash":       func(c *cobra.Command, b *bytes.Buffer) error { return c.GenBashCompletionV2(b, true) },
		"zsh":        func(c *cobra.Command, b *bytes.Buffer) error { return c.GenZshCompletion(b) },
		"fish":       func(c *cobra.Command, b *bytes.Buffer) error { return c.GenFishCompletion(b, true) },
		"powershell": func(c *cobra.Command, b *bytes.Buffer) error { return c.GenPowerShellCompletionWithDesc(b) },
	} {
		var want bytes.Buffer
		if err := gen(root, &want); err != nil {
			t.Fatal(err)
		}
		got, errOut, code := howl(t, "completion", shell)
		if code != exitOK || got != want.String() {
			t.Errorf("howl completion %s: exit %d, %d bytes (want %d, cobra's own), stderr %q", shell, code, len(got), want.Len(), errOut)
		}
	}
}

// howl man DIR writes a page per command, and text in angle brackets
// (<user config dir>) survives the Markdown the generator reads.
func TestManWritesAPagePerCommandAndKeepsAngleBrackets(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "man1")
	out, errOut, code := howl(t, "man", dir)
	if code != exitOK {
		t.Fatalf("howl man: exit %d: %s", code, errOut)
	}
	for _, page := range []string{"howl.1", "howl-ls.1", "howl-call.1", "howl-completion-bash.1", "howl-sessions-list.1"} {
		if _, err := os.Stat(filepath.Join(dir, page)); err != nil {
			t.Errorf("no %s: %v", page, err)
		}
	}
	root, _ := os.ReadFile(filepath.Join(dir, "howl.1"))
	if !strings.Contains(string(root), "<user config dir>/howl/mcp.json") || !strings.Contains(string(root), ".SH SYNOPSIS") {
		t.Errorf("howl.1 lost its text in angle brackets or is no man page:\n%.600s", root)
	}
	if !strings.Contains(out, "man pages into "+dir) {
		t.Errorf("howl man says %q", out)
	}
}

// howl --version answers what cobra's own version flag prints, in both
// spellings.
func TestVersionAnswersWhatCobrasFlagPrints(t *testing.T) {
	isolate(t)
	var want bytes.Buffer
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &want, &bytes.Buffer{})
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--version", "-v"} {
		var out, errs bytes.Buffer
		if code := run([]string{flag}, strings.NewReader(""), &out, &errs); code != exitOK || out.String() != want.String() || errs.Len() > 0 {
			t.Errorf("howl %s: exit %d, printed %q (stderr %q); cobra prints %q", flag, code, out.String(), errs.String(), want.String())
		}
	}
}

// BenchmarkVersion is main's share of howl --version: what runs after the
// package inits (which no benchmark here sees; see README Performance).
func BenchmarkVersion(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		run([]string{"--version"}, strings.NewReader(""), io.Discard, io.Discard)
	}
}
