package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/howl-mcp/howl/render"
)

// LintSeverity says how bad a lint finding is.
type LintSeverity string

// The severities, worst first. An error is a declaration a model provider
// rejects as written (in its default mode) or that breaks MCP itself; a
// warning is one a provider's strict mode rejects, or that clients or
// models silently change or misread; info is worth knowing.
const (
	LintError   LintSeverity = "error"
	LintWarning LintSeverity = "warning"
	LintInfo    LintSeverity = "info"
)

// Rank orders severities: error 0, warning 1, info 2.
func (s LintSeverity) Rank() int {
	switch s {
	case LintError:
		return 0
	case LintWarning:
		return 1
	}
	return 2
}

// ParseLintSeverity reads error, warning or info.
func ParseLintSeverity(s string) (LintSeverity, error) {
	switch v := LintSeverity(strings.ToLower(strings.TrimSpace(s))); v {
	case LintError, LintWarning, LintInfo:
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// The bounds and thresholds of the lint.
const (
	// LintMaxDescription is the longest tool description OpenAI accepts
	// (tools[].function.description: "string too long. Expected a string
	// with maximum length 1024").
	LintMaxDescription = 1024
	// LintMaxFunctionName is the longest function name OpenAI and
	// Anthropic accept (^[a-zA-Z0-9_-]{1,64}$).
	LintMaxFunctionName = 64
	// LintMaxStrictDepth is OpenAI strict mode's limit on nested objects.
	LintMaxStrictDepth = 10
	// LintMaxStrictProperties is OpenAI strict mode's limit on object
	// properties in one schema.
	LintMaxStrictProperties = 5000
	// LintMaxDeclarationBytes is the size over which one tool's
	// declaration (name, description, input schema) is flagged: every
	// request that offers the tool to a model carries it (8 KiB is about
	// 2000 tokens).
	LintMaxDeclarationBytes = 8 << 10
	// LintMaxCatalogBytes is the size over which all of a server's tool
	// declarations together are flagged (64 KiB is about 16000 tokens).
	LintMaxCatalogBytes = 64 << 10
	// LintMaxWhere bounds the schema locations one finding lists; the
	// rest are counted.
	LintMaxWhere = 12
	// lintMaxName bounds how much of a server's item name a finding quotes.
	lintMaxName = 120
)

// LintRule is one check: its id, severity, who it protects, and the fix.
type LintRule struct {
	ID       string       `json:"id"`
	Severity LintSeverity `json:"severity"`
	Applies  string       `json:"applies"`
	Why      string       `json:"why"`
	Fix      string       `json:"fix"`
}

// The rules' ids.
const (
	RuleToolNameChars       = "tool-name-chars"
	RuleToolNamePortable    = "tool-name-portable"
	RuleDuplicateName       = "duplicate-name"
	RuleSchemaMissing       = "schema-missing"
	RuleSchemaInvalid       = "schema-invalid"
	RuleSchemaRootObject    = "schema-root-object"
	RuleSchemaRootComposed  = "schema-root-combinator"
	RuleArrayItems          = "array-items"
	RuleRefUnresolved       = "ref-unresolved"
	RuleRefRecursive        = "ref-recursive"
	RuleStrictAdditional    = "strict-additional-properties"
	RuleStrictRequired      = "strict-required"
	RuleStrictKeyword       = "strict-keyword"
	RuleStrictFormat        = "strict-format"
	RuleStrictLimits        = "strict-limits"
	RuleRequiredUnknown     = "required-unknown"
	RuleDescriptionMissing  = "description-missing"
	RuleDescriptionTooLong  = "description-too-long"
	RuleParameterDesc       = "parameter-description"
	RuleDestructiveUnmarked = "destructive-unannotated"
	RuleAnnotationsMissing  = "annotations-missing"
	RuleTemplateLevel       = "template-level"
	RuleTemplateInvalid     = "template-invalid"
	RuleDeclarationSize     = "declaration-size"
	RuleCatalogSize         = "catalog-size"
	RuleResourceMIME        = "resource-mime-type"
)

// LintRules lists every rule, in the order findings are reported.
var LintRules = []LintRule{
	{RuleToolNameChars, LintError, "tools",
		"a tool name must be 1 to 128 of A-Z a-z 0-9 _ - . (MCP), and OpenAI and Anthropic reject function names outside ^[a-zA-Z0-9_-]{1,64}$",
		"rename the tool with letters, digits, _ and - only"},
	{RuleToolNamePortable, LintWarning, "tools",
		fmt.Sprintf("MCP allows dots and up to 128 characters, but OpenAI and Anthropic accept only ^[a-zA-Z0-9_-]{1,%d}$, so a client that offers the tool directly must rename it (and a server-name prefix makes it longer still)", LintMaxFunctionName),
		fmt.Sprintf("use _ or - instead of ., and at most %d characters (fewer leave room for a client's prefix)", LintMaxFunctionName)},
	{RuleDuplicateName, LintError, "all",
		"two items of one kind share a name: a client keeps one of them (howl the first) and a model can call the wrong one",
		"give every tool, prompt, resource URI and template a distinct name"},
	{RuleSchemaMissing, LintError, "tools",
		"MCP requires a tool's inputSchema, and Anthropic rejects a tool without input_schema",
		`declare {"type": "object"} for a tool without arguments`},
	{RuleSchemaInvalid, LintError, "tools",
		"the inputSchema is not valid JSON Schema, or too big to check: providers reject it and clients cannot validate arguments",
		fmt.Sprintf("make it compile as JSON Schema (draft 2020-12 or draft-07), and keep it under %d nodes with every $ref expanded (MaxSchemaNodes)", MaxSchemaNodes)},
	{RuleSchemaRootObject, LintError, "tools",
		`Anthropic requires input_schema "type": "object" and OpenAI function parameters must be an object`,
		`give the root "type": "object" and put the arguments in "properties"`},
	{RuleSchemaRootComposed, LintError, "tools",
		"Anthropic rejects anyOf, oneOf and allOf at the top level of input_schema, and OpenAI strict mode rejects a root that is not a plain object",
		"make the root one object whose properties cover every variant; say which go together in the description"},
	{RuleArrayItems, LintError, "tools",
		`OpenAI rejects an array schema without "items" ("array schema missing items")`,
		`add "items" with the element's schema`},
	{RuleRefUnresolved, LintError, "tools",
		"a $ref that is not a local #/... pointer to a definition in the schema: providers never fetch it and reject the schema or lose the type",
		"inline the definition, or put it under $defs and point at it with #/$defs/NAME"},
	{RuleRefRecursive, LintWarning, "tools",
		"a $ref that refers back to itself: Anthropic strict tool use rejects recursive schemas, and clients that inline $ref for providers without it (Gemini) cannot",
		"bound the recursion to a fixed depth, or take that part as a JSON string"},
	{RuleStrictAdditional, LintWarning, "tools",
		`OpenAI strict mode (and Anthropic strict tool use) rejects an object schema without "additionalProperties": false`,
		`add "additionalProperties": false to every object`},
	{RuleStrictRequired, LintWarning, "tools",
		`OpenAI strict mode requires every property listed in "required"; clients that turn strict mode on must rewrite the schema`,
		`list every property in "required" and let optional ones be null ("type": ["string", "null"])`},
	{RuleStrictKeyword, LintWarning, "tools",
		"keywords OpenAI strict mode rejects (default, minLength, maxLength, allOf, not, if/then/else, patternProperties, uniqueItems, min/maxProperties, contains, ...); non-strict providers may drop them silently",
		"remove them and say the constraint in the description (the server still checks it)"},
	{RuleStrictFormat, LintWarning, "tools",
		"OpenAI strict mode accepts only the formats date-time, time, date, duration, email, hostname, ipv4, ipv6 and uuid",
		`drop "format" or use a "pattern", and say the format in the description`},
	{RuleStrictLimits, LintWarning, "tools",
		fmt.Sprintf("OpenAI strict mode allows at most %d levels of nested objects and %d properties in one schema ($ref followed)", LintMaxStrictDepth, LintMaxStrictProperties),
		"flatten the arguments, or take deep structures as a JSON string"},
	{RuleRequiredUnknown, LintWarning, "tools",
		`"required" names a property that "properties" does not declare: OpenAI strict mode rejects it and a model is asked for an argument nothing describes`,
		`declare the property, or remove it from "required"`},
	{RuleDescriptionMissing, LintWarning, "tools, prompts",
		"a model chooses tools and a person chooses prompts by their description",
		"describe what it does, when to use it and what it returns, in a sentence or two"},
	{RuleDescriptionTooLong, LintError, "tools",
		fmt.Sprintf("OpenAI rejects a function description longer than %d characters", LintMaxDescription),
		fmt.Sprintf("shorten it to %d characters or less; move details into the parameters' descriptions", LintMaxDescription)},
	{RuleParameterDesc, LintInfo, "tools, prompts",
		"a parameter or prompt argument without a description leaves a model (or a person) to guess from its name",
		`add a "description" saying what the value is, with an example`},
	{RuleDestructiveUnmarked, LintWarning, "tools",
		`a tool whose name says it deletes, overwrites or moves, without "destructiveHint" (or marked read-only): clients decide whether to ask the person before a call from these annotations`,
		`set annotations {"readOnlyHint": false, "destructiveHint": true} (or false when it only adds)`},
	{RuleAnnotationsMissing, LintInfo, "tools",
		"a tool without annotations: by the spec's defaults clients must assume it writes, destroys and reaches the outside world",
		`set annotations readOnlyHint, destructiveHint, idempotentHint and openWorldHint`},
	{RuleTemplateLevel, LintWarning, "resource templates",
		"a URI template beyond RFC 6570 Level 1 ({+x}, {#x}, {/x}, {?x,y}, {x*}, {x:3}): clients that expand only {var} (howl among them) cannot read it",
		"use simple {var} expressions, one variable each"},
	{RuleTemplateInvalid, LintError, "resource templates",
		"the URI template does not parse: an unclosed brace or a variable name outside RFC 6570's characters",
		"close every { with }, and name variables with letters, digits, _ and ."},
	{RuleDeclarationSize, LintWarning, "tools",
		fmt.Sprintf("one tool's declaration is over %s: every model request that offers it carries it", render.HumanBytes(LintMaxDeclarationBytes)),
		"shorten the description, move long enums to a resource or a completion, and drop repeated definitions"},
	{RuleCatalogSize, LintInfo, "server",
		fmt.Sprintf("all tool declarations together are over %s: a client that offers every tool spends that in every request", render.HumanBytes(LintMaxCatalogBytes)),
		"merge similar tools, or shorten descriptions and schemas"},
	{RuleResourceMIME, LintInfo, "resources",
		"a resource without mimeType: clients guess its type from the bytes",
		`set "mimeType" (text/markdown, application/json, image/png, ...)`},
}

// lintRule returns a rule by id.
func lintRule(id string) LintRule {
	for _, r := range LintRules {
		if r.ID == id {
			return r
		}
	}
	panic("unknown lint rule " + id)
}

// LintFinding is one problem with one item: the item, the rule, what is
// wrong, where in its schema, and the fix.
type LintFinding struct {
	Severity LintSeverity `json:"severity"`
	Rule     string       `json:"rule"`
	Kind     Kind         `json:"kind,omitempty"`
	Item     string       `json:"item,omitempty"`
	Message  string       `json:"message"`
	// Where are locations in the item's input schema, as argument paths
	// ("/", "/edits[]", "/edits[].oldText"), at most LintMaxWhere.
	Where []string `json:"where,omitempty"`
	Fix   string   `json:"fix"`
}

// LintCounts counts findings per severity.
type LintCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}

// LintReport is one server's lint: coverage first, then the counts, then
// every finding, worst first.
type LintReport struct {
	Coverage string `json:"coverage"`
	Server   string `json:"server"`
	LintCounts
	// ByRule counts findings per rule id.
	ByRule   map[string]int `json:"by_rule"`
	Findings []LintFinding  `json:"findings"`
}

// Lint checks every tool, resource, template and prompt of a catalog
// against LintRules.
func Lint(cat *Catalog) LintReport {
	l := &linter{}
	var toolBytes int
	for _, d := range cat.Duplicates {
		l.add(d, RuleDuplicateName, fmt.Sprintf("%s %q is listed more than once", d.Kind, lintName(d.ID)))
	}
	for _, it := range cat.Items {
		switch it.Kind {
		case KindTool:
			toolBytes += l.tool(it)
		case KindResource:
			if it.MIMEType == "" {
				l.add(it, RuleResourceMIME, "no mimeType")
			}
		case KindTemplate:
			l.template(it)
		case KindPrompt:
			if strings.TrimSpace(it.Description) == "" {
				l.add(it, RuleDescriptionMissing, "the prompt has no description")
			}
			var bare []string
			for _, a := range it.Arguments {
				if strings.TrimSpace(a.Description) == "" {
					bare = append(bare, a.Name)
				}
			}
			if len(bare) > 0 {
				l.addWhere(it, RuleParameterDesc, fmt.Sprintf("%d of %d arguments have no description", len(bare), len(it.Arguments)), bare, len(bare))
			}
		}
	}
	if toolBytes > LintMaxCatalogBytes {
		l.add(CatalogItem{}, RuleCatalogSize, fmt.Sprintf("the %d tool declarations take %s (LintMaxCatalogBytes = %d)", cat.Count(KindTool), render.HumanBytes(int64(toolBytes)), LintMaxCatalogBytes))
	}
	return l.report(cat)
}

type linter struct {
	findings []LintFinding
}

func (l *linter) add(it CatalogItem, rule, msg string) {
	l.addWhere(it, rule, msg, nil, 0)
}

// addWhere adds a finding at the locations where (of total, which may
// be more than where holds).
func (l *linter) addWhere(it CatalogItem, rule, msg string, where []string, total int) {
	r := lintRule(rule)
	if len(where) > LintMaxWhere {
		where = where[:LintMaxWhere]
	}
	where = slices.Clone(where)
	for i, w := range where {
		where[i] = render.Ellipsize(w, lintMaxName)
	}
	if total > len(where) {
		where = append(where, fmt.Sprintf("and %d more", total-len(where)))
	}
	l.findings = append(l.findings, LintFinding{Severity: r.Severity, Rule: rule, Kind: it.Kind, Item: lintName(it.ID),
		Message: msg, Where: where, Fix: r.Fix})
}

func lintName(s string) string { return render.Ellipsize(s, lintMaxName) }

func (l *linter) report(cat *Catalog) LintReport {
	rank := map[string]int{}
	for i, r := range LintRules {
		rank[r.ID] = i
	}
	kindRank := map[Kind]int{"": -1, KindTool: 0, KindResource: 1, KindTemplate: 2, KindPrompt: 3}
	sort.SliceStable(l.findings, func(i, j int) bool {
		a, b := l.findings[i], l.findings[j]
		if a.Severity != b.Severity {
			return a.Severity.Rank() < b.Severity.Rank()
		}
		if a.Kind != b.Kind {
			return kindRank[a.Kind] < kindRank[b.Kind]
		}
		if a.Item != b.Item {
			return a.Item < b.Item
		}
		return rank[a.Rule] < rank[b.Rule]
	})
	rep := LintReport{Server: cat.Server, ByRule: map[string]int{}, Findings: l.findings}
	if rep.Findings == nil {
		rep.Findings = []LintFinding{}
	}
	for _, f := range l.findings {
		rep.ByRule[f.Rule]++
		switch f.Severity {
		case LintError:
			rep.Errors++
		case LintWarning:
			rep.Warnings++
		default:
			rep.Info++
		}
	}
	var parts []string
	for _, k := range cat.Listed {
		if slices.Contains(cat.Failed, k) {
			parts = append(parts, fmt.Sprintf("%s (listing failed: not linted)", lintPlural(k, 0)[2:]))
			continue
		}
		parts = append(parts, lintPlural(k, cat.Count(k)))
	}
	what := "nothing listed"
	if len(parts) > 0 {
		what = strings.Join(parts, ", ")
	}
	rep.Coverage = fmt.Sprintf("%s: linted %s: %d errors, %d warnings, %d info", cat.Server, what, rep.Errors, rep.Warnings, rep.Info)
	return rep
}

func lintPlural(k Kind, n int) string {
	name := strings.ReplaceAll(string(k), "_", " ")
	if n != 1 {
		name += "s"
	}
	return fmt.Sprintf("%d %s", n, name)
}

// tool checks one tool and returns the size of its declaration.
func (l *linter) tool(it CatalogItem) int {
	l.toolName(it)
	desc := strings.TrimSpace(it.Description)
	switch n := len([]rune(it.Description)); {
	case desc == "":
		l.add(it, RuleDescriptionMissing, "the tool has no description")
	case n > LintMaxDescription:
		l.add(it, RuleDescriptionTooLong, fmt.Sprintf("the description is %d characters, over %d (LintMaxDescription)", n, LintMaxDescription))
	}
	l.annotations(it)
	decl, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema,omitempty"`
	}{it.Name, it.Description, it.Schema})
	if len(decl) > LintMaxDeclarationBytes {
		l.add(it, RuleDeclarationSize, fmt.Sprintf("the declaration is %s (LintMaxDeclarationBytes = %d)", render.HumanBytes(int64(len(decl))), LintMaxDeclarationBytes))
	}
	l.schema(it)
	return len(decl)
}

