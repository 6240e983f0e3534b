package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// The test binary doubles as howl for the child it spawns: with no config,
// howl runs `<os.Executable()> demo-server`, which lands here.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo-server" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && (os.Args[1] == hostileServerArg || os.Args[1] == hostileInitArg || os.Args[1] == brokenPromptsArg || os.Args[1] == deepSchemaArg) {
		serveHostileForOutput(os.Args[1])
		os.Exit(0)
	}
	if len(os.Args) > 2 && os.Args[1] == forgedSpillArg {
		mcptest.ServeForgedSpill(os.Stdin, os.Stdout, os.Args[2])
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == diesOnToolsListArg {
		os.Exit(mcptest.ServeDiesOnToolsList(os.Stdin, os.Stdout, os.Stderr, mcptest.DiesAtOnce))
	}
	if len(os.Args) > 1 && os.Args[1] == diesOnToolsCallArg {
		os.Exit(mcptest.ServeDiesOn(os.Stdin, os.Stdout, os.Stderr, "tools/call", mcptest.DiesAtOnce))
	}
	if len(os.Args) > 1 && os.Args[1] == schemasFixtureArg {
		os.Exit(serveSchemasFixture())
	}
	os.Exit(m.Run())
}

// isolate gives a test a home with no config anywhere and its own cache,
// and works in a project directory below it (<home>/work), so that the
// configs tests write in the home are the person's own, not the project's.
func isolate(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOWL_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("HOME", dir)
	t.Setenv("HOWL_CACHE_DIR", filepath.Join(dir, "cache"))
	t.Setenv("HOWL_DATA_DIR", filepath.Join(dir, "data"))
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	return dir
}

