package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
)

// howlIn is howl with what the person types on stdin.
func howlIn(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestInteropCallReachesEverythingsLiveTools drives the current
// server-everything's tools that talk back, through `howl call` (the
// model's invoke path): a form elicitation, a URL elicitation opened only
// after the person says yes, sampling approved (through the scripted model)
// and declined, roots, and a long-running operation.
func TestInteropCallReachesEverythingsLiveTools(t *testing.T) {
	nm := os.Getenv("HOWL_INTEROP_DIR")
	if nm == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./cmd/howl -run Interop")
	}
	dir := isolate(t)
	isolateModel(t)
	script := filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"], "sampling": true}}}`, script)), 0o600); err != nil {
		t.Fatal(err)
	}
	call := func(t *testing.T, stdin string, args ...string) string {
		t.Helper()
		out, errOut, code := howlIn(t, stdin, append([]string{"--config", cfg}, args...)...)
		if code != exitOK {
			t.Fatalf("howl %v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
		return out + errOut
	}

	t.Run("form elicitation", func(t *testing.T) {
		// The name (required, no default), then enter for every other
		// field (its default) and to send.
		out := call(t, "Ada Lovelace\n"+strings.Repeat("\n", 20), "--elicit=ask", "call", "everything", "trigger-elicitation-request")
		if !strings.Contains(out, `"action": "accept"`) || !strings.Contains(out, "Ada Lovelace") {
			t.Errorf("the server did not get the accepted answer: %.600s", out)
		}
		// Defaults alone cannot fill the required name: howl declines
		// rather than send an answer the server's schema rejects.
		out = call(t, "", "--elicit=defaults", "call", "everything", "trigger-elicitation-request")
		if !strings.Contains(out, "decline") {
			t.Errorf("--elicit=defaults did not decline a form whose required field has no default: %.600s", out)
		}
	})

	t.Run("url elicitation opens only on yes", func(t *testing.T) {
		opened := filepath.Join(dir, "opened")
		browser := filepath.Join(dir, "browser.sh")
		if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" >> "+opened+"\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("BROWSER", browser)
		const u = "https://example.com/consent"
		out := call(t, "n\n", "--elicit=ask", "call", "everything", "trigger-url-elicitation", "url="+u)
		if _, err := os.Stat(opened); err == nil || !strings.Contains(out, "it wants you to visit: "+u) || !strings.Contains(out, "decline") {
			t.Fatalf("a no must not open the URL, and the server hears decline: %.800s", out)
		}
		out = call(t, "y\n", "--elicit=ask", "call", "everything", "trigger-url-elicitation", "url="+u)
		got, _ := os.ReadFile(opened)
		if strings.TrimSpace(string(got)) != u || !strings.Contains(out, "accept") {
			t.Fatalf("opened %q; output %.800s", got, out)
		}
		// The error path (-32042): the call is refused naming the server's
		// prerequisite URL; once the person has visited it, the call is
		// made again (the server then asks for ours the request way).
		const prereq = "https://modelcontextprotocol.io"
		out = call(t, "y\ny\n", "--elicit=ask", "call", "everything", "trigger-url-elicitation", "url="+u+"/2", "errorPath=true")
		got, _ = os.ReadFile(opened)
		if !strings.Contains(string(got), prereq+"\n"+u+"/2") || !strings.Contains(out, "accept") {
			t.Fatalf("the error path's URL was not shown and opened, then the call retried (opened %q): %.800s", got, out)
		}
		_, errOut, code := howlIn(t, "n\n", "--config", cfg, "--elicit=ask", "call", "everything", "trigger-url-elicitation", "url="+u+"/3", "errorPath=true")
		if code == exitOK || !strings.Contains(errOut, "needs "+prereq+" visited first, and the person answered decline") {
			t.Fatalf("a declined error-path URL: exit %d: %s", code, errOut)
		}
	})

	t.Run("sampling approved through the model", func(t *testing.T) {
		srv := llmtest.NewOpenAI(llmtest.Sequence(llmtest.Turn{Text: "a howl is a long mournful cry"}))
		defer srv.Close()
		out := call(t, "y\n", "--sample=ask", "--model", "openai-compat/scripted", "--base-url", srv.URL,
			"call", "everything", "trigger-sampling-request", "prompt=what is a howl?", "maxTokens=50")
		if !strings.Contains(out, "a howl is a long mournful cry") || !strings.Contains(out, "server everything asks the model to answer") {
			t.Fatalf("the model's answer did not reach the server's result: %.800s", out)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "what is a howl?") {
			t.Fatalf("the model got %+v", reqs)
		}
	})

	t.Run("sampling declined", func(t *testing.T) {
		srv := llmtest.NewOpenAI(llmtest.Sequence(llmtest.Turn{Text: "never sent"}))
		defer srv.Close()
		out, errOut, _ := howlIn(t, "n\n", "--config", cfg, "--sample=ask", "--model", "openai-compat/scripted", "--base-url", srv.URL,
			"call", "everything", "trigger-sampling-request", "prompt=hi", "maxTokens=5")
		if len(srv.Requests()) != 0 || !strings.Contains(out+errOut, "declined") {
			t.Fatalf("a declined request reached the model (%d requests) or the server was not told: %.800s %.800s", len(srv.Requests()), out, errOut)
		}
	})

	t.Run("roots are the working directory", func(t *testing.T) {
		out := call(t, "", "call", "everything", "get-roots-list")
		if !strings.Contains(out, "file://"+dir) {
			t.Errorf("roots do not name the working directory %s: %.600s", dir, out)
		}
	})

	t.Run("long-running operation", func(t *testing.T) {
		out := call(t, "", "call", "everything", "trigger-long-running-operation", "duration=1", "steps=3")
		if !strings.Contains(strings.ToLower(out), "completed") {
			t.Errorf("long-running result: %.600s", out)
		}
	})
}
