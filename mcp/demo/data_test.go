package demo

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/assets"
)

func TestAppLogLinesAreTimestampedOrStackTraces(t *testing.T) {
	log := generateAppLog()
	if len(log) != LogSize {
		t.Fatalf("generated log is %d bytes, want %d", len(log), LogSize)
	}
	line := regexp.MustCompile(`^2025-06-14T\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARN |ERROR) \[[a-z]+\] req=[0-9a-f]{8} \S`)
	trace := regexp.MustCompile(`^(goroutine \d+ \[running\]:|orders/worker\.|\t/srv/orders/|created by )`)
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	for i, l := range lines {
		if !line.MatchString(l) && !trace.MatchString(l) {
			t.Fatalf("line %d is neither a log line nor a stack trace line: %q", i+1, l)
		}
		if len(l) >= maxEventBytes/2 {
			t.Errorf("line %d is %d bytes; fill assumes events well under %d", i+1, len(l), maxEventBytes)
		}
	}
	if !bytes.Equal(log, generateAppLog()) {
		t.Errorf("two generations differ")
	}
}

func TestDailyLogsDependOnlyOnTheirDate(t *testing.T) {
	a, b := dailyLog("2025-06-02"), dailyLog("2025-06-02")
	if !bytes.Equal(a, b) || bytes.Equal(a, dailyLog("2025-06-03")) {
		t.Errorf("daily logs must be the same for one date and differ between dates")
	}
	if n := bytes.Count(a, []byte("\n")); n < dailyLogEvents {
		t.Errorf("daily log has %d lines, want at least %d", n, dailyLogEvents)
	}
}

func TestGoSampleIsValidGo(t *testing.T) {
	src, err := fs.ReadFile(assets.Demo, "demo/server.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "server.go", src, parser.AllErrors); err != nil {
		t.Errorf("the Go sample does not parse: %v", err)
	}
}

func TestDemoAssetsStayUnder100KiB(t *testing.T) {
	var total int64
	err := fs.WalkDir(assets.Demo, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		total += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if total >= 100<<10 {
		t.Errorf("embedded demo assets total %d bytes, want under 100 KiB", total)
	}
}

func TestNotesHaveUniqueNamesAndNumberedURIs(t *testing.T) {
	seen := map[string]bool{}
	for i, n := range notes() {
		if seen[n.name] || NoteURI(i+1) != NoteURIPrefix+n.name {
			t.Errorf("note %d: name %q, URI %q", i+1, n.name, NoteURI(i+1))
		}
		seen[n.name] = true
	}
	if NoteURI(7) != "demo://notes/note-007" || noteIndex("note-110") != 110 || noteIndex(NoteURI(3)) != 3 || noteIndex("note-111") != 0 {
		t.Errorf("note numbering is off")
	}
}

func TestGuideAndInstructionsQuoteTheRealCounts(t *testing.T) {
	md, err := fs.ReadFile(assets.Demo, "demo/readme.md")
	if err != nil {
		t.Fatal(err)
	}
	for kind, n := range map[string]int{"Tools": ToolCount, "Resources": ResourceCount, "Resource templates": TemplateCount, "Prompts": PromptCount} {
		row := regexp.MustCompile(`\| ` + kind + ` +\| +` + strconv.Itoa(n) + ` \|`)
		if !row.Match(md) {
			t.Errorf("readme.md's table does not say %s: %d", kind, n)
		}
	}
	pages := (ResourceCount + PageSize - 1) / PageSize
	want := fmt.Sprintf("%d resources over %d pages, %d resource templates and %d prompts", ResourceCount, pages, TemplateCount, PromptCount)
	if !strings.Contains(Instructions, want) {
		t.Errorf("Instructions do not say %q", want)
	}
}