func (l *linter) toolName(it CatalogItem) {
	name := it.ID
	var bad []string
	dots := false
	for _, r := range name {
		switch {
		case r == '.':
			dots = true
		case r < 0x80 && functionNameByte(byte(r)):
		default:
			if q := strconv.QuoteRune(r); !slices.Contains(bad, q) && len(bad) < 8 {
				bad = append(bad, q)
			}
		}
	}
	switch {
	case len(bad) > 0:
		l.add(it, RuleToolNameChars, "the name has characters outside A-Z a-z 0-9 _ - .: "+strings.Join(bad, " "))
	case len(name) > 128:
		l.add(it, RuleToolNameChars, fmt.Sprintf("the name is %d characters, over MCP's 128", len(name)))
	case dots && len(name) > LintMaxFunctionName:
		l.add(it, RuleToolNamePortable, fmt.Sprintf("the name has a dot and is %d characters, over %d", len(name), LintMaxFunctionName))
	case dots:
		l.add(it, RuleToolNamePortable, "the name has a dot")
	case len(name) > LintMaxFunctionName:
		l.add(it, RuleToolNamePortable, fmt.Sprintf("the name is %d characters, over %d", len(name), LintMaxFunctionName))
	}
}

// destructiveWords are the name words that say a tool destroys or
// overwrites something.
var destructiveWords = []string{"delete", "del", "remove", "rm", "drop", "destroy", "erase", "purge", "wipe",
	"truncate", "overwrite", "write", "kill", "terminate", "reset", "revoke", "uninstall", "move", "mv",
	"rename", "clear", "unlink", "replace", "prune", "clean", "shutdown", "format", "rmdir", "evict"}

