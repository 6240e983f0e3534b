package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// lintJSON runs `howl lint --json` with args and decodes its report.
func lintJSON(t *testing.T, wantCode int, args ...string) lintOutput {
	t.Helper()
	out, errOut, code := howl(t, append([]string{"lint", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d\nstdout %.2000s\nstderr %s", code, wantCode, out, errOut)
	}
	if !strings.HasPrefix(out, "{\n  \"coverage\":") {
		t.Errorf("coverage does not lead: %.80s", out)
	}
	var rep lintOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// lintPin is what one server's lint must find: counts per severity and
// per rule.
type lintPin struct {
	errors, warnings, info int
	byRule                 map[string]int
}

func checkLintPins(t *testing.T, rep lintOutput, pins map[string]lintPin) {
	t.Helper()
	if len(rep.Servers) != len(pins) {
		t.Fatalf("%d servers linted, want %d: %s", len(rep.Servers), len(pins), rep.Coverage)
	}
	for _, s := range rep.Servers {
		pin, ok := pins[s.Server]
		if !ok {
			t.Errorf("unexpected server %q", s.Server)
			continue
		}
		t.Logf("%s", s.Coverage)
		if s.State != mcp.StateReady || s.Errors != pin.errors || s.Warnings != pin.warnings || s.Info != pin.info || !maps.Equal(s.ByRule, pin.byRule) {
			t.Errorf("%s: %s %s: %d errors, %d warnings, %d info, by rule %v; want %d, %d, %d, %v",
				s.Server, s.State, s.Reason, s.Errors, s.Warnings, s.Info, s.ByRule, pin.errors, pin.warnings, pin.info, pin.byRule)
		}
		for _, f := range s.Findings {
			if f.Item == "" || f.Rule == "" || f.Fix == "" {
				t.Errorf("%s: a finding without item, rule or fix: %+v", s.Server, f)
			}
		}
	}
}

// demoLintPin is the demo server's lint: its schemas are plain (optional
// arguments, defaults, no additionalProperties), which OpenAI strict mode
// would reject, and one resource is untyped on purpose.
var demoLintPin = lintPin{0, 28, 1, map[string]int{
	mcp.RuleResourceMIME: 1, mcp.RuleStrictAdditional: 15, mcp.RuleStrictKeyword: 6, mcp.RuleStrictRequired: 7}}

func TestLintOfTheDemoFindsWhatStrictModeWouldRejectAndExitsZero(t *testing.T) {
	isolate(t)
	rep := lintJSON(t, exitOK, "demo")
	checkLintPins(t, rep, map[string]lintPin{"demo": demoLintPin})

	out, _, code := howl(t, "lint", "demo", "--severity", "warning")
	if code != exitOK || !strings.Contains(out, "warning tool add_note [strict-keyword]: keywords OpenAI strict mode rejects at /title: minLength, /title: maxLength") ||
		!strings.Contains(out, "fix: remove them and say the constraint in the description") || !strings.Contains(out, "(1 findings below warning not shown)") {
		t.Errorf("exit %d; the text report does not name item, rule, where and fix:\n%.3000s", code, out)
	}
}

func TestLintExitsOneOnErrorFindingsAndStaysBoundedOnHostileSchemas(t *testing.T) {
	useSchemasFixture(t)
	out, errOut, code := howl(t, "lint", "schemas")
	t.Logf("%d bytes of stdout: %.1500s", len(out), out)
	if code != exitServer || !strings.Contains(errOut, "lint found 2 errors") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"error   tool exponential [schema-invalid]: tool \"exponential\"'s inputSchema expands to more than 10000 nodes",
		"error   tool huge-tool-xxx", "[tool-name-chars]: the name is 1048586 characters, over MCP's 128", "[declaration-size]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	if len(out) > 16<<10 {
		t.Errorf("the report is %d bytes over a megabyte tool name and a 200000-value enum: not bounded", len(out))
	}
	rep := lintJSON(t, exitServer, "schemas")
	if rep.Errors != 2 || rep.Servers[0].ByRule[mcp.RuleSchemaInvalid] != 1 {
		t.Errorf("json counts %+v %v", rep.LintCounts, rep.Servers[0].ByRule)
	}
}

func TestLintRulesListsEveryRuleWithItsSeverity(t *testing.T) {
	isolate(t)
	out, _, code := howl(t, "lint", "--rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range mcp.LintRules {
		if !strings.Contains(out, r.ID) {
			t.Errorf("--rules does not list %s", r.ID)
		}
	}
	if _, errOut, code := howl(t, "lint", "--severity", "loud"); code != exitUsage || !strings.Contains(errOut, `unknown severity "loud": use error, warning or info`) {
		t.Errorf("a bad --severity: exit %d %q", code, errOut)
	}
}

// TestInteropLintPinsTheReferenceServersAndTheDemo lints the four pinned
// reference servers and the demo in one run (no SERVER: every server in
// the config) and pins every count.
func TestInteropLintPinsTheReferenceServersAndTheDemo(t *testing.T) {
	nm := os.Getenv("HOWL_INTEROP_DIR")
	if nm == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./cmd/howl -run Interop")
	}
	dir := isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := func(pkg string) string { return filepath.Join(nm, pkg, "dist", "index.js") }
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {
		"demo": {"command": %q, "args": ["demo-server"]},
		"everything": {"command": "node", "args": [%q, "stdio"]},
		"everything2025": {"command": "node", "args": [%q, "stdio"]},
		"filesystem": {"command": "node", "args": [%q, %q]},
		"memory": {"command": "node", "args": [%q], "env": {"MEMORY_FILE_PATH": %q}}}}`,
		exe, script("@modelcontextprotocol/server-everything"), script("server-everything-2025"),
		script("@modelcontextprotocol/server-filesystem"), dir, script("@modelcontextprotocol/server-memory"), filepath.Join(dir, "memory.jsonl"))), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOWL_CONFIG", cfg)
	rep := lintJSON(t, exitOK)
	checkLintPins(t, rep, map[string]lintPin{
		"demo": demoLintPin,
		// Plain zod schemas: defaults, optional arguments, format uri.
		"everything": {0, 32, 2, map[string]int{mcp.RuleParameterDesc: 2, mcp.RuleStrictAdditional: 16, mcp.RuleStrictFormat: 2,
			mcp.RuleStrictKeyword: 7, mcp.RuleStrictRequired: 7}},
		// The 2025 release sets additionalProperties false but has no
		// annotations at all.
		"everything2025": {0, 11, 13, map[string]int{mcp.RuleAnnotationsMissing: 13, mcp.RuleStrictAdditional: 1, mcp.RuleStrictFormat: 1,
			mcp.RuleStrictKeyword: 5, mcp.RuleStrictRequired: 4}},
		// Its destructive tools are annotated; its paths are undescribed.
		"filesystem": {0, 24, 12, map[string]int{mcp.RuleParameterDesc: 12, mcp.RuleStrictAdditional: 14, mcp.RuleStrictKeyword: 4,
			mcp.RuleStrictRequired: 6}},
		"memory": {0, 9, 4, map[string]int{mcp.RuleParameterDesc: 4, mcp.RuleStrictAdditional: 9}},
	})
	if want := "linted 5 of 5 servers: 0 errors, 104 warnings, 32 info"; rep.Coverage != want {
		t.Errorf("coverage %q, want %q", rep.Coverage, want)
	}
}
