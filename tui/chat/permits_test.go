package chat

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
)

// demoRuntime is the embedded demo in this process, over stdio's framing.
func demoRuntime(t *testing.T) *mcp.Runtime {
	return demoServers(t, mcp.RuntimeOptions{}, "demo")
}

// demoServers is a runtime with the embedded demo under each name, with
// opts (its CacheDir a temporary directory), started and ready.
func demoServers(t *testing.T, opts mcp.RuntimeOptions, names ...string) *mcp.Runtime {
	t.Helper()
	var servers []mcp.ServerConfig
	for _, name := range names {
		servers = append(servers, mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: "howl", Args: []string{"demo-server"},
			Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
				return demo.ServeStdio(ctx, demo.New(demo.Options{}), in, out)
			}})
	}
	opts.CacheDir = t.TempDir()
	rt := mcp.NewRuntime(&mcp.Config{Servers: servers}, opts)
	t.Cleanup(func() { rt.Close() })
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return rt
}

// TestASessionAnswerToAnAppAllowsThatAppOnly: "s" given to an MCP App's
// call lets that app call the tool again unasked, but the model, and
// another app, are still asked; "s" given to the model does not let an
// app through either. Before, one grant keyed by "server:tool" served
// every caller, so a button in a page allowed the model's calls too.
func TestASessionAnswerToAnAppAllowsThatAppOnly(t *testing.T) {
	com := testCommon()
	com.ModelRT = demoRuntime(t)
	c := New(com, nil, nil, 0)
	c.permits = NewPermits(llm.Permissions{}, "")
	cats := com.ModelRT.(llm.Catalogs)
	call := llm.ToolCall{ID: "c1", Name: "mcp_invoke_demo", Arguments: `{"tool":"` + demo.DeleteNoteTool + `","arguments":{"id":"note-007"}}`}

	asked := asker(t, c, cats, call)
	const dice, other = "ui://demo/dice.html", "ui://other/app.html"
	if !asked(dice, AnswerSession) {
		t.Fatal("the app's first call was not asked about")
	}
	if asked(dice, AnswerDeny) {
		t.Error("the app was asked again after \"s\" for the session")
	}
	if !asked(other, AnswerOnce) {
		t.Error("another app was let through by the first app's \"s\"")
	}
	if !asked("", AnswerSession) {
		t.Error("the model was let through by an app's \"s\"")
	}
	c.permits = NewPermits(llm.Permissions{}, "")
	asked("", AnswerSession)
	if !asked(dice, AnswerOnce) {
		t.Error("an app was let through by the model's \"s\"")
	}
	// "a" saves a rule for every caller, those already running included
	// (the save itself is a command, not run here).
	c.permits = NewPermits(llm.Permissions{}, filepath.Join(t.TempDir(), "mcp.json"))
	decideOther := c.AppDecider(other, func(context.Context, *PermissionRequest) error { return errors.New("asked") })
	if !asked(dice, AnswerAlways) {
		t.Fatal("the app's first call under new rules was not asked about")
	}
	if asked("", AnswerDeny) {
		t.Error("the model was asked again after \"a\", always allow")
	}
	if d, err := decideOther(context.Background(), call); err != nil {
		t.Errorf("an app open before the \"a\" was refused or asked (%s, %v); want it allowed by the rule", d, err)
	}
}

// In the shared shape a read names its server in its arguments, not its
// function: "s" to mcp_read on server a lets reads of a through, and a
// read of b is still asked.
func TestASessionAnswerToASharedReadAllowsThatServerOnly(t *testing.T) {
	rt := demoServers(t, mcp.RuntimeOptions{Functions: mcp.FunctionsShared}, "a", "b")
	com := testCommon()
	com.ModelRT = rt
	c := New(com, nil, nil, 0)
	c.permits = NewPermits(llm.Permissions{AskReads: true}, "")
	asked := func(server string) bool {
		t.Helper()
		read := llm.ToolCall{ID: "r", Name: "mcp_read", Arguments: `{"server":"` + server + `","uri":"demo://readme"}`}
		return asker(t, c, rt, read)("", AnswerSession)
	}
	if !asked("a") {
		t.Fatal("the first read of a was not asked about")
	}
	if asked("a") {
		t.Error("a read of a was asked again after \"s\"")
	}
	if !asked("b") {
		t.Error("a read of b was let through by \"s\" to a read of a")
	}
}