// nameWords splits a tool name into lower-case words at _ - . / spaces and
// camelCase humps.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

func (l *linter) annotations(it CatalogItem) {
	var verb string
	for _, w := range nameWords(it.ID) {
		if slices.Contains(destructiveWords, w) {
			verb = w
			break
		}
	}
	a := it.Annotations
	switch {
	case verb != "" && a == nil:
		l.add(it, RuleDestructiveUnmarked, fmt.Sprintf("the name says %q and the tool has no annotations", verb))
	case verb != "" && a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		l.add(it, RuleDestructiveUnmarked, fmt.Sprintf("the name says %q but readOnlyHint is true", verb))
	case verb != "" && a.DestructiveHint == nil:
		l.add(it, RuleDestructiveUnmarked, fmt.Sprintf("the name says %q and destructiveHint is not set", verb))
	case verb == "" && a == nil:
		l.add(it, RuleAnnotationsMissing, "no annotations")
	}
}

func (l *linter) template(it CatalogItem) {
	if strings.TrimSpace(it.Description) == "" {
		// Templates are read by a person or model choosing among them too,
		// but many are self-explaining URIs: worth knowing, not a warning.
		l.findings = append(l.findings, LintFinding{Severity: LintInfo, Rule: RuleDescriptionMissing, Kind: it.Kind, Item: lintName(it.ID),
			Message: "the template has no description", Fix: lintRule(RuleDescriptionMissing).Fix})
	}
	if strings.Count(it.ID, "{") != strings.Count(it.ID, "}") {
		l.add(it, RuleTemplateInvalid, "the braces do not pair up")
		return
	}
	var beyond, badVars []string
	for _, expr := range templateExprs(it.ID) {
		if expr == "" || strings.ContainsAny(expr[:1], rfc6570Operators) || strings.ContainsAny(expr, ",*:") {
			beyond = append(beyond, "{"+expr+"}")
			continue
		}
		if !validTemplateVar(expr) {
			badVars = append(badVars, "{"+expr+"}")
		}
	}
	if len(badVars) > 0 {
		l.addWhere(it, RuleTemplateInvalid, "variable names outside RFC 6570's characters", badVars, len(badVars))
	}
	if len(beyond) > 0 {
		l.addWhere(it, RuleTemplateLevel, "expressions beyond Level 1", beyond, len(beyond))
	}
}

