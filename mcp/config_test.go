package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseConfigReadsEveryField(t *testing.T) {
	data := `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "files": {"command": "node", "args": ["${HOME}/srv.js", "--root=${ROOT:-/tmp}"], "env": {"TOKEN": "${TOKEN}"}, "cwd": "/work", "protocol": "legacy", "startTimeout": "45s"},
    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "old": {"url": "http://127.0.0.1:9/sse", "type": "sse", "disabled": true}
  }
}`
	cfg, err := ParseConfig("c.json", []byte(data), env(map[string]string{"HOME": "/home/a", "TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Names(); strings.Join(got, ",") != "files,old,remote" {
		t.Fatalf("names = %v", got)
	}
	files, _ := cfg.Server("files")
	if files.Transport != TransportStdio || files.Command != "node" || files.Args[0] != "/home/a/srv.js" || files.Args[1] != "--root=/tmp" ||
		files.Env["TOKEN"] != "t0k" || files.Cwd != "/work" || files.Era != EraLegacy || files.StartTimeout != 45*time.Second || files.Problem != "" {
		t.Errorf("files = %+v", files)
	}
	remote, _ := cfg.Server("remote")
	if remote.Transport != TransportHTTP || remote.Headers["Authorization"] != "Bearer t0k" || remote.Era != EraAuto {
		t.Errorf("remote = %+v", remote)
	}
	old, _ := cfg.Server("old")
	if old.Transport != TransportSSE || !old.Disabled {
		t.Errorf("old = %+v", old)
	}
	if n := len(cfg.Enabled()); n != 2 {
		t.Errorf("enabled = %d, want 2", n)
	}
}

func TestParseConfigRejectsBadFilesWithPositionFieldAndFix(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", []string{"c.json:3:", "invalid JSON", "comma"}},
		{"truncated", `{"mcpServers": {"a": {"command": "x"`, []string{"c.json", "invalid JSON"}},
		{"no mcpServers", `{"servers_": {}}`, []string{"mcpServers", "missing"}},
		{"typo field", "{\"mcpServers\": {\n \"a\": {\"comand\": \"x\"}}}", []string{"c.json:2:", "mcpServers.a.comand", "unknown field", `did you mean "command"`}},
		{"wrong type", `{"mcpServers": {"a": {"command": "x", "args": "one two"}}}`, []string{"args", "expected []string"}},
		{"neither", `{"mcpServers": {"a": {"env": {}}}}`, []string{"mcpServers.a", "neither command nor url", "add \"command\""}},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, []string{"both command and url", "not both"}},
		{"bad type", `{"mcpServers": {"a": {"url": "http://h/mcp", "type": "websocket"}}}`, []string{"mcpServers.a.type", `"websocket"`, `"sse"`}},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h"}}}`, []string{"mcpServers.a.url", "not an http(s) URL"}},
		{"bad protocol", `{"mcpServers": {"a": {"command": "x", "protocol": "2024"}}}`, []string{"protocol", `"legacy"`}},
		{"bad timeout", `{"mcpServers": {"a": {"command": "x", "startTimeout": "soon"}}}`, []string{"startTimeout", `"30s"`}},
		{"empty command", `{"mcpServers": {"a": {"command": " "}}}`, []string{"command", "is empty"}},
		{"not an object", `[]`, []string{"c.json", "expected"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("c.json", []byte(c.data), env(nil))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestUnsetVariableFailsOnlyThatServer(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"mcpServers": {"a": {"command": "x", "env": {"K": "${MISSING}"}}, "b": {"command": "y"}}}`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cfg.Server("a")
	if !strings.Contains(a.Problem, "MISSING is not set") || !strings.Contains(a.Problem, "${MISSING:-default}") {
		t.Errorf("problem = %q", a.Problem)
	}
	b, _ := cfg.Server("b")
	if b.Problem != "" {
		t.Errorf("b problem = %q", b.Problem)
	}
}

func TestExpand(t *testing.T) {
	e := env(map[string]string{"A": "1", "EMPTY": ""})
	cases := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}", "1", ""},
		{"x${A}y${A}", "x1y1", ""},
		{"${B:-two}", "two", ""},
		{"${EMPTY:-d}", "d", ""},
		{"${EMPTY}", "", ""},
		{"$A and $${A}", "$A and ${A}", ""},
		{"${B}", "", "B is not set"},
		{"${A", "", "unclosed"},
		{"${1A}", "", "not a variable name"},
	}
	for _, c := range cases {
		got, err := Expand(c.in, e)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Expand(%q) err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestConfigLookupOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) string {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(`{"mcpServers": {"`+strings.ReplaceAll(p, "/", "_")+`": {"command": "x"}}}`), 0o644)
		return full
	}
	user := write("user/howl/mcp.json")
	local := write("work/.mcp.json")
	envFile := write("env.json")
	flag := write("flag.json")
	opts := LoadOptions{WorkDir: filepath.Join(dir, "work"), UserConfigDir: filepath.Join(dir, "user"), Getenv: env(map[string]string{"HOWL_CONFIG": envFile}), Path: flag, Trust: NewTrustStore(filepath.Join(dir, "trust.json"))}
	check := func(want ...string) {
		t.Helper()
		cands, err := findConfigs(opts)
		var got []string
		for _, c := range cands {
			got = append(got, c.path)
		}
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("findConfigs = %q, %v; want %q", got, err, want)
		}
	}
	// --config and $HOWL_CONFIG name exactly one file; without them the
	// user's own file and the project's are both read, the user's first.
	check(flag)
	opts.Path = ""
	check(envFile)
	opts.Getenv = env(nil)
	check(user, local)
	os.Remove(local)
	check(user)
	os.Remove(user)
	write("work/.mcp.json")
	check(local)
	os.Remove(local)
	check()
	cfg, err := LoadConfig(LoadOptions{WorkDir: filepath.Join(dir, "work"), UserConfigDir: filepath.Join(dir, "user"), Getenv: env(nil), Demo: ServerConfig{Name: "demo", Command: "howl", Args: []string{"demo-server"}}})
	if err != nil || len(cfg.Servers) != 1 || cfg.Servers[0].Name != "demo" || cfg.Source != "" {
		t.Errorf("no config should mean the demo server, got %+v, %v", cfg, err)
	}
	if _, err := FindConfig(LoadOptions{Path: filepath.Join(dir, "missing.json")}); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("missing --config file: err = %v", err)
	}
}

func TestServerEntryRootsAreItsOwnAndEmptyMeansNone(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"mcpServers":{
		"a":{"command":"x","roots":["${DIR}/notes"]},
		"b":{"command":"x","roots":[]},
		"c":{"command":"x"}}}`), env(map[string]string{"DIR": "/home/p"}))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cfg.Server("a")
	b, _ := cfg.Server("b")
	c, _ := cfg.Server("c")
	if !a.OwnRoots || len(a.Roots) != 1 || a.Roots[0] != "/home/p/notes" {
		t.Errorf("a: %v %v", a.OwnRoots, a.Roots)
	}
	if !b.OwnRoots || len(b.Roots) != 0 {
		t.Errorf("b: [] offers none: %v %v", b.OwnRoots, b.Roots)
	}
	if c.OwnRoots {
		t.Errorf("c: no roots key means the runtime's")
	}
	if _, err := ParseConfig("c.json", []byte(`{"mcpServers":{"a":{"command":"x","roots":[""]}}}`), env(nil)); err == nil || !strings.Contains(err.Error(), "roots[0] is empty") {
		t.Errorf("an empty root must be an error that teaches: %v", err)
	}
}

// vscodeConfig is VS Code's mcp.json as its documentation writes it:
// "servers" with a type per entry, and "inputs" VS Code prompts for.
const vscodeConfig = `{
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    },
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": {"HOME_DIR": "${env:HOME}"}},
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
    "legacy": {"type": "sse", "url": "https://old.example/sse", "envFile": "${workspaceFolder}/.env"}
  }
}`

func TestParseConfigLoadsVSCodesServersShape(t *testing.T) {
	cfg, err := ParseConfig("mcp.json", []byte(vscodeConfig), env(map[string]string{"HOME": "/home/a"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Names(), ","); got != "Perplexity,fetch,github,legacy" {
		t.Fatalf("names = %s", got)
	}
	if _, ok := cfg.Extra["inputs"]; ok {
		t.Errorf("VS Code's inputs are not a howl setting: %v", cfg.Extra)
	}
	p, _ := cfg.Server("Perplexity")
	if p.Transport != TransportStdio || !strings.Contains(p.Problem, "${input:perplexity-key}") || !strings.Contains(p.Problem, "needs a value") {
		t.Errorf("an ${input:...} must be reported as needing a value: %+v", p)
	}
	f, _ := cfg.Server("fetch")
	if f.Env["HOME_DIR"] != "/home/a" || f.Problem != "" {
		t.Errorf("${env:VAR} must expand: %+v", f)
	}
	g, _ := cfg.Server("github")
	if g.Transport != TransportHTTP || g.Problem != "" {
		t.Errorf("github = %+v", g)
	}
	l, _ := cfg.Server("legacy")
	if l.Transport != TransportSSE || !strings.Contains(l.Problem, "envFile") {
		t.Errorf("legacy = %+v", l)
	}
}

func TestDisabledToolsAreReadAndBadGlobsTeach(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"mcpServers": {"a": {"command": "x", "disabledTools": ["write_file", "delete_*"]}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cfg.Server("a")
	if !ToolOff(a.DisabledTools, "delete_all") || !ToolOff(a.DisabledTools, "write_file") || ToolOff(a.DisabledTools, "read_file") {
		t.Errorf("disabledTools = %v", a.DisabledTools)
	}
	_, err = ParseConfig("c.json", []byte(`{"mcpServers": {"a": {"command": "x", "disabledTools": ["[oops"]}}}`), nil)
	if err == nil || !strings.Contains(err.Error(), "disabledTools[0]") || !strings.Contains(err.Error(), "write_*") {
		t.Errorf("err = %v", err)
	}
}
