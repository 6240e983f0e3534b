package render

import (
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// numberedLines returns "line 1\n" ... "line n\n" with the given lines
// replaced.
func numberedLines(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := replace[i]; ok {
			b.WriteString(s)
		} else {
			fmt.Fprintf(&b, "line %d", i)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func filterOf(t *testing.T, pattern, text string) *TextResult {
	t.Helper()
	r, err := PageText("u", "text/plain", text, PageOptions{Pattern: pattern, MaxBytes: MaxSliceBytes})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPatternKeepsMatchesWithTwoLinesOfContextGrepStyle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		matches []int
		want    string
	}{
		{"separate groups", []int{12, 20}, "10-line 10\n11-line 11\n12:ERROR\n13-line 13\n14-line 14\n--\n18-line 18\n19-line 19\n20:ERROR\n21-line 21\n22-line 22\n"},
		{"adjacent groups join without a separator", []int{5, 10}, "3-line 3\n4-line 4\n5:ERROR\n6-line 6\n7-line 7\n8-line 8\n9-line 9\n10:ERROR\n11-line 11\n12-line 12\n"},
		{"overlapping groups", []int{5, 7}, "3-line 3\n4-line 4\n5:ERROR\n6-line 6\n7:ERROR\n8-line 8\n9-line 9\n"},
		{"consecutive matches", []int{5, 6}, "3-line 3\n4-line 4\n5:ERROR\n6:ERROR\n7-line 7\n8-line 8\n"},
		{"gap of one line", []int{5, 11}, "3-line 3\n4-line 4\n5:ERROR\n6-line 6\n7-line 7\n--\n9-line 9\n10-line 10\n11:ERROR\n12-line 12\n13-line 13\n"},
		{"first and last lines", []int{1, 30}, "1:ERROR\n2-line 2\n3-line 3\n--\n28-line 28\n29-line 29\n30:ERROR\n"},
		{"no match", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replace := map[int]string{}
			for _, m := range tc.matches {
				replace[m] = "ERROR"
			}
			r := filterOf(t, "ERROR", numberedLines(30, replace))
			if r.Text != tc.want {
				t.Errorf("got\n%s\nwant\n%s", r.Text, tc.want)
			}
			if *r.MatchedLines != len(tc.matches) || *r.TotalLines != 30 {
				t.Errorf("matched_lines=%d total_lines=%d, want %d and 30", *r.MatchedLines, *r.TotalLines, len(tc.matches))
			}
		})
	}
}

func TestPatternLastLineWithoutNewlineStillEndsInNewline(t *testing.T) {
	r := filterOf(t, "c", "a\nb\nc")
	if r.Text != "1-a\n2-b\n3:c\n" || *r.TotalLines != 3 {
		t.Errorf("got %q with %d lines", r.Text, *r.TotalLines)
	}
}

func TestPatternNoteCountsMatchedOfTotalLines(t *testing.T) {
	r := filterOf(t, "ERROR", numberedLines(30, map[int]string{3: "ERROR a", 9: "ERROR b", 27: "x ERROR"}))
	if !strings.HasPrefix(r.Note, `pattern "ERROR" matched 3 of 30 lines`) {
		t.Errorf("note %q", r.Note)
	}
	if r.Pattern != "ERROR" {
		t.Errorf("pattern field %q", r.Pattern)
	}
	keys := keysInOrder(t, marshal(t, r))
	if strings.Join(keys, ",") != "uri,mime_type,truncated,total_bytes,next_offset,note,pattern,matched_lines,total_lines,text" {
		t.Errorf("field order %v", keys)
	}
}

func TestPatternThatMatchesNothingReportsAMeasuredZero(t *testing.T) {
	b := marshal(t, filterOf(t, "nope", "a\nb\n"))
	if !contains(b, `"matched_lines":0,"total_lines":2`) || !contains(b, `"total_bytes":0`) {
		t.Errorf("a zero match is not stated: %s", b)
	}
	plain, _ := PageText("u", "", "a\nb\n", PageOptions{})
	if b := marshal(t, plain); contains(b, "matched_lines") || contains(b, "pattern") {
		t.Errorf("pattern fields present without a pattern: %s", b)
	}
}

func TestInvalidPatternIsATeachingErrorNotAnIgnoredFilter(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"(", `pattern "(" is not a valid regex: missing closing ): use RE2 syntax`},
		{"a**", `pattern "a**" is not a valid regex: invalid nested repetition operator at "**": use RE2 syntax`},
		{"(?=x)", `pattern "(?=x)" is not a valid regex: invalid or unsupported Perl syntax at "(?=": use RE2 syntax`},
	} {
		_, err := PageText("u", "", "text", PageOptions{Pattern: tc.pattern})
		var rerr *Error
		if !errors.As(err, &rerr) || rerr.Code != CodeInvalidPattern || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("pattern %q: got %v, want prefix %q", tc.pattern, err, tc.want)
		}
	}
}