// schema checks a tool's input schema.
func (l *linter) schema(it CatalogItem) {
	if len(bytes.TrimSpace(it.Schema)) == 0 || string(it.Schema) == "null" {
		l.add(it, RuleSchemaMissing, "the tool has no inputSchema")
		return
	}
	if cs := compileSchema(it); cs.unchecked != "" {
		msg, _, _ := strings.Cut(cs.unchecked, "; howl will not validate")
		l.add(it, RuleSchemaInvalid, msg)
		if !json.Valid(it.Schema) {
			return
		}
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(it.Schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return
	}
	m, ok := root.(map[string]any)
	if !ok {
		l.add(it, RuleSchemaRootObject, "the inputSchema is not a JSON object")
		return
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := m[k]; ok {
			l.add(it, RuleSchemaRootComposed, fmt.Sprintf("the root has %q", k))
			break
		}
	}
	if t, ok := m["type"]; !ok {
		l.add(it, RuleSchemaRootObject, `the root has no "type"`)
	} else if s, _ := t.(string); s != "object" {
		l.add(it, RuleSchemaRootObject, fmt.Sprintf(`the root "type" is %s, not "object"`, render.Ellipsize(compactJSON(t), 60)))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		var bare []string
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p, _ := props[name].(map[string]any)
			if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
				if _, isRef := p["$ref"]; !isRef {
					bare = append(bare, name)
				}
			}
		}
		if len(bare) > 0 {
			l.addWhere(it, RuleParameterDesc, fmt.Sprintf("%d of %d parameters have no description", len(bare), len(props)), bare, len(bare))
		}
	}
	w := &schemaWalk{root: root, where: map[string][]string{}, count: map[string]int{}, seen: map[string]bool{}}
	w.walk(root, "/", 0)
	for _, r := range LintRules {
		if n := w.count[r.ID]; n > 0 {
			l.addWhere(it, r.ID, schemaMessages[r.ID], w.where[r.ID], n)
		}
	}
}