func howl(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestLsJSONListsEveryKindAndEveryDemoResource(t *testing.T) {
	isolate(t)
	out, errOut, code := howl(t, "ls", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "{\n  \"coverage\":") {
		t.Errorf("coverage does not lead: %.60s", out)
	}
	var l lsJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	counts := map[mcp.Kind]int{}
	for _, it := range l.Items {
		counts[it.Kind]++
	}
	for _, k := range mcp.Kinds {
		if counts[k] == 0 {
			t.Errorf("no %s items", k)
		}
	}
	if counts[mcp.KindResource] < 120 {
		t.Errorf("resources = %d, want 120+ (every page)", counts[mcp.KindResource])
	}
	out, _, _ = howl(t, "ls", "--kind", "prompt", "--json")
	_ = json.Unmarshal([]byte(out), &l)
	for _, it := range l.Items {
		if it.Kind != mcp.KindPrompt {
			t.Errorf("--kind prompt listed a %s", it.Kind)
		}
	}
}

func TestServersJSONShowsTheDemoReadyWithFeatures(t *testing.T) {
	isolate(t)
	out, errOut, code := howl(t, "servers", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep serversReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Servers) != 1 || rep.Servers[0].Name != "demo" || rep.Servers[0].State != mcp.StateReady {
		t.Fatalf("servers = %+v", rep.Servers)
	}
	f := rep.Servers[0].Features
	if f == nil || !f.Tools || !f.Resources || !f.Prompts || !f.Completions || !f.Logging {
		t.Errorf("features = %+v", f)
	}
	if rep.Servers[0].FunctionSuffix != "demo" {
		t.Errorf("function suffix = %q", rep.Servers[0].FunctionSuffix)
	}
}

func TestSearchJSONStartsWithItsCoverageLine(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "search", "demo", "error", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	if !regexp.MustCompile(`^\{\n  "coverage": "showing \d+ of \d+ matches`).MatchString(out) {
		t.Errorf("search output does not start with its coverage: %.120s", out)
	}
	var res mcp.SearchResult
	_ = json.Unmarshal([]byte(out), &res)
	if len(res.Results) == 0 || res.Results[0].Kind == "" {
		t.Errorf("results without kind: %+v", res.Results)
	}
}

func TestDescribeShowsATemplateAndTeachesOnAMiss(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "describe", "demo", "--kind", "resource_template", demo.UserTemplate, "--json")
	if code != 0 || !strings.Contains(out, `"variables": [`) {
		t.Errorf("exit %d: %s", code, out)
	}
	_, errOut, code := howl(t, "describe", "demo", "ech")
	if code != exitServer || !strings.Contains(errOut, `did you mean "echo"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// The verbs print exactly the bytes the model would receive from the
// matching meta-function.
func TestVerbJSONIsByteForByteWhatTheModelReceives(t *testing.T) {
	isolate(t)
	cfg, err := loadConfig(&globalFlags{})
	if err != nil {
		t.Fatal(err)
	}
	store, _ := render.DefaultSpillStore()
	rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{Spill: store})
	defer rt.Close()
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = rt.Wait(ctx)
	cases := []struct {
		verb []string
		fn   string
		args string
	}{
		{[]string{"read", "demo", demo.LogURI, "--pattern", "ERROR", "--json"}, "mcp_read_demo", `{"uri":"` + demo.LogURI + `","pattern":"ERROR"}`},
		{[]string{"read", "demo", demo.LogURI, "--offset", "100", "--max-bytes", "300", "--json"}, "mcp_read_demo", `{"uri":"` + demo.LogURI + `","offset":100,"max_bytes":300}`},
		{[]string{"read", "demo", demo.PNGURI, "--json"}, "mcp_read_demo", `{"uri":"` + demo.PNGURI + `"}`},
		{[]string{"read", "demo", demo.MislabeledURI, "--json"}, "mcp_read_demo", `{"uri":"` + demo.MislabeledURI + `"}`},
		{[]string{"read", "demo", demo.UserTemplate, "--arg", "id=ada", "--json"}, "mcp_read_demo", `{"uri":"` + demo.UserTemplate + `","arguments":{"id":"ada"}}`},
		{[]string{"call", "demo", demo.ImageTool, "--json"}, "mcp_invoke_demo", `{"tool":"` + demo.ImageTool + `"}`},
		{[]string{"call", "demo", demo.BigTextTool, "--json"}, "mcp_invoke_demo", `{"tool":"` + demo.BigTextTool + `"}`},
		{[]string{"call", "demo", demo.AddTool, "a=2", "b=3", "--json"}, "mcp_invoke_demo", `{"tool":"add","arguments":{"a":2,"b":3}}`},
		{[]string{"call", "demo", demo.EchoTool, "--args", `{"message":"two words"}`, "--json"}, "mcp_invoke_demo", `{"tool":"echo","arguments":{"message":"two words"}}`},
		{[]string{"prompt", "demo", demo.ConversationPrompt, "--json"}, "mcp_prompt_demo", `{"prompt":"` + demo.ConversationPrompt + `"}`},
		{[]string{"prompt", "demo", demo.CodeReviewPrompt, `language="go"`, "--json"}, "mcp_prompt_demo", `{"prompt":"code_review","arguments":{"language":"go"}}`},
		{[]string{"prompt", "demo", demo.BangPrompt, "--json"}, "mcp_prompt_demo", `{"prompt":"bang"}`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.verb[:3], " "), func(t *testing.T) {
			out, errOut, code := howl(t, c.verb...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want, err := rt.CallMeta(ctx, c.fn, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want)+"\n" {
				t.Errorf("verb printed\n%.300s\nthe model receives\n%.300s", out, want)
			}
		})
	}
}

func TestCallAndReadNeverPrintBase64AndSayWhatWasCut(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "call", "demo", demo.ImageTool, "--json")
	if code != 0 || strings.Contains(out, "iVBOR") || !strings.Contains(out, `"spilled":true`) {
		t.Errorf("image call: exit %d, %.300s", code, out)
	}
	out, errOut, code := howl(t, "call", "demo", demo.BigTextTool)
	if code != 0 || !regexp.MustCompile(`showing bytes 0-\d+ of 307200`).MatchString(errOut) || len(out) > render.MaxSliceBytes+1024 {
		t.Errorf("big text: exit %d, %d bytes out, stderr %q", code, len(out), errOut)
	}
}

// TestASpillThatFailsExitsOneAndSaysWhy: when binary content cannot be
// saved (a full disk, a cache dir that is not a directory), howl read and
// howl call exit 1 naming the reason and the fix, with or without --json,
// and the model's read and invoke say it too, coverage first.
func TestASpillThatFailsExitsOneAndSaysWhy(t *testing.T) {
	dir := isolate(t)
	notADir := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A path under a regular file cannot be created, even by root.
	t.Setenv("HOWL_CACHE_DIR", filepath.Join(notADir, "cache"))
	reason := []string{"could not be shown", "could not spill", "not a directory", "set HOWL_CACHE_DIR to move it"}
	for _, args := range [][]string{
		{"read", "demo", demo.BinaryURI},
		{"read", "demo", demo.BinaryURI, "--json"},
		{"call", "demo", demo.ImageTool},
		{"call", "demo", demo.ImageTool, "--json"},
		{"call", "demo", demo.LinksTool},
	} {
		out, errOut, code := howl(t, args...)
		if code != exitServer {
			t.Errorf("howl %v: exit %d, want %d: a failed spill is not a success\nstdout %.300s\nstderr %s", args, code, exitServer, out, errOut)
		}
		for _, want := range reason {
			if !strings.Contains(errOut, want) {
				t.Errorf("howl %v: stderr does not say %q: %s", args, want, errOut)
			}
		}
	}
	rt := demoRuntime(t)
	read := wantCallMeta(t, rt, "mcp_read_demo", `{"uri":"`+demo.BinaryURI+`"}`)
	invoke := wantCallMeta(t, rt, "mcp_invoke_demo", `{"tool":"`+demo.ImageTool+`"}`)
	// A one-item read is the item itself: the error leads.
	if !strings.HasPrefix(read, `{"error":"could not spill`) || !strings.Contains(read, `"code":"spill_failed"`) || !strings.Contains(read, "set HOWL_CACHE_DIR") {
		t.Errorf("the model's read does not say first that the spill failed and how to fix it: %.700s", read)
	}
	cov, _, _ := strings.Cut(invoke, `"content"`)
	if !strings.Contains(cov, "1 of them could not be shown") || !strings.Contains(invoke, `"spill":{"error":"could not spill`) || !strings.Contains(invoke, `"code":"spill_failed"`) {
		t.Errorf("the model's invoke does not say in its coverage and in the item that the spill failed: %.900s", invoke)
	}
}

func TestPromptTextStartingWithBangIsPrintedNotRun(t *testing.T) {
	dir := isolate(t)
	out, _, code := howl(t, "prompt", "demo", demo.BangPrompt)
	if code != 0 || !strings.HasPrefix(out, "[user]\n!") {
		t.Errorf("exit %d: %q", code, out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "cache" && e.Name() != "config" && e.Name() != "data" && e.Name() != "work" {
			t.Errorf("running a prompt created %s", e.Name())
		}
	}
	if work, _ := os.ReadDir(filepath.Join(dir, "work")); len(work) != 0 {
		t.Errorf("running a prompt created %s in the working directory", work[0].Name())
	}
}

func TestExitCodesSayWhoWasWrong(t *testing.T) {
	dir := isolate(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ls", "--kind", "widget"}, exitUsage, "unknown kind"},
		{[]string{"ls", "--bogus"}, exitUsage, "unknown flag"},
		{[]string{"search", "nosuch", "x"}, exitUsage, `no server named "nosuch"`},
		{[]string{"search", "demo"}, exitUsage, "want at least 2"},
		{[]string{"prompt", "demo", demo.CodeReviewPrompt}, exitUsage, `missing required arguments: "language"`},
		{[]string{"call", "demo", demo.AddTool, "a=x", "b=1"}, exitUsage, "input schema"},
		{[]string{"read", "demo", demo.LogURI, "--pattern", "("}, exitUsage, "not a valid regex"},
		{[]string{"call", "demo", demo.FailTool, "message=boom"}, exitServer, "reported an error"},
		{[]string{"read", "demo", "demo://data/broken"}, exitServer, "error"},
	}
	for _, c := range cases {
		_, errOut, code := howl(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("howl %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\"mcpServers\": {\n  \"a\": {\"comand\": \"x\"}}}"), 0o644)
	_, errOut, code := howl(t, "--config", bad, "servers")
	if code != exitUsage || !strings.Contains(errOut, bad+":2:") || !strings.Contains(errOut, `did you mean "command"`) {
		t.Errorf("bad config: exit %d, %q", code, errOut)
	}
	failing := filepath.Join(dir, "failing.json")
	os.WriteFile(failing, []byte(`{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}`), 0o644)
	out, errOut, code := howl(t, "--config", failing, "ls")
	if code != exitServer || !strings.Contains(out, "gone: failed") {
		t.Errorf("failing server: exit %d, out %q, err %q", code, out, errOut)
	}
}

func TestToolsJSONPrintsTheGatedDeclarations(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "tools", "--server", "demo", "--json")
	var rep toolsReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Declarations) != 5 {
		t.Fatalf("exit %d: %.200s", code, out)
	}
	decls := rep.Declarations
	// The costs are the declarations' own: bytes as a provider receives
	// them, and one server carries all of them.
	if js := mcp.DeclarationJSON(decls); rep.DeclarationBytes != len(js) || rep.Shape != mcp.FunctionsPerServer ||
		len(rep.Servers) != 1 || rep.Servers[0].Bytes != len(js) || rep.EstimatedTokens < len(js)/8 || rep.EstimatedTokens > len(js)/2 ||
		!strings.HasPrefix(out, "{\n  \"summary\": \"5 functions (per-server) for 1 servers: ") {
		t.Errorf("costs: %.400s", out)
	}
	for _, d := range decls {
		// Each description teaches the workflow: search first, then the rest.
		if !strings.HasSuffix(d.Name, "_demo") || !strings.Contains(d.Description, "mcp_search_demo") && !strings.HasPrefix(d.Name, "mcp_search") ||
			!strings.Contains(d.Description, "mcp_describe_demo") && !strings.HasPrefix(d.Name, "mcp_describe") && !strings.HasPrefix(d.Name, "mcp_read") {
			t.Errorf("%s: %s", d.Name, d.Description)
		}
	}
}

// TestToolsJSONReportsTheSharedSetAndEachServersShare: with "functions":
// "shared" two servers share one set; each server's share is what its
// name adds to the enums, far less than its own five functions, and a
// shape the config misspells is an error naming the fix.
func TestToolsJSONReportsTheSharedSetAndEachServersShare(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg := filepath.Join(home, "shared.json")
	os.WriteFile(cfg, []byte(`{"functions":"shared","mcpServers":{
		"one":{"command":"`+exe+`","args":["demo-server"],"protocol":"legacy"},
		"two":{"command":"`+exe+`","args":["demo-server"],"protocol":"legacy"}}}`), 0o600)
	out, errOut, code := howl(t, "--config", cfg, "tools", "--json")
	var rep toolsReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d: %.300s %s", code, out, errOut)
	}
	if rep.Shape != mcp.FunctionsShared || rep.Functions != 5 || rep.DeclarationBytes != len(mcp.DeclarationJSON(rep.Declarations)) || len(rep.Servers) != 2 {
		t.Fatalf("shared report: %.500s", out)
	}
	for _, sc := range rep.Servers {
		if sc.Bytes <= 0 || sc.Bytes > 40 || sc.EstimatedTokens <= 0 || len(sc.Functions) != 5 || sc.Functions[0] != "mcp_search" {
			t.Errorf("%s's share: %+v", sc.Server, sc)
		}
	}
	os.WriteFile(cfg, []byte(`{"functions":"sharde","mcpServers":{}}`), 0o600)
	if _, errOut, code := howl(t, "--config", cfg, "tools"); code == 0 || !strings.Contains(errOut, `functions: is "sharde"`) || !strings.Contains(errOut, `"per-server", "shared" or "auto"`) {
		t.Errorf("misspelt shape: exit %d, %s", code, errOut)
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, code := howl(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "howl version ") {
		t.Errorf("--version: %d %q", code, out)
	}
	out, _, code = howl(t, "--help")
	for _, verb := range []string{"servers", "ls", "search", "describe", "read", "call", "prompt", "tools", "demo-server", "Exit codes"} {
		if code != 0 || !strings.Contains(out, verb) {
			t.Errorf("--help lacks %q", verb)
		}
	}
}

func TestPlainOutputNeverCarriesTerminalControls(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"read", "demo", demo.EscapesURI},
		{"describe", "demo", "--kind", "resource", demo.EscapesURI},
		{"ls"},
	} {
		out, errOut, code := howl(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		for _, s := range []string{out, errOut} {
			for _, r := range s {
				if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
					t.Fatalf("howl %v printed control %U: %q", args, r, s)
				}
			}
		}
	}
	// The same resource as JSON keeps the server's bytes, escaped.
	out, _, _ := howl(t, "read", "demo", demo.EscapesURI, "--json")
	if !strings.Contains(out, `\u001b`) {
		t.Errorf("--json should carry the raw text, escaped: %.200s", out)
	}
}

