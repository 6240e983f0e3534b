package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// userConfig is the person's own config file in an isolated home.
func userConfig(home string) string { return filepath.Join(home, "config", "howl", "mcp.json") }

// self is this test binary, which serves the demo when run as
// `<self> demo-server` (TestMain).
func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestMCPAddListGetRemoveAStdioServerThatThenRuns(t *testing.T) {
	home := isolate(t)
	out, errOut, code := howl(t, "mcp", "add", "mine", "--env", "GREETING=hi", "--json", "--", self(t), "demo-server")
	if code != 0 {
		t.Fatalf("add: exit %d: %s%s", code, out, errOut)
	}
	var rep changeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Action != "added" || rep.Scope != "user" || rep.File != userConfig(home) || !rep.Trusted {
		t.Fatalf("add report = %+v (%v)", rep, err)
	}
	data, _ := os.ReadFile(userConfig(home))
	if want := `"mine": {` + "\n      \"command\": "; !strings.Contains(string(data), want) || !strings.Contains(string(data), `"GREETING": "hi"`) {
		t.Errorf("the new file is not laid out as expected:\n%s", data)
	}
	if st, _ := os.Stat(userConfig(home)); st.Mode().Perm() != 0o600 {
		t.Errorf("a new config must be private: %v", st.Mode())
	}
	out, _, code = howl(t, "mcp", "list", "--json")
	var l mcpListReport
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || len(l.Servers) != 1 || l.Servers[0].Source != "user" || l.Servers[0].State != "enabled" {
		t.Fatalf("list: exit %d %+v %v\n%s", code, l, err, out)
	}
	out, _, code = howl(t, "ls", "--server", "mine", "--kind", "tool")
	if code != 0 || !strings.Contains(out, "echo") {
		t.Fatalf("the added server must run: exit %d\n%s", code, out)
	}
	out, _, code = howl(t, "mcp", "get", "mine", "--json")
	var v entryView
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || !strings.Contains(string(v.Entry), `"demo-server"`) || !strings.Contains(v.Does, "GREETING=hi") {
		t.Fatalf("get: exit %d %+v %v", code, v, err)
	}
	if out, errOut, code = howl(t, "mcp", "remove", "mine"); code != 0 || !strings.Contains(out, "removed server mine") {
		t.Fatalf("remove: exit %d %s%s", code, out, errOut)
	}
	out, _, _ = howl(t, "mcp", "list", "--json")
	if strings.Contains(out, `"mine"`) {
		t.Errorf("removed, still listed: %s", out)
	}
}

// dotfile is a hand-formatted config kept in a dotfiles folder: tabs,
// its own key order, other keys.
const dotfile = "{\n\t\"model\": \"openai/gpt-5\",\n\t\"mcpServers\": {\n\t\t\"notes\": {\"command\": \"notes-mcp\"}\n\t},\n\t\"permissions\": {\"allow\": []}\n}\n"

func TestMCPAddAndRemoveThroughASymlinkGiveBackTheHandFormattedFileByteForByte(t *testing.T) {
	home := isolate(t)
	real := filepath.Join(home, "dotfiles", "howl.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte(dotfile), 0o640)
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	if err := os.Symlink(real, userConfig(home)); err != nil {
		t.Skip("no symlinks:", err)
	}
	_, errOut, code := howl(t, "mcp", "add", "docs", "--url", "https://docs.example/mcp", "--type", "sse", "--header", "Authorization: Bearer ${DOCS_TOKEN}")
	if code != 0 {
		t.Fatalf("add: exit %d %s", code, errOut)
	}
	want := "{\n\t\"model\": \"openai/gpt-5\",\n\t\"mcpServers\": {\n\t\t\"notes\": {\"command\": \"notes-mcp\"},\n\t\t\"docs\": {\n\t\t\t\"type\": \"sse\",\n\t\t\t\"url\": \"https://docs.example/mcp\",\n\t\t\t\"headers\": {\n\t\t\t\t\"Authorization\": \"Bearer ${DOCS_TOKEN}\"\n\t\t\t}\n\t\t}\n\t},\n\t\"permissions\": {\"allow\": []}\n}\n"
	if data, _ := os.ReadFile(real); string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	if st, err := os.Lstat(userConfig(home)); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the config must stay a link: %v", err)
	}
	if _, errOut, code = howl(t, "mcp", "remove", "docs"); code != 0 {
		t.Fatalf("remove: exit %d %s", code, errOut)
	}
	if data, _ := os.ReadFile(real); string(data) != dotfile {
		t.Errorf("add then remove must give the file back as it was:\n%q\nwant\n%q", data, dotfile)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v", st.Mode().Perm())
	}
}