// schemaMessages say what each schema rule found; the finding's Where
// says where.
var schemaMessages = map[string]string{
	RuleArrayItems:       "an array without items",
	RuleRefUnresolved:    "a $ref that does not resolve inside the schema",
	RuleRefRecursive:     "a recursive $ref",
	RuleStrictAdditional: `an object without "additionalProperties": false`,
	RuleStrictRequired:   `properties missing from "required"`,
	RuleStrictKeyword:    "keywords OpenAI strict mode rejects",
	RuleStrictFormat:     "formats OpenAI strict mode rejects",
	RuleStrictLimits:     "over OpenAI strict mode's limits",
	RuleRequiredUnknown:  `"required" names undeclared properties`,
}

// strictUnsupported are the keywords OpenAI strict mode rejects.
var strictUnsupported = []string{"default", "minLength", "maxLength", "allOf", "not", "if", "then", "else",
	"dependentRequired", "dependentSchemas", "patternProperties", "unevaluatedProperties", "propertyNames",
	"minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems"}

// strictFormats are the string formats OpenAI strict mode accepts.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// schemaWalk visits a schema the way a provider reads it: through
// properties, items and combinators, following local $refs, and notes
// where each rule fails. Its work is bounded by MaxSchemaNodes visits.
type schemaWalk struct {
	root any
	// where holds the first LintMaxWhere locations of each rule, count
	// all of them, seen the rule+location pairs noted.
	where    map[string][]string
	count    map[string]int
	seen     map[string]bool
	refs     []string
	steps    int
	props    int
	deepest  int
	overflow bool
}

