package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/mcptest"
)

// lintItems builds a catalog from raw listed items, as ListCatalog does.
func lintItems(t *testing.T, kind Kind, raws ...string) *Catalog {
	t.Helper()
	cat := &Catalog{Server: "s", Listed: []Kind{kind}}
	for _, raw := range raws {
		it, err := parseItem("s", kind, json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		cat.Items = append(cat.Items, it)
	}
	cat.dedupe()
	return cat
}

// cleanTool passes every rule: described, annotated, a strict-mode schema.
const cleanTool = `{"name": "add_note", "description": "Add a note.",
	"annotations": {"readOnlyHint": false, "destructiveHint": false},
	"inputSchema": {"type": "object", "additionalProperties": false, "required": ["title", "tags"],
		"properties": {"title": {"type": "string", "description": "The title."},
			"tags": {"type": "array", "description": "Tags.", "items": {"type": "string", "format": "uuid"}}}}}`

func rulesOf(rep LintReport) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule)
	}
	return out
}

func TestLintPassesACleanToolAndFlagsEachRuleOnItsOwnBreakage(t *testing.T) {
	if rep := Lint(lintItems(t, KindTool, cleanTool)); len(rep.Findings) != 0 {
		t.Fatalf("a clean tool has findings: %+v", rep.Findings)
	}
	// tool wraps a schema into an otherwise clean tool.
	tool := func(name, schema string) string {
		return fmt.Sprintf(`{"name": %q, "description": "Does it.", "annotations": {"readOnlyHint": true}, "inputSchema": %s}`, name, schema)
	}
	obj := func(props string, extra string) string {
		return fmt.Sprintf(`{"type": "object", "additionalProperties": false, "properties": {%s}%s}`, props, extra)
	}
	cases := []struct {
		rule  string
		kind  Kind
		items []string
		where string // one of the finding's locations, when it has any
	}{
		{RuleToolNameChars, KindTool, []string{tool("add note", obj("", ""))}, ""},
		{RuleToolNamePortable, KindTool, []string{tool("notes.add", obj("", ""))}, ""},
		{RuleToolNamePortable, KindTool, []string{tool(strings.Repeat("a", 65), obj("", ""))}, ""},
		{RuleDuplicateName, KindTool, []string{tool("x", obj("", "")), tool("x", obj("", ""))}, ""},
		{RuleSchemaMissing, KindTool, []string{`{"name": "x", "description": "d", "annotations": {"readOnlyHint": true}}`}, ""},
		{RuleSchemaInvalid, KindTool, []string{tool("x", `{"type": "object", "additionalProperties": false, "properties": {"a": {"type": 7}}}`)}, ""},
		{RuleSchemaRootObject, KindTool, []string{tool("x", `{"type": "string"}`)}, ""},
		{RuleSchemaRootObject, KindTool, []string{tool("x", `{"additionalProperties": false, "properties": {}}`)}, ""},
		{RuleSchemaRootComposed, KindTool, []string{tool("x", `{"type": "object", "additionalProperties": false, "anyOf": [{"required": ["a"]}]}`)}, ""},
		{RuleArrayItems, KindTool, []string{tool("x", obj(`"a": {"type": "array", "description": "A."}`, `, "required": ["a"]`))}, "/a"},
		{RuleRefUnresolved, KindTool, []string{tool("x", obj(`"a": {"$ref": "https://example.com/a.json"}`, `, "required": ["a"]`))}, `/a: "https://example.com/a.json"`},
		{RuleRefUnresolved, KindTool, []string{tool("x", obj(`"a": {"$ref": "#/$defs/missing"}`, `, "required": ["a"]`))}, `/a: "#/$defs/missing"`},
		{RuleRefRecursive, KindTool, []string{tool("x", obj(`"a": {"$ref": "#/$defs/node"}`,
			`, "required": ["a"], "$defs": {"node": {"type": "object", "additionalProperties": false, "required": ["next"], "properties": {"next": {"$ref": "#/$defs/node"}}}}`))}, `/a/next: "#/$defs/node"`},
		{RuleStrictAdditional, KindTool, []string{tool("x", `{"type": "object", "properties": {}}`)}, "/"},
		{RuleStrictAdditional, KindTool, []string{tool("x", obj(`"a": {"type": "object", "description": "A.", "properties": {}}`, `, "required": ["a"]`))}, "/a"},
		{RuleStrictRequired, KindTool, []string{tool("x", obj(`"a": {"type": "string", "description": "A."}`, ""))}, "/a"},
		{RuleStrictKeyword, KindTool, []string{tool("x", obj(`"a": {"type": "string", "description": "A.", "default": "z"}`, `, "required": ["a"]`))}, "/a: default"},
		{RuleStrictFormat, KindTool, []string{tool("x", obj(`"a": {"type": "string", "description": "A.", "format": "uri"}`, `, "required": ["a"]`))}, `/a: "uri"`},
		{RuleStrictLimits, KindTool, []string{tool("x", nestedObjects(12))}, ""},
		{RuleRequiredUnknown, KindTool, []string{tool("x", obj("", `, "required": ["ghost"]`))}, "/ghost"},
		{RuleDescriptionMissing, KindTool, []string{`{"name": "x", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object", "additionalProperties": false}}`}, ""},
		{RuleDescriptionMissing, KindPrompt, []string{`{"name": "p"}`}, ""},
		{RuleDescriptionTooLong, KindTool, []string{fmt.Sprintf(`{"name": "x", "description": %q, "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object", "additionalProperties": false}}`, strings.Repeat("é", LintMaxDescription+1))}, ""},
		{RuleParameterDesc, KindTool, []string{tool("x", obj(`"a": {"type": "string"}`, `, "required": ["a"]`))}, "a"},
		{RuleParameterDesc, KindPrompt, []string{`{"name": "p", "description": "P.", "arguments": [{"name": "city"}]}`}, "city"},
		{RuleDestructiveUnmarked, KindTool, []string{`{"name": "delete_file", "description": "D.", "inputSchema": {"type": "object", "additionalProperties": false}}`}, ""},
		{RuleDestructiveUnmarked, KindTool, []string{tool("removeEntity", obj("", ""))}, ""}, // readOnlyHint true
		{RuleDestructiveUnmarked, KindTool, []string{`{"name": "drop-table", "description": "D.", "annotations": {"readOnlyHint": false}, "inputSchema": {"type": "object", "additionalProperties": false}}`}, ""},
		{RuleAnnotationsMissing, KindTool, []string{`{"name": "x", "description": "D.", "inputSchema": {"type": "object", "additionalProperties": false}}`}, ""},
		{RuleTemplateLevel, KindTemplate, []string{`{"name": "t", "description": "T.", "uriTemplate": "file:///{+path}{?q,lang}", "mimeType": "text/plain"}`}, "{?q,lang}"},
		{RuleTemplateInvalid, KindTemplate, []string{`{"name": "t", "description": "T.", "uriTemplate": "file:///{path"}`}, ""},
		{RuleTemplateInvalid, KindTemplate, []string{`{"name": "t", "description": "T.", "uriTemplate": "file:///{a b}"}`}, "{a b}"},
		{RuleDeclarationSize, KindTool, []string{tool("x", obj(`"a": {"type": "string", "description": "A.", "enum": [`+strings.Repeat(`"abcdefgh",`, 1000)+`"z"]}`, `, "required": ["a"]`))}, ""},
		{RuleResourceMIME, KindResource, []string{`{"name": "r", "uri": "file:///r"}`}, ""},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			rep := Lint(lintItems(t, c.kind, c.items...))
			i := slices.IndexFunc(rep.Findings, func(f LintFinding) bool { return f.Rule == c.rule })
			if i < 0 {
				t.Fatalf("%s not found; findings %v", c.rule, rulesOf(rep))
			}
			f := rep.Findings[i]
			if f.Severity != lintRule(c.rule).Severity && !(c.kind == KindTemplate && f.Severity == LintInfo) {
				t.Errorf("severity %s, the rule says %s", f.Severity, lintRule(c.rule).Severity)
			}
			if f.Item == "" || f.Fix == "" || f.Message == "" {
				t.Errorf("a finding must name the item, the rule and the fix: %+v", f)
			}
			if c.where != "" && !slices.Contains(f.Where, c.where) {
				t.Errorf("where = %q, want it to include %q", f.Where, c.where)
			}
		})
	}
}

