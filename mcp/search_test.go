package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
)

func testCatalog() *Catalog {
	cat := &Catalog{Server: "t", Items: []CatalogItem{
		{Kind: KindTool, ID: "read_logs", Name: "read_logs", Description: "Read the application log and filter errors"},
		{Kind: KindTool, ID: "echo", Name: "echo", Description: "Echo a message back"},
		{Kind: KindResource, ID: "demo://logs/app.log", Name: "app.log", URI: "demo://logs/app.log", Title: "Application log", Description: "2 MiB of log lines with ERROR and WARN", MIMEType: "text/plain", Audience: []string{"user"}},
		{Kind: KindTemplate, ID: "demo://logs/{date}", Name: "logs-by-date", URI: "demo://logs/{date}", Variables: []string{"date"}, Description: "Logs of one day"},
		{Kind: KindPrompt, ID: "code_review", Name: "code_review", Description: "Review code for errors", Arguments: []PromptArgument{{Name: "language", Required: true}}},
		// A tool and a resource with the same id both survive.
		{Kind: KindResource, ID: "echo", Name: "echo", URI: "echo", Description: "a resource named like the tool"},
	}}
	for i := range cat.Items {
		cat.Items[i].Server = cat.Server
	}
	cat.dedupe()
	return cat
}

func TestSearchRanksEveryKindAndStatesCoverageFirst(t *testing.T) {
	res, err := Search(testCatalog(), "error log", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches < 3 {
		t.Fatalf("matches = %d, want the log tool, the log resource and more: %+v", res.Matches, res.Results)
	}
	kinds := map[Kind]bool{}
	for _, h := range res.Results {
		kinds[h.Kind] = true
	}
	if !kinds[KindTool] || !kinds[KindResource] {
		t.Errorf("kinds in results = %v, want tools and resources", kinds)
	}
	// Items matching both terms lead.
	top := res.Results[0].ID
	if top != "read_logs" && top != "demo://logs/app.log" {
		t.Errorf("top hit = %s", top)
	}
	b, _ := json.Marshal(res)
	if !strings.HasPrefix(string(b), `{"coverage":"showing `) {
		t.Errorf("coverage does not lead the JSON: %.80s", b)
	}
	if !regexp.MustCompile(`showing \d+ of \d+ matches`).MatchString(res.Coverage) {
		t.Errorf("coverage %q lacks shown-of-total", res.Coverage)
	}
	for _, h := range res.Results {
		if h.ID == "demo://logs/app.log" && len(h.Audience) == 0 {
			t.Error("audience annotation not carried into the hit")
		}
	}
}

func TestSearchLimitBoundsResultsAndSaysSo(t *testing.T) {
	cat := &Catalog{Server: "big"}
	for i := 0; i < 143; i++ {
		cat.Items = append(cat.Items, CatalogItem{Kind: KindResource, ID: fmt.Sprintf("r%03d", i), Name: fmt.Sprintf("error report %d", i)})
	}
	res, _ := Search(cat, "error", 0)
	if res.Shown != DefaultSearchLimit || res.Matches != 143 || !strings.Contains(res.Coverage, "showing 20 of 143 matches") {
		t.Errorf("default limit: %s (shown %d)", res.Coverage, res.Shown)
	}
	res, _ = Search(cat, "error", 500)
	if res.Shown != MaxSearchLimit || !strings.Contains(res.Coverage, "limit 500 clamped to 50") {
		t.Errorf("clamp: %s", res.Coverage)
	}
	if _, err := Search(cat, "error", -1); err == nil {
		t.Error("negative limit accepted")
	}
	res, _ = Search(cat, "", 5)
	if res.Shown != 5 || res.Matches != 143 {
		t.Errorf("empty query: %s", res.Coverage)
	}
}

func TestSearchPrefixAndCamelCase(t *testing.T) {
	cat := &Catalog{Server: "s", Items: []CatalogItem{{Kind: KindTool, ID: "getWeatherForecast", Name: "getWeatherForecast"}}}
	for _, q := range []string{"weather", "forecast", "weath"} {
		res, _ := Search(cat, q, 0)
		if res.Matches != 1 {
			t.Errorf("%q: matches = %d", q, res.Matches)
		}
	}
}

// A query in plain language matches on its content words: "a" and "the"
// appear in nearly every description and would make everything a match.
// A query of nothing but such words still searches for them.
func TestSearchIgnoresStopwordsUnlessTheyAreAllThereIs(t *testing.T) {
	cat := testCatalog()
	res, _ := Search(cat, "read the log", 0)
	for _, h := range res.Results {
		if h.ID == "echo" {
			t.Errorf("%q matched echo (\"Echo a message back\") through a stopword: %s", res.Query, res.Coverage)
		}
	}
	if res.Matches == 0 || res.Results[0].ID != "read_logs" {
		t.Errorf("%q: %s, top %v", res.Query, res.Coverage, res.Results)
	}
	if res, _ := Search(cat, "a", 0); res.Matches == 0 {
		t.Errorf("a query of only a stopword found nothing: %s", res.Coverage)
	}
}

func TestSearchClampsLongDescriptions(t *testing.T) {
	cat := &Catalog{Server: "s", Items: []CatalogItem{{Kind: KindTool, ID: "x", Name: "x", Description: strings.Repeat("é", 2000)}}}
	res, _ := Search(cat, "x", 0)
	d := res.Results[0].Description
	if len(d) > MaxHitDescription+40 || !strings.Contains(d, "of 4000 bytes") {
		t.Errorf("description not clamped with shown-of-total: %d bytes, tail %q", len(d), d[len(d)-30:])
	}
}

func TestDescribeEachKind(t *testing.T) {
	cat := testCatalog()
	d, err := Describe(cat, "", "echo")
	if err != nil || d.Kind != KindTool || !strings.Contains(d.Usage, "mcp_invoke_t") {
		t.Errorf("default kind tool: %+v %v", d, err)
	}
	d, err = Describe(cat, KindResource, "echo")
	if err != nil || d.Kind != KindResource {
		t.Errorf("same id as resource: %+v %v", d, err)
	}
	d, err = Describe(cat, KindTemplate, "demo://logs/{date}")
	if err != nil || d.URITemplate != "demo://logs/{date}" || len(d.Variables) != 1 || !strings.Contains(d.Usage, `"date"`) {
		t.Errorf("template: %+v %v", d, err)
	}
	d, err = Describe(cat, KindPrompt, "code_review")
	if err != nil || d.Arguments == nil || !(*d.Arguments)[0].Required {
		t.Errorf("prompt: %+v %v", d, err)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "input_schema") {
		t.Errorf("prompt description invents a schema: %s", b)
	}
	_, err = Describe(cat, KindTool, "demo://logs/app.log")
	if err == nil || !strings.Contains(err.Error(), `kind="resource"`) {
		t.Errorf("wrong kind: err = %v, want a hint to use kind=resource", err)
	}
	_, err = Describe(cat, KindTool, "ecko")
	if err == nil || !strings.Contains(err.Error(), `did you mean "echo"`) {
		t.Errorf("typo: err = %v", err)
	}
}

func TestTemplateVariablesAndLevel1Expansion(t *testing.T) {
	if got := TemplateVariables("demo://users/{id}/posts/{post}{?q,page}"); strings.Join(got, ",") != "id,post,q,page" {
		t.Errorf("variables = %v", got)
	}
	ok := []struct {
		tmpl string
		vals map[string]string
		want string
	}{
		{"demo://users/{id}", map[string]string{"id": "42"}, "demo://users/42"},
		{"demo://q/{term}", map[string]string{"term": "a b/c?d&é"}, "demo://q/a%20b%2Fc%3Fd%26%C3%A9"},
		{"file:///{a}-{b}", map[string]string{"a": "x", "b": "~y_z.-"}, "file:///x-~y_z.-"},
		{"no/vars", nil, "no/vars"},
	}
	for _, c := range ok {
		got, err := ExpandTemplate(c.tmpl, c.vals)
		if err != nil || got != c.want {
			t.Errorf("ExpandTemplate(%q) = %q, %v; want %q", c.tmpl, got, err, c.want)
		}
	}
	for _, op := range strings.Split(rfc6570Operators, "") {
		_, err := ExpandTemplate("x://{"+op+"v}", map[string]string{"v": "1"})
		if err == nil || !strings.Contains(err.Error(), "Level 1") {
			t.Errorf("operator %q: err = %v", op, err)
		}
	}
	bad := map[string]string{
		"x://{a,b}":  "list or modifier",
		"x://{a*}":   "list or modifier",
		"x://{a:3}":  "list or modifier",
		"x://{a":     "unclosed",
		"x://a}":     "without its '{'",
		"x://{}":     "empty expression",
		"x://{miss}": `"miss" has no value`,
	}
	for tmpl, want := range bad {
		_, err := ExpandTemplate(tmpl, map[string]string{"a": "1", "b": "2"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ExpandTemplate(%q) err = %v, want %q", tmpl, err, want)
		}
	}
}

func FuzzExpandTemplate(f *testing.F) {
	f.Add("demo://users/{id}", "42")
	f.Add("x://{+a}", "v")
	f.Add("{a}{a}}{", "é/ ?")
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		out, err := ExpandTemplate(tmpl, map[string]string{"a": val, "id": val})
		if err != nil {
			return
		}
		// Every brace opens or closes an expression, and values are
		// percent-encoded, so no brace survives a successful expansion.
		if strings.ContainsAny(out, "{}") {
			t.Fatalf("brace in expansion: %q -> %q", tmpl, out)
		}
		if strings.Contains(tmpl, "{a}") && !strings.Contains(out, percentEncode(val)) {
			t.Fatalf("value %q not substituted encoded: %q", val, out)
		}
	})
}