func (w *schemaWalk) note(rule, at string) {
	at = render.Ellipsize(at, lintMaxName)
	if w.seen[rule+"\x00"+at] {
		return
	}
	w.seen[rule+"\x00"+at] = true
	if w.count[rule]++; len(w.where[rule]) < LintMaxWhere {
		w.where[rule] = append(w.where[rule], at)
	}
}

func (w *schemaWalk) walk(node any, at string, depth int) {
	if w.steps++; w.steps > MaxSchemaNodes {
		if !w.overflow {
			w.overflow = true
			w.note(RuleStrictLimits, fmt.Sprintf("more than %d schema nodes with $ref followed (MaxSchemaNodes)", MaxSchemaNodes))
		}
		return
	}
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		w.ref(ref, at, depth)
	}
	types := schemaTypes(m["type"])
	_, hasProps := m["properties"]
	if slices.Contains(types, "object") || (len(types) == 0 && hasProps) {
		w.object(m, at, depth+1)
		depth++
	}
	if slices.Contains(types, "array") {
		_, items := m["items"]
		_, prefix := m["prefixItems"]
		if !items && !prefix {
			w.note(RuleArrayItems, at)
		}
	}
	for _, k := range strictUnsupported {
		if _, ok := m[k]; ok {
			w.note(RuleStrictKeyword, at+": "+k)
		}
	}
	if f, ok := m["format"].(string); ok && !slices.Contains(strictFormats, f) {
		w.note(RuleStrictFormat, fmt.Sprintf("%s: %q", at, f))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			w.walk(props[name], joinAt(at, name), depth)
		}
	}
	switch items := m["items"].(type) {
	case map[string]any:
		w.walk(items, strings.TrimSuffix(at, "/")+"[]", depth)
	case []any:
		for _, s := range items {
			w.walk(s, strings.TrimSuffix(at, "/")+"[]", depth)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		w.walk(ap, joinAt(at, "*"), depth)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := m[k].([]any); ok {
			for _, s := range list {
				w.walk(s, at, depth)
			}
		}
	}
	for _, k := range []string{"not", "if", "then", "else"} {
		if sub, ok := m[k]; ok {
			w.walk(sub, at, depth)
		}
	}
}