// nestedObjects is an object schema with n levels of nested objects.
func nestedObjects(n int) string {
	s := `{"type": "string", "description": "leaf"}`
	for range n {
		s = fmt.Sprintf(`{"type": "object", "description": "level", "additionalProperties": false, "required": ["c"], "properties": {"c": %s}}`, s)
	}
	return s
}

func TestLintCountsBySeverityAndRuleAndSaysItsCoverageFirst(t *testing.T) {
	cat := lintItems(t, KindTool, cleanTool, `{"name": "a b", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}`)
	rep := Lint(cat)
	if rep.Errors != 1 || rep.ByRule[RuleToolNameChars] != 1 || rep.ByRule[RuleStrictAdditional] != 1 {
		t.Errorf("counts %+v by rule %v", rep.LintCounts, rep.ByRule)
	}
	if rep.Findings[0].Severity != LintError {
		t.Errorf("the worst finding is not first: %v", rulesOf(rep))
	}
	const want = "s: linted 2 tools: 1 errors, 3 warnings, 2 info"
	if rep.Coverage != want {
		t.Errorf("coverage %q, want %q", rep.Coverage, want)
	}
	b, _ := json.Marshal(rep)
	if !strings.HasPrefix(string(b), `{"coverage":`) {
		t.Errorf("coverage does not lead: %.60s", b)
	}
}