func TestMCPAddRefusesADuplicateOrAnEntryThatWouldNotLoadAndLeavesTheFile(t *testing.T) {
	home := isolate(t)
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	os.WriteFile(userConfig(home), []byte(dotfile), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add", "notes", "--", "other"}, "already has a server named \"notes\""},
		{[]string{"mcp", "add-json", "bad", `{"comand": "x"}`}, `did you mean "command"`},
		{[]string{"mcp", "add-json", "bad", `not json`}, "not a JSON object"},
		{[]string{"mcp", "add", "x", "--url", "ftp://h/"}, "not an http(s) URL"},
		{[]string{"mcp", "add", "x", "--header", "A: b", "--", "cmd"}, "--header and --type are for a URL"},
		{[]string{"mcp", "add", "x"}, "say what x runs or reaches"},
	} {
		out, errOut, code := howl(t, c.args...)
		if code != exitUsage || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s%s", c.args, code, c.want, out, errOut)
		}
	}
	if data, _ := os.ReadFile(userConfig(home)); !bytes.Equal(data, []byte(dotfile)) {
		t.Errorf("a refused add changed the file:\n%s", data)
	}
	out, _, code := howl(t, "mcp", "add", "bad", "--json", "--", "")
	if code != exitUsage || !strings.Contains(out, `"kind": "usage"`) {
		t.Errorf("--json errors are JSON: %s", out)
	}
}

func TestMCPAddToTheProjectKeepsItTrustedOnlyWhenItWasTrusted(t *testing.T) {
	isolate(t)
	out, errOut, code := howl(t, "mcp", "add", "--scope", "project", "--json", "p1", "--", "p1-server")
	if code != 0 {
		t.Fatalf("exit %d %s%s", code, out, errOut)
	}
	var rep changeReport
	json.Unmarshal([]byte(out), &rep)
	if !rep.Trusted || rep.Scope != "project" || filepath.Base(rep.File) != ".mcp.json" {
		t.Errorf("a project file howl wrote whole is the person's: %+v", rep)
	}
	out, _, _ = howl(t, "mcp", "list", "--json")
	if !strings.Contains(out, `"state": "enabled"`) {
		t.Errorf("the entry must be usable: %s", out)
	}
	// Someone else changes the file: it is untrusted, and the person's
	// own add does not trust it for them.
	os.WriteFile(".mcp.json", []byte(`{"mcpServers": {"theirs": {"command": "rm", "args": ["-rf", "/"]}}}`), 0o644)
	out, _, code = howl(t, "mcp", "add", "--scope", "project", "p2", "--", "p2-server")
	if code != 0 || !strings.Contains(out, "you have not trusted") || !strings.Contains(out, "howl trust") {
		t.Errorf("the add must say the file is untrusted: exit %d %s", code, out)
	}
	out, _, _ = howl(t, "mcp", "list")
	if !strings.Contains(out, "theirs") || strings.Count(out, "untrusted") < 2 {
		t.Errorf("both entries stay untrusted:\n%s", out)
	}
}

func TestMCPDisableAndEnableWriteTheEntryAndSayWhere(t *testing.T) {
	home := isolate(t)
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	os.WriteFile(userConfig(home), []byte(dotfile), 0o600)
	out, _, code := howl(t, "mcp", "disable", "notes", "write_*", "delete")
	if code != 0 || !strings.Contains(out, userConfig(home)) {
		t.Fatalf("exit %d %s", code, out)
	}
	data, _ := os.ReadFile(userConfig(home))
	if !strings.Contains(string(data), `"notes": {"command": "notes-mcp", "disabledTools": ["write_*", "delete"]}`) {
		t.Errorf("disabledTools not written in the entry's own layout:\n%s", data)
	}
	out, _, _ = howl(t, "mcp", "list")
	if !strings.Contains(out, "enabled (2 tools off)") {
		t.Errorf("list must count the tools off:\n%s", out)
	}
	howl(t, "mcp", "enable", "notes", "write_*", "delete")
	howl(t, "mcp", "disable", "notes")
	howl(t, "mcp", "enable", "notes")
	if data, _ := os.ReadFile(userConfig(home)); string(data) != dotfile {
		t.Errorf("off and on again must give the file back:\n%s", data)
	}
}

