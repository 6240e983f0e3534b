package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// manyArgsTool is a tool with n string properties, three of them
// required (the second, the middle one and the last).
func manyArgsTool(n int) mcp.CatalogItem {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"arg%06d":{"type":"string","description":"argument number %d, with \"quotes\", {braces} and [brackets]"}`, i, i)
	}
	fmt.Fprintf(&b, `},"required":["arg%06d","arg%06d","arg%06d"]}`, 1, n/2, n-1)
	return mcp.CatalogItem{Kind: mcp.KindTool, ID: "t", Name: "t", Server: "mem", Schema: json.RawMessage(b.String())}
}

// The details pane lists a tool's or a prompt's first MaxDetailArguments
// arguments and counts the rest, naming the command that lists them all,
// and names an input schema over MaxDetailSchemaBytes instead of drawing
// it: selecting a tool of 100,000 properties laid out 600,000 lines
// (3.6 s) before.
func TestTheDetailsPaneListsTheFirstArgumentsAndCountsTheRest(t *testing.T) {
	const n = 100_000
	v := detailOf(t, manyArgsTool(n))
	if lines := strings.Count(v, "\n") + 1; lines > 4*MaxDetailArguments {
		t.Errorf("a tool of %d arguments takes %d lines in the details pane, want at most %d", n, lines, 4*MaxDetailArguments)
	}
	flat := strings.Join(strings.Fields(v), " ")
	for _, want := range []string{
		fmt.Sprintf("arg%06d", MaxDetailArguments-1),
		fmt.Sprintf("… and %d more arguments (2 required), over MaxDetailArguments (%d): howl describe mem --kind tool t lists them all", n-MaxDetailArguments, MaxDetailArguments),
		"over MaxDetailSchemaBytes (256 KiB) for this pane: howl describe mem --kind tool t prints it",
		"* required",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the details pane lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, fmt.Sprintf("arg%06d", MaxDetailArguments)) {
		t.Errorf("argument %d is listed, past MaxDetailArguments", MaxDetailArguments)
	}

	var args []mcp.PromptArgument
	for i := range 5_000 {
		args = append(args, mcp.PromptArgument{Name: fmt.Sprintf("p%04d", i), Required: i%1000 == 999})
	}
	v = detailOf(t, mcp.CatalogItem{Kind: mcp.KindPrompt, ID: "p", Name: "p", Server: "mem", Arguments: args})
	flat = strings.Join(strings.Fields(v), " ")
	if want := "… and 4900 more arguments (5 required), over MaxDetailArguments (100): howl describe mem --kind prompt p lists them all"; !strings.Contains(flat, want) || strings.Contains(v, "p0100") {
		t.Errorf("the prompt's details lack %q or list past the bound:\n%s", want, v)
	}

	// At the bound, every argument is listed and nothing is counted.
	v = detailOf(t, manyArgsTool(MaxDetailArguments))
	if !strings.Contains(v, fmt.Sprintf("arg%06d", MaxDetailArguments-1)) || strings.Contains(v, "more arguments") || !strings.Contains(v, `"arg000000"`) {
		t.Errorf("a tool of exactly MaxDetailArguments arguments:\n%s", v)
	}
}

// The details pane lists a skill's first MaxDetailFiles files and counts
// the rest, naming the command that lists them all: a listing of 10,000
// files laid out 10,000 rows on each selection before.
func TestTheDetailsPaneListsASkillsFirstFilesAndCountsTheRest(t *testing.T) {
	files := []mcp.SkillFile{{URI: "skill://big/SKILL.md", Size: 10}}
	for i := range 9_999 {
		files = append(files, mcp.SkillFile{URI: fmt.Sprintf("skill://big/f%05d.md", i), Size: 1})
	}
	it := mcp.CatalogItem{Kind: mcp.KindSkill, ID: "skill://big/SKILL.md", URI: "skill://big/SKILL.md", Name: "big", Server: "mem",
		Skill: &mcp.SkillEntry{Frontmatter: json.RawMessage(`{"name":"big","description":"d"}`), Files: files}}
	v := detailOf(t, it)
	if lines := strings.Count(v, "\n") + 1; lines > MaxDetailFiles+50 {
		t.Errorf("a skill of %d files takes %d lines in the details pane, want at most %d", len(files), lines, MaxDetailFiles+50)
	}
	flat := strings.Join(strings.Fields(v), " ")
	if want := "… and 9900 more files, over MaxDetailFiles (100): howl describe mem --kind skill big lists them all"; !strings.Contains(flat, want) {
		t.Errorf("the details pane lacks %q:\n%s", want, v)
	}
	if !strings.Contains(v, "f00098.md") || strings.Contains(v, "f00099.md") {
		t.Errorf("the details pane does not list exactly the first MaxDetailFiles files:\n%s", v)
	}

	// At the bound, every file is listed and nothing is counted.
	it.Skill.Files = files[:MaxDetailFiles]
	if v := detailOf(t, it); !strings.Contains(v, "f00098.md") || strings.Contains(v, "more files") {
		t.Errorf("a skill of exactly MaxDetailFiles files:\n%s", v)
	}
}

// BenchmarkDetailOfAToolWithManyArguments lays out the details of a tool
// of 1,000 and 100,000 arguments, as selecting it does: the rows are
// bounded, and what is left grows with the schema's bytes (one scan).
func BenchmarkDetailOfAToolWithManyArguments(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("args=%d", n), func(b *testing.B) {
			it := manyArgsTool(n)
			bn := newBench(b, it)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				renderDetail(bn.c.com, &Entry{item: &it}, 70)
			}
		})
	}
}