// The hostile schemas: an exponential $ref tree and a megabyte tool name
// lint in bounded work, and every finding quotes a bounded name.
func TestLintBoundsItsWorkAndItsQuotesOnHostileDeclarations(t *testing.T) {
	raw := func(name string, schema json.RawMessage) string {
		b, _ := json.Marshal(map[string]any{"name": name, "description": "d", "inputSchema": schema})
		return string(b)
	}
	cat := lintItems(t, KindTool, raw("exponential", mcptest.ExponentialSchema(22)), raw(mcptest.HugeToolName, json.RawMessage(`{"type": "object"}`)),
		raw("enum", mcptest.EnumSchema()))
	rep := Lint(cat)
	for _, rule := range []string{RuleSchemaInvalid, RuleStrictLimits, RuleToolNameChars, RuleDeclarationSize} {
		if rep.ByRule[rule] == 0 {
			t.Errorf("no %s finding: %v", rule, rep.ByRule)
		}
	}
	for _, f := range rep.Findings {
		if len(f.Item) > 4*lintMaxName || len(f.Message) > 1000 || len(f.Where) > LintMaxWhere+1 {
			t.Errorf("an unbounded finding: item %d bytes, message %d bytes, %d locations", len(f.Item), len(f.Message), len(f.Where))
		}
	}
}

func TestCatalogKeepsTheDuplicatesItSkipsForLint(t *testing.T) {
	cat := lintItems(t, KindPrompt, `{"name": "p", "description": "one"}`, `{"name": "p", "description": "two"}`)
	if len(cat.Items) != 1 || len(cat.Duplicates) != 1 || cat.Duplicates[0].Description != "two" {
		t.Fatalf("items %d, duplicates %+v", len(cat.Items), cat.Duplicates)
	}
	rep := Lint(cat)
	if rep.ByRule[RuleDuplicateName] != 1 || rep.Errors != 1 {
		t.Errorf("by rule %v", rep.ByRule)
	}
}

func TestLintRulesAreUniqueAndEachHasWhyAndFix(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range LintRules {
		if seen[r.ID] || r.Why == "" || r.Fix == "" || r.Applies == "" {
			t.Errorf("rule %+v: duplicate or incomplete", r)
		}
		seen[r.ID] = true
	}
}

// BenchmarkLintThousandTools lints a catalog of 1000 tools like
// server-filesystem's edit_file (nested objects, defaults, optional
// arguments), plus the exponential $ref schema once.
func BenchmarkLintThousandTools(b *testing.B) {
	const tool = `{"name": "edit_file_%d", "description": "Make line-based edits to a text file.",
		"annotations": {"readOnlyHint": false, "destructiveHint": true},
		"inputSchema": {"type": "object", "required": ["path", "edits"], "properties": {
			"path": {"type": "string"},
			"edits": {"type": "array", "items": {"type": "object", "required": ["oldText", "newText"], "properties": {
				"oldText": {"type": "string", "description": "Text to search for"},
				"newText": {"type": "string", "description": "Text to replace with"}}}},
			"dryRun": {"type": "boolean", "default": false, "description": "Preview changes"}}}}`
	cat := &Catalog{Server: "bench", Listed: []Kind{KindTool}}
	for i := range 1000 {
		it, err := parseItem("bench", KindTool, json.RawMessage(fmt.Sprintf(tool, i)))
		if err != nil {
			b.Fatal(err)
		}
		cat.Items = append(cat.Items, it)
	}
	exp, _ := json.Marshal(map[string]any{"name": "exponential", "description": "d", "inputSchema": mcptest.ExponentialSchema(22)})
	it, _ := parseItem("bench", KindTool, exp)
	cat.Items = append(cat.Items, it)
	cat.buildIndex()
	b.ReportAllocs()
	for b.Loop() {
		if rep := Lint(cat); rep.Warnings == 0 {
			b.Fatal("no findings")
		}
	}
}
