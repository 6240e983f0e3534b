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

// placeClients puts a fixture of each client's documented config where
// that client keeps it, in an isolated home (<home>/config is the
// platform config dir there, <home>/work the project).
func placeClients(t *testing.T, home string) {
	t.Helper()
	wd, _ := os.Getwd()
	put := func(fixture, dst string, replace ...string) {
		data, err := os.ReadFile(filepath.Join(sourceDir, "testdata", "import", fixture))
		if err != nil {
			t.Fatal(err)
		}
		if len(replace) == 2 {
			data = bytes.ReplaceAll(data, []byte(replace[0]), []byte(replace[1]))
		}
		os.MkdirAll(filepath.Dir(dst), 0o700)
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put("claude_desktop_config.json", filepath.Join(home, "config", "Claude", "claude_desktop_config.json"))
	put("claude.json", filepath.Join(home, ".claude.json"), "WORKDIR", wd)
	put("vscode-mcp.json", filepath.Join(home, "config", "Code", "User", "mcp.json"))
	put("cursor-mcp.json", filepath.Join(home, ".cursor", "mcp.json"))
}

// sourceDir is cmd/howl, read before any test moves to its own directory.
var sourceDir, _ = os.Getwd()

func importRun(t *testing.T, args ...string) (importReport, string, int) {
	t.Helper()
	out, errOut, code := howl(t, append([]string{"mcp", "import", "--json"}, args...)...)
	var rep importReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	return rep, errOut, code
}

func byName(rep importReport) map[string]mcp.ImportEntry {
	m := map[string]mcp.ImportEntry{}
	for _, e := range rep.Servers {
		if _, dup := m[e.Name]; !dup {
			m[e.Name] = e
		}
	}
	return m
}

func TestImportFindsEveryClientsDocumentedConfigAndDryRunChangesNothing(t *testing.T) {
	home := isolate(t)
	placeClients(t, home)
	rep, _, code := importRun(t, "--dry-run")
	if code != 0 || rep.Added {
		t.Fatalf("exit %d %+v", code, rep)
	}
	got := byName(rep)
	for _, name := range []string{"filesystem", "weather", "sentry", "airtable", "local-db", "perplexity", "github", "remote-tools", "broken"} {
		if _, ok := got[name]; !ok {
			t.Errorf("%s was not found: %+v", name, rep.Servers)
		}
	}
	if _, ok := got["elsewhere"]; ok {
		t.Errorf("another project's Claude Code servers are not this project's")
	}
	if e := got["perplexity"]; !strings.Contains(e.Problem, "${input:perplexity-key}") || e.Skip != "" {
		t.Errorf("a VS Code input is imported and reported as needing a value: %+v", e)
	}
	if e := got["broken"]; e.Skip != "invalid" || !strings.Contains(e.Problem, `did you mean "command"`) {
		t.Errorf("broken = %+v", e)
	}
	clashes := 0
	for _, e := range rep.Servers {
		if e.Name == "filesystem" && e.Skip == "clash" {
			clashes++
		}
	}
	if clashes != 1 {
		t.Errorf("Cursor's filesystem clashes with Claude Desktop's: %+v", rep.Servers)
	}
	if _, err := os.Stat(userConfig(home)); err == nil {
		t.Errorf("--dry-run wrote a config")
	}
	out, _, _ := howl(t, "mcp", "import", "--dry-run")
	if !strings.Contains(out, "it runs npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop") || !strings.Contains(out, "clash:") {
		t.Errorf("the dry run must say what each would run and what clashes:\n%s", out)
	}
}

func TestImportAddsOnlyWithYesKeepsClashingEntriesAndMarksWhereFrom(t *testing.T) {
	home := isolate(t)
	placeClients(t, home)
	mine := "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"my-github\"}\n  }\n}\n"
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	os.WriteFile(userConfig(home), []byte(mine), 0o600)

	_, errOut, code := importRun(t, "--from", "vscode")
	if code != exitUsage || !strings.Contains(errOut, "pass --yes") {
		t.Fatalf("without --yes and no terminal, nothing is added: exit %d", code)
	}
	if data, _ := os.ReadFile(userConfig(home)); string(data) != mine {
		t.Fatalf("the config changed without --yes:\n%s", data)
	}
	rep, _, code := importRun(t, "--from", "vscode", "--yes")
	if code != 0 || !rep.Added {
		t.Fatalf("exit %d %+v", code, rep)
	}
	if e := byName(rep)["github"]; e.Skip != "clash" {
		t.Errorf("VS Code's github clashes with the person's: %+v", e)
	}
	data, _ := os.ReadFile(userConfig(home))
	if !strings.HasPrefix(string(data), "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"my-github\"},\n    \"perplexity\": {") {
		t.Errorf("the person's entry must stay as written, the import go after it:\n%s", data)
	}
	vscodeFile := filepath.Join(home, "config", "Code", "User", "mcp.json")
	out, _, _ := howl(t, "mcp", "list", "--json")
	var l mcpListReport
	json.Unmarshal([]byte(out), &l)
	for _, v := range l.Servers {
		switch v.Name {
		case "github":
			if v.Source != "user" {
				t.Errorf("github = %+v", v)
			}
		case "perplexity":
			if v.Source != "imported" || v.ImportedFrom != vscodeFile || v.State != "needs attention" {
				t.Errorf("perplexity = %+v", v)
			}
		}
	}
	rep, _, code = importRun(t, "--from", "vscode", "--yes")
	if code != 0 || rep.Added || byName(rep)["perplexity"].Skip != "same" {
		t.Errorf("importing again adds nothing: exit %d %+v", code, rep)
	}
}

func TestImportFromClaudeCodeReadsTheUsersAndThisProjectsServers(t *testing.T) {
	home := isolate(t)
	placeClients(t, home)
	rep, _, code := importRun(t, "--from", "claude-code", "--yes")
	if code != 0 || !rep.Added {
		t.Fatalf("exit %d %+v", code, rep)
	}
	cfg, err := mcp.LoadConfig(mcp.LoadOptions{Path: userConfig(home), Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Names(), ","); got != "airtable,local-db,sentry" {
		t.Errorf("servers = %s", got)
	}
	db, _ := cfg.Server("local-db")
	if db.Args[3] != "postgresql://localhost/dev" || !strings.Contains(db.ImportedFrom, "(projects.") {
		t.Errorf("local-db = %+v", db)
	}
}

func TestImportFromAFileNamesItsProblems(t *testing.T) {
	isolate(t)
	os.WriteFile("other.json", []byte(`{"mcpServers": {"x": {"command": "y"}, "z": {"url": "ftp://nope"}}}`), 0o600)
	rep, _, code := importRun(t, "--from", "other.json", "--dry-run")
	if code != 0 || byName(rep)["z"].Skip != "invalid" || byName(rep)["x"].Skip != "" {
		t.Errorf("exit %d %+v", code, rep)
	}
	_, errOut, code := howl(t, "mcp", "import", "--from", "nope.json")
	if code != exitUsage || !strings.Contains(errOut, "claude-desktop") {
		t.Errorf("exit %d %s", code, errOut)
	}
}