func TestFunctionSuffixIsSafeUniqueAndStable(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	names := []string{"demo", "my-server_2", "my.srv", "my srv", "my/srv", "日本語", "", strings.Repeat("x", 80), strings.Repeat("y", 51)}
	seen := map[string]string{}
	for _, n := range names {
		s := FunctionSuffix(n)
		if FunctionSuffix(n) != s {
			t.Errorf("%q: not stable", n)
		}
		for _, p := range []string{"mcp_describe_", "mcp_search_", "mcp_invoke_"} {
			if !valid.MatchString(p + s) {
				t.Errorf("%q -> %q: %s%s breaks the providers' name rule", n, s, p, s)
			}
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%q and %q both map to %q", n, other, s)
		}
		seen[s] = n
	}
	if FunctionSuffix("demo") != "demo" || FunctionSuffix("my-server_2") != "my-server_2" {
		t.Error("clean names must map to themselves")
	}
	// A clean name written as another's hashed suffix does not take it.
	for _, other := range []string{"café", strings.Repeat("a", 60), "my.srv"} {
		if taken := FunctionSuffix(other); FunctionSuffix(taken) == taken {
			t.Errorf("a server named %q has the suffix of %q", taken, other)
		}
	}
}

// Two server names with one suffix (a collision of its 8-hex hash, found
// here by search as an attacker would) name no server: a call through
// that suffix says both names and reaches neither.
func TestACollidingFunctionSuffixCallsNeitherServer(t *testing.T) {
	seen := map[string]string{}
	var a, b string
	punct := []byte(".,:;!?@#$%")
	for i := 0; a == "" && i < 10_000_000; i++ {
		name := []byte("s")
		for n := i; len(name) < 8; n /= len(punct) {
			name = append(name, punct[n%len(punct)])
		}
		name = append(name, 'x')
		suffix := FunctionSuffix(string(name))
		if other, ok := seen[suffix]; ok {
			a, b = other, string(name)
		}
		seen[suffix] = string(name)
	}
	if a == "" {
		t.Fatal("no collision among 10 million names")
	}
	one, two := inProcessDemo(EraModern), inProcessDemo(EraModern)
	one.Name, two.Name = a, b
	rt := startRuntime(t, one, two)
	echo, _ := json.Marshal(map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": "hi"}})
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_"+FunctionSuffix(a), echo)
	if err == nil || !strings.Contains(err.Error(), "share the function suffix") || !strings.Contains(err.Error(), strconv.Quote(b)) {
		t.Errorf("a call through the shared suffix: %s, %v", out, err)
	}
	for _, d := range DeclarationsOf(FunctionsPerServer, rt.ServerFeatures()) {
		if strings.HasSuffix(d.Name, FunctionSuffix(a)) {
			t.Errorf("%s is declared, for either of two servers", d.Name)
		}
	}
}

func TestTokenizeWithoutRunesSplitsAsTokenizeDoes(t *testing.T) {
	for _, s := range []string{"listTools_v2", "HTTPServer9Go", "a-b c.d", "", "  ", "ABC", "x1Y2z3", "MCP read_resource2Now", "café crème", "Ünïcode Words", "demo://scale/000123"} {
		var got []string
		tokenize(s, func(w string) { got = append(got, w) })
		if want := Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("tokenize(%q) = %q, Tokenize says %q", s, got, want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add("listTools_v2")
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		tokenize(s, func(w string) { got = append(got, w) })
		if want := Tokenize(s); !slices.Equal(got, want) {
			t.Fatalf("tokenize(%q) = %q, Tokenize says %q", s, got, want)
		}
	})
}

func TestSearchIndexIsBuiltOncePerCatalog(t *testing.T) {
	cat := &Catalog{Server: "s", Items: []CatalogItem{{Kind: KindTool, ID: "echo", Name: "echo"}, {Kind: KindTool, ID: "add", Name: "add"}}}
	if _, err := Search(cat, "echo", 0); err != nil {
		t.Fatal(err)
	}
	first := cat.searchIndex()
	if _, err := Search(cat, "add", 0); err != nil {
		t.Fatal(err)
	}
	if cat.searchIndex() != first {
		t.Error("a second search on the same catalog built the index again")
	}
}

// scaleCatalog is a catalog shaped like the demo's --scale n: n resources,
// n/10 tools and n/10 prompts.
func scaleCatalog(n int) *Catalog {
	cat := &Catalog{Server: "scale"}
	words := []string{"note", "retry", "alpha", "ledger", "orbit", "signal", "quartz", "harbor"}
	for i := range n {
		num := fmt.Sprintf("%06d", i+1)
		cat.Items = append(cat.Items, CatalogItem{Kind: KindResource, ID: "demo://scale/" + num, Name: "scale-" + num, URI: "demo://scale/" + num,
			Title: "Generated item " + num, MIMEType: "text/plain", Description: "Generated item about " + words[i%8] + ", " + words[(i/8)%8] + " and " + words[(i/64)%8] + ", for catalog-scale benchmarks."})
	}
	for i := range n / 10 {
		cat.Items = append(cat.Items, CatalogItem{Kind: KindTool, ID: fmt.Sprintf("gen_tool_%05d", i+1), Name: fmt.Sprintf("gen_tool_%05d", i+1), Description: "Generated tool about " + words[i%8]},
			CatalogItem{Kind: KindPrompt, ID: fmt.Sprintf("gen_prompt_%05d", i+1), Name: fmt.Sprintf("gen_prompt_%05d", i+1), Description: "Generated prompt about " + words[i%8]})
	}
	return cat
}

// BenchmarkSearch100k builds the index of a 120,000-item catalog and
// ranks one query (the first search of a catalog: later ones reuse it).
func BenchmarkSearch100k(b *testing.B) {
	base := scaleCatalog(100_000)
	b.ReportAllocs()
	for b.Loop() {
		cat := &Catalog{Server: base.Server, Items: base.Items}
		if res, err := Search(cat, "note retry", 0); err != nil || res.Shown == 0 {
			b.Fatal(err, res.Coverage)
		}
	}
}