// asker runs one decision of call by the model's (app "") or an app's
// rules, answering a question with answer, and reports whether the
// person was asked. The answer goes through AnswerPermission, as the
// dialog's does.
func asker(t *testing.T, c *Pane, cats llm.Catalogs, call llm.ToolCall) func(app string, answer PermissionAnswer) bool {
	return func(app string, answer PermissionAnswer) bool {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		questions := make(chan *PermissionRequest, 1)
		post := func(ctx context.Context, req *PermissionRequest) error {
			select {
			case questions <- req:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		decide := c.permits.decider(cats, questions)
		if app != "" {
			decide = c.AppDecider(app, post)
		}
		type outcome struct {
			decision string
			err      error
		}
		done := make(chan outcome, 1)
		go func() {
			d, err := decide(ctx, call)
			done <- outcome{d, err}
		}()
		was := false
		for {
			select {
			case req := <-questions:
				was = true
				c.AnswerPermission(req, answer)
			case o := <-done:
				if o.err != nil && answer != AnswerDeny {
					t.Fatalf("app %q: %s, %v", app, o.decision, o.err)
				}
				return was
			case <-ctx.Done():
				t.Fatalf("app %q: no decision within 30 s", app)
			}
		}
	}
}

// A tool changed since its rule pinned it: "s" to an app's call lets that
// app run the changed tool again unasked, but the model is still asked,
// and "s" to the model lets no app through: a session answer approves
// the changed definition for its asker only.
func TestASessionAnswerAboutAChangedToolIsTheAskersAlone(t *testing.T) {
	com := testCommon()
	com.ModelRT = demoRuntime(t)
	c := New(com, nil, nil, 0)
	cats := com.ModelRT.(llm.Catalogs)
	cat, err := cats.Catalog(context.Background(), "demo", false)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := cat.Lookup(mcp.KindTool, demo.DeleteNoteTool)
	if !ok {
		t.Fatalf("the demo lists no %s", demo.DeleteNoteTool)
	}
	before := it
	before.Description = "What the tool said when the rule was pinned."
	pinnedRules := func() *Permits {
		approvals := llm.NewApprovals("")
		if err := approvals.Approve(before, false, time.Now()); err != nil {
			t.Fatal(err)
		}
		return NewPermits(llm.Permissions{Allow: []string{"demo:" + demo.DeleteNoteTool}, Approvals: approvals}, "")
	}
	call := llm.ToolCall{ID: "c1", Name: "mcp_invoke_demo", Arguments: `{"tool":"` + demo.DeleteNoteTool + `","arguments":{"id":"note-007"}}`}
	asked := asker(t, c, cats, call)
	const dice = "ui://demo/dice.html"

	c.permits = pinnedRules()
	if !asked(dice, AnswerSession) {
		t.Fatal("the app's call of the changed tool was not asked about")
	}
	if asked(dice, AnswerDeny) {
		t.Error("the app was asked again after \"s\"")
	}
	if !asked("", AnswerDeny) {
		t.Error("the model ran the changed tool unasked after an app's \"s\"")
	}

	c.permits = pinnedRules()
	if !asked("", AnswerSession) {
		t.Fatal("the model's call of the changed tool was not asked about")
	}
	if asked("", AnswerDeny) {
		t.Error("the model was asked again after \"s\"")
	}
	if !asked(dice, AnswerDeny) {
		t.Error("an app ran the changed tool unasked after the model's \"s\"")
	}
}