func TestStdioRunsAServerTypedOnTheCommandLineWithoutAConfig(t *testing.T) {
	home := isolate(t)
	os.WriteFile(".mcp.json", []byte(`{"mcpServers": {"theirs": {"command": "false"}}}`), 0o644)
	line := "'" + self(t) + "' demo-server"
	out, errOut, code := howl(t, "--stdio", line, "call", "echo", "message=typed")
	if code != 0 || !strings.Contains(out, "typed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "trust") {
		t.Errorf("a command the person typed is not asked about: %s", errOut)
	}
	if _, err := os.Stat(userConfig(home)); err == nil {
		t.Errorf("--stdio must not write a config")
	}
	_, errOut, code = howl(t, "--stdio", "'unclosed", "ls")
	if code != exitUsage || !strings.Contains(errOut, "quote is not closed") {
		t.Errorf("exit %d %s", code, errOut)
	}
}

func TestSplitCommandLine(t *testing.T) {
	for in, want := range map[string][]string{
		`npx -y @scope/server`:             {"npx", "-y", "@scope/server"},
		`node "my server.js" --root='a b'`: {"node", "my server.js", "--root=a b"},
		`a\ b ''`:                          {"a b", ""},
		`  spaced   out  `:                 {"spaced", "out"},
	} {
		got, err := splitCommandLine(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("%s: got %q %v, want %q", in, got, err, want)
		}
	}
}

func TestASwitchedOffToolIsListedAsOffAndTheVerbsActAsTheModel(t *testing.T) {
	home := isolate(t)
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	os.WriteFile(userConfig(home), []byte(`{"mcpServers": {"d": {"command": "`+self(t)+`", "args": ["demo-server"], "disabledTools": ["echo"]}}}`), 0o600)
	out, _, code := howl(t, "ls", "--kind", "tool", "--json")
	var l lsJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 {
		t.Fatalf("exit %d %v", code, err)
	}
	off := 0
	for _, it := range l.Items {
		if it.Off {
			off++
			if it.ID != "echo" {
				t.Errorf("%s is marked off", it.ID)
			}
		}
	}
	if off != 1 {
		t.Errorf("the person's listing keeps echo, marked off: %d marked", off)
	}
	out, _, _ = howl(t, "search", "d", "echo", "--json")
	var res mcp.SearchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Results {
		if h.Kind == mcp.KindTool && h.ID == "echo" {
			t.Errorf("howl search answers as mcp_search_ does, without echo: %+v", h)
		}
	}
	_, errOut, code := howl(t, "call", "d", "echo", "message=x")
	if code != exitUsage || !strings.Contains(errOut, "switched off by the person") {
		t.Errorf("exit %d %s", code, errOut)
	}
	out, _, _ = howl(t, "tools")
	if !strings.Contains(out, "tools switched off") || !strings.Contains(out, "echo") {
		t.Errorf("howl tools must say what is off:\n%s", out)
	}
}

// A server or a switch written twice in a config is refused, file
// unchanged, and the error names it: the loader keeps the last of them,
// and the edit used to land in the first, print it as done, and leave
// the server (or its tools) on.
func TestMCPDisableRefusesANameWrittenTwice(t *testing.T) {
	home := isolate(t)
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	for _, c := range []struct{ file, args, field string }{
		{`{"mcpServers": {"fs": {"command": "decoy"}, "fs": {"command": "real-fs"}}}`, "fs", "mcpServers.fs"},
		{`{"mcpServers": {"fs": {"command": "x", "disabledTools": [], "disabledTools": []}}}`, "fs delete_*", "mcpServers.fs.disabledTools"},
	} {
		os.WriteFile(userConfig(home), []byte(c.file), 0o600)
		_, errOut, code := howl(t, append([]string{"mcp", "disable"}, strings.Fields(c.args)...)...)
		data, _ := os.ReadFile(userConfig(home))
		if code == 0 || string(data) != c.file || !strings.Contains(errOut, c.field) || !strings.Contains(errOut, "more than once") {
			t.Errorf("disable %s in %s: exit %d\n%s\nfile now: %s", c.args, c.file, code, errOut, data)
		}
	}
}