func TestFilterFastPathsAgreeWithPlainRegexpMatching(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"ERROR", "error", "Error", "WARN", "warn", "ok", "ERRORS", "ERRNO", "日本", "👍", "", " ", "ERR", "x=42ms", "\r", "kelvin", "\u212Aelvin", "ſtop",
		"1234ms", "12", "34", "ab-12", "AB-", "é"}
	for trial := 0; trial < 200; trial++ {
		var b strings.Builder
		for i, n := 0, rng.Intn(60); i < n; i++ {
			for j, m := 0, rng.Intn(4); j < m; j++ {
				b.WriteString(words[rng.Intn(len(words))])
			}
			if rng.Intn(10) > 0 {
				b.WriteByte('\n')
			}
		}
		text := b.String()
		for _, pattern := range []string{"ERROR", "ERROR$", "^ERROR", "ERR(OR|X)", "(?i)error", `\d+ms`, "日本|👍", "^$", "x*",
			"ERROR|WARN", "(?i)error|warn", "(?i:error)|WARN", "ERR(?:OR|NO)", "(ERROR)+", "(?i)kelvin", "(?i)stop", "ERROR\n", "(?:ERROR){2}",
			`\d{4}ms`, `(\d\d)+ms`, `[a-z]{2}-\d\d`, `(?i)[a-b]{2}-\d`, `\d\d\s\d\d`, `^\d{2}\b\d`, `x=\d\dm`, `\d{2}é`, `[^a]{4}`, `.{4}`, `\d{4}|ms\d`} {
			got := filterOf(t, pattern, text)
			want, matched, lines := referenceGrep(pattern, text)
			if got.Text != want || *got.MatchedLines != matched || *got.TotalLines != lines {
				t.Fatalf("pattern %q over %q:\n got %q (%d of %d)\nwant %q (%d of %d)",
					pattern, text, got.Text, *got.MatchedLines, *got.TotalLines, want, matched, lines)
			}
		}
	}
}

// referenceGrep is the obvious implementation the fast one must agree with.
func referenceGrep(pattern, text string) (string, int, int) {
	re := regexp.MustCompile(pattern)
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") || text == "" {
		lines = lines[:len(lines)-1]
	}
	keep := make([]byte, len(lines)) // 0 none, 1 context, 2 match
	matched := 0
	for i, l := range lines {
		if re.MatchString(strings.TrimSuffix(l, "\r")) {
			matched++
			keep[i] = 2
			for j := max(0, i-ContextLines); j <= min(len(lines)-1, i+ContextLines); j++ {
				if keep[j] == 0 {
					keep[j] = 1
				}
			}
		}
	}
	var b strings.Builder
	last := -1
	for i, k := range keep {
		if k == 0 {
			continue
		}
		if last >= 0 && i > last+1 {
			b.WriteString("--\n")
		}
		sep := "-"
		if k == 2 {
			sep = ":"
		}
		fmt.Fprintf(&b, "%d%s%s\n", i+1, sep, lines[i])
		last = i
	}
	return b.String(), matched, len(lines)
}

func TestPagingTheFilteredStreamReproducesItExactly(t *testing.T) {
	replace := map[int]string{}
	for i := 1; i <= 500; i += 7 {
		replace[i] = fmt.Sprintf("ERROR 日本語 👍 %d", i)
	}
	text := numberedLines(500, replace)
	whole := filterOf(t, "ERROR", text)
	if whole.NextOffset != nil {
		t.Fatal("fixture does not fit one page")
	}
	for _, max := range []int{4, 9, 100, 1024} {
		pages := readAll(t, text, PageOptions{Pattern: "ERROR", MaxBytes: max})
		if got := joinText(pages); got != whole.Text {
			t.Errorf("max=%d: pages do not reproduce the filtered stream", max)
		}
		for _, p := range pages {
			if p.TotalBytes != len(whole.Text) {
				t.Fatalf("total_bytes %d, want the filtered size %d", p.TotalBytes, len(whole.Text))
			}
		}
	}
}

// Patterns with no useful literal still skip lines when every match holds
// a run of single-byte classes; patterns whose runs could be multi-byte
// runes (., negated classes) or are too short run the regexp on every line.
func TestPatternsWithoutLiteralsUseAClassRunWhenTheyHaveOne(t *testing.T) {
	for pattern, want := range map[string]int{
		`\d{4}ms`:           6,
		`[A-Z]{3}-\d+`:      5, // x+ holds at least one x
		`(\d\d)+ms`:         4,
		`^\d{2}\b\d`:        0,
		`status=\d{3}`:      -1, // a literal leads instead
		`.{4}`:              0,
		`[^a]{4}`:           0,
		`\d{2}é`:            4,
		`(?i)[a-f]{2}\d{2}`: 4,
		`\d{4}|ms\d`:        0,
	} {
		f, err := compileFilter(pattern)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want < 0:
			if f.lits == nil {
				t.Errorf("%s: no literals chosen", pattern)
			}
		case len(f.seq) != want:
			t.Errorf("%s: class run of %d, want %d", pattern, len(f.seq), want)
		}
	}
}

// The filtered output can be ten times the text ("^$" over empty lines
// puts a line number and a colon before each), and only a page of it is
// shown: it is counted whole and held as that page's window, so 4 MiB of
// empty lines leave only their page alive, not the 37 MB of their output
// (a page was a slice of it), and allocate a few MiB, not 200 MB, with
// the same page and total as before. The race detector makes regexp's
// pool of matchers drop some, so the allocation is checked without it.
func TestFilteringHoldsOnlyThePagesWindowOfItsOutput(t *testing.T) {
	text := strings.Repeat("\n", 4<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := PageText("u", "text/plain", text, PageOptions{Pattern: "^$", Offset: 1 << 20, MaxBytes: 1000})
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 1<<20 {
		t.Errorf("the page of 4 MiB of empty lines filtered keeps %d bytes alive", held)
	}
	if allocated > 4<<20 && !raceEnabled {
		t.Errorf("filtering 4 MiB of empty lines allocated %d bytes", allocated)
	}
	want, _, _ := referenceGrep("^$", strings.Repeat("\n", 200000))
	total := 0
	for i := 1; i <= 4<<20; i++ {
		total += len(strconv.Itoa(i)) + 2
	}
	if r.TotalBytes != total || !strings.HasPrefix(want[1<<20:], r.Text) || len(r.Text) < 990 {
		t.Errorf("the page: total %d, text %q", r.TotalBytes, r.Text)
	}
	runtime.KeepAlive(text)
}