func (w *schemaWalk) object(m map[string]any, at string, depth int) {
	if depth > w.deepest {
		w.deepest = depth
		if depth == LintMaxStrictDepth+1 {
			w.note(RuleStrictLimits, fmt.Sprintf("%s: objects nested more than %d deep", at, LintMaxStrictDepth))
		}
	}
	if ap, ok := m["additionalProperties"].(bool); !ok || ap {
		w.note(RuleStrictAdditional, at)
	}
	props, _ := m["properties"].(map[string]any)
	if w.props += len(props); w.props > LintMaxStrictProperties && w.props-len(props) <= LintMaxStrictProperties {
		w.note(RuleStrictLimits, fmt.Sprintf("more than %d properties", LintMaxStrictProperties))
	}
	required := map[string]bool{}
	if list, ok := m["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
				if _, declared := props[s]; !declared {
					w.note(RuleRequiredUnknown, joinAt(at, s))
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if !required[name] {
			w.note(RuleStrictRequired, joinAt(at, name))
		}
	}
}

// ref follows a local $ref, noting one that does not resolve or recurses.
func (w *schemaWalk) ref(ref, at string, depth int) {
	target, ok := resolvePointer(w.root, ref)
	switch {
	case !ok:
		w.note(RuleRefUnresolved, fmt.Sprintf("%s: %q", at, ref))
	case slices.Contains(w.refs, ref):
		w.note(RuleRefRecursive, fmt.Sprintf("%s: %q", at, ref))
	default:
		w.refs = append(w.refs, ref)
		w.walk(target, at, depth)
		w.refs = w.refs[:len(w.refs)-1]
	}
}

// resolvePointer resolves a local JSON pointer ref ("#", "#/$defs/x").
func resolvePointer(root any, ref string) (any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if ptr == "" {
		return root, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor: not resolved by providers that inline
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			if cur, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func schemaTypes(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func joinAt(at, name string) string {
	return strings.TrimSuffix(at, "/") + "/" + name
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