// The demo's tools that ask back work through `howl call` with no config:
// the form is declined as --elicit says, the roots are the working
// directory, and summarize (the demo's entry allows sampling) says no one
// could be asked and how to be.
func TestCallReachesTheDemosQuestionTools(t *testing.T) {
	dir := isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--elicit=decline", "call", "demo", "book_table"}, "You declined the form: no table booked."},
		{[]string{"call", "demo", "list_roots"}, "- file://" + dir},
		{[]string{"call", "demo", "summarize", "text=wolves howl"}, "without asking anyone"},
	} {
		out, errOut, _ := howl(t, c.args...)
		if !strings.Contains(out+errOut, c.want) {
			t.Errorf("howl %s printed\n%s\nstderr: %s\nwant it to contain %q", strings.Join(c.args, " "), out, errOut, c.want)
		}
	}
}

// --trace prints each request to a server on stderr as it ends, the
// handshake included; stdout keeps exactly the result.
func TestTracePrintsEveryRequestOnStderr(t *testing.T) {
	isolate(t)
	out, errOut, code := howl(t, "--trace", "call", "demo", "echo", "message=hi")
	if code != 0 || strings.TrimSpace(out) != "hi" {
		t.Fatalf("exit %d, stdout %q (want exactly the result): %s", code, out, errOut)
	}
	for _, re := range []string{`(?m)^howl trace demo: → (initialize|server/discover) · `, `(?m)^howl trace demo: → tools/call echo · [0-9.]+[µm]?s · \d+ B$`} {
		if !regexp.MustCompile(re).MatchString(errOut) {
			t.Errorf("stderr has no line like %s:\n%s", re, errOut)
		}
	}
	if _, errOut, _ := howl(t, "call", "demo", "echo", "message=hi"); strings.Contains(errOut, "howl trace") {
		t.Errorf("without --trace, stderr traced:\n%s", errOut)
	}
}

