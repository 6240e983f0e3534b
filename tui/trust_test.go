package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

// untrustedProject is a project file as mcp.LoadConfig reports one.
var untrustedProject = mcp.ConfigFile{Path: "/home/p/repo/.mcp.json", Origin: mcp.OriginProject, Why: "never trusted",
	Runs: []string{"helper: runs sh -c 'echo PWNED > file; env > file2'"}, Keys: []string{"base_url", "model"}}

func trustHarness(t *testing.T) (*harness, *testClock, *[]bool) {
	t.Helper()
	var calls []bool
	clock := &testClock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	trust := &ProjectTrust{Files: []mcp.ConfigFile{untrustedProject}, Allow: func(f mcp.ConfigFile, remember bool) ([]string, error) {
		if f.Path != untrustedProject.Path {
			t.Errorf("allowed %q", f.Path)
		}
		calls = append(calls, remember)
		return []string{"helper"}, nil
	}}
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 120, 40, Options{Trust: trust, Now: clock.Now})
	return hs, clock, &calls
}

func TestTUIAsksBeforeAProjectConfigRunsAnythingAndTrustStartsIt(t *testing.T) {
	hs, clock, calls := trustHarness(t)
	view := hs.view()
	for _, want := range []string{"Trust this project's servers?", "/home/p/repo/.mcp.json", "helper: runs sh -c 'echo PWNED > file; env > file2'", "sets base_url, model", "t trust it"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the trust dialog must show %q:\n%s", want, view)
		}
	}
	hs.keys("t") // typed before the dialog could be read: ignored
	if len(*calls) != 0 || !hs.m.dialogs.Has("trust:"+untrustedProject.Path) {
		t.Fatal("a key within the grace period must not trust the project")
	}
	clock.advance(PermissionGrace)
	hs.keys("t")
	if len(*calls) != 1 || !(*calls)[0] {
		t.Fatalf("t must trust and remember the file: calls %v", *calls)
	}
	if hs.m.dialogs.Len() != 0 {
		t.Error("the dialog must close")
	}
	if v := hs.view(); !strings.Contains(v, "trusted /home/p/repo/.mcp.json until it changes: starting helper") {
		t.Errorf("the status must say what trusting did:\n%s", v)
	}
}

func TestTUIProjectConfigStaysOffWhenThePersonSaysNo(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		hs, clock, calls := trustHarness(t)
		clock.advance(PermissionGrace)
		hs.keys(k)
		if len(*calls) != 0 || hs.m.dialogs.Len() != 0 {
			t.Errorf("%s: the project must stay untrusted and the dialog close (calls %v)", k, *calls)
		}
		if v := hs.view(); !strings.Contains(v, "its servers stay off") {
			t.Errorf("%s: the status must say the servers stay off:\n%s", k, v)
		}
	}
	hs, clock, calls := trustHarness(t)
	clock.advance(PermissionGrace)
	hs.keys("o")
	if len(*calls) != 1 || (*calls)[0] {
		t.Errorf("o must use the file for this run without remembering it: %v", *calls)
	}
}