func TestJSONVerbsPrintTheirErrorAsOneJSONObjectWithTheSameExitCode(t *testing.T) {
	isolate(t)
	cases := []struct {
		args []string
		code int
		kind string
		want string
	}{
		{[]string{"call", "nosuch", "echo", "--json"}, exitUsage, "usage", `no server named "nosuch"`},
		{[]string{"read", "demo", "demo://nope", "--json"}, exitServer, "server", "demo://nope"},
		{[]string{"describe", "demo", "nope", "--json"}, exitServer, "server", "nope"},
		{[]string{"ask", "--json", "--model", "nosuchprovider/x", "hi"}, exitUsage, "usage", "nosuchprovider"},
	}
	for _, c := range cases {
		out, errOut, code := howl(t, c.args...)
		if code != c.code {
			t.Errorf("howl %v: exit %d, want %d (%s%s)", c.args, code, c.code, out, errOut)
		}
		var rep struct {
			Error struct{ Kind, Message, Fix string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Error.Kind != c.kind || !strings.Contains(rep.Error.Message, c.want) {
			t.Errorf("howl %v: stdout must be one JSON error object of kind %s naming %q, got %q (%v)", c.args, c.kind, c.want, out, err)
		}
		if errOut != "" {
			t.Errorf("howl %v: under --json the error goes to stdout, stderr got %q", c.args, errOut)
		}
	}
	// The model error's fix is its own field.
	out, _, _ := howl(t, "ask", "--json", "--model", "nosuchprovider/x", "hi")
	if !strings.Contains(out, `"fix":`) {
		t.Errorf("an error with a fix carries it: %s", out)
	}
}

func TestAFailedListingIsReportedAsUnknownNotZero(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg := filepath.Join(home, "broken.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"broken":{"command":"`+exe+`","args":["`+brokenPromptsArg+`"],"protocol":"legacy"}}}`), 0o600)
	out, errOut, _ := howl(t, "--config", cfg, "ls", "--json")
	var l struct {
		Servers []struct {
			Counts   map[string]*int
			Warnings []struct{ Kind, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Servers) != 1 {
		t.Fatalf("ls --json: %v\n%s%s", err, out, errOut)
	}
	counts := l.Servers[0].Counts
	if p, listed := counts["prompt"]; !listed || p != nil {
		t.Errorf("a failed prompts/list must count as null (unknown), got %v", counts)
	}
	if n := counts["tool"]; n == nil || *n != 1 {
		t.Errorf("the tools that did list are counted: %v", counts)
	}
	if !strings.Contains(out, `"prompt": null`) {
		t.Errorf("null must be written out: %s", out)
	}
	overview, _, _ := howl(t, "--config", cfg)
	if !strings.Contains(overview, "? prompts (listing failed)") || strings.Contains(overview, "0 prompts") {
		t.Errorf("the overview must say the count is unknown: %s", overview)
	}
}

func TestServersShowWhichRootsEachServerIsOffered(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	notes := filepath.Join(home, "notes")
	cfg := filepath.Join(home, "roots.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{
		"mine":{"command":"`+exe+`","args":["demo-server"],"roots":["`+notes+`"]},
		"other":{"command":"`+exe+`","args":["demo-server"]}}}`), 0o600)
	out, errOut, code := howl(t, "--config", cfg, "servers")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	wd, _ := os.Getwd()
	for _, want := range []string{"mine: " + notes + ` (its own "roots")`, "other: " + wd + " (the default)"} {
		if !strings.Contains(out, want) {
			t.Errorf("howl servers must show %q:\n%s", want, out)
		}
	}
	out, _, _ = howl(t, "--config", cfg, "servers", "--json")
	if !strings.Contains(out, `"roots": [`) || !strings.Contains(out, `"own_roots": true`) {
		t.Errorf("--json must carry the roots: %s", out)
	}
}
