package viewer

import (
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// viewerBench opens a 3000-line log in the viewer, as enter on it in the
// catalog does.
func viewerBench(t *testing.T) (*bench, *fakeRuntime) {
	h := newBench(t, 80, 38)
	h.rt.texts["mem://log"] = bigLog(3000)
	h.open("mem://log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("viewer:\n%s", h.view())
		}
	})
	return h, h.rt
}

// typeText sends each rune of s as a key.
func (b *bench) typeText(s string) {
	for _, r := range s {
		cmd, _ := b.v.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		b.run(cmd)
	}
}

func TestViewerPagesWithNAndPThroughReadOffsets(t *testing.T) {
	hs, rt := viewerBench(t)
	v := hs.v
	if v.doc == nil || v.doc.src == nil || v.doc.src.next == nil {
		t.Fatalf("first page: %+v", v.doc)
	}
	first := *v.doc.src.next
	if !strings.Contains(hs.view(), "page 1 of") {
		t.Fatalf("no page note:\n%s", hs.view())
	}
	hs.keys("n")
	if v.doc.src.offset != first || !strings.Contains(hs.view(), "page 2 of") {
		t.Fatalf("after n: offset %d, want %d", v.doc.src.offset, first)
	}
	if rt.callCount(`mcp_read_mem {"offset":`+strconv.Itoa(first)) != 1 {
		t.Fatalf("calls: %v", rt.calls)
	}
	// Line numbers continue from page 1.
	if l := v.doc.lines[0]; l.num <= 1 {
		t.Errorf("page 2 starts at line %d", l.num)
	}
	hs.keys("p")
	if v.doc.src.offset != 0 || v.doc.lines[0].num != 1 {
		t.Fatalf("after p: offset %d, first line %d", v.doc.src.offset, v.doc.lines[0].num)
	}
	reads := rt.callCount("mcp_read_mem")
	hs.keys("p")
	if rt.callCount("mcp_read_mem") != reads || v.Keys().PrevPage {
		t.Errorf("p on the first page read again, or stayed enabled")
	}
}

func TestViewerSearchAndServerSidePattern(t *testing.T) {
	hs, rt := viewerBench(t)
	hs.keys("/")
	hs.typeText("line 000300")
	v := hs.v
	if len(v.hits) != 1 || v.doc.lines[v.hits[0].line].num != 300 {
		t.Fatalf("hits %+v", v.hits)
	}
	if !strings.Contains(hs.view(), "line 000300") {
		t.Fatal("the hit is not on screen")
	}
	hs.keys("enter", "esc", "f")
	hs.typeText(`0\d{2}(1|2)00`)
	hs.keys("enter")
	if rt.callCount(`mcp_read_mem {"pattern":"0\\d{2}(1|2)00"`) != 1 {
		t.Fatalf("calls: %v", rt.calls)
	}
	// The header quotes the pattern as typed, one backslash.
	if v.doc.src.pattern == "" || v.doc.lines[0].mark == 0 || !strings.Contains(hs.view(), `lines match "0\d{2}(1|2)00"`) {
		t.Fatalf("pattern result not shown:\n%s", hs.view())
	}
	hs.keys("F")
	if v.doc.src.pattern != "" {
		t.Fatal("F did not clear the pattern")
	}
}

// The / box starts empty, so typing a new search replaces the old one
// instead of appending to it ("ERRORERROR"); enter on the empty box
// repeats the last search.
func TestViewerSearchBoxStartsEmptySoTypingReplacesTheLastSearch(t *testing.T) {
	hs, _ := viewerBench(t)
	hs.keys("/")
	hs.typeText("line 000300")
	hs.keys("enter", "/")
	if got := hs.v.search.Value(); got != "" {
		t.Fatalf("the search box opens holding %q", got)
	}
	if !strings.Contains(hs.view(), "line 000300 (enter searches it again)") {
		t.Errorf("the empty box does not offer the last search")
	}
	hs.keys("enter")
	if hs.v.query != "line 000300" || len(hs.v.hits) != 1 {
		t.Fatalf("enter on the empty box: query %q, %d hits", hs.v.query, len(hs.v.hits))
	}
	hs.keys("/")
	hs.typeText("line 000301")
	if hs.v.query != "line 000301" || len(hs.v.hits) != 1 {
		t.Fatalf("typing after / searched %q (%d hits), want line 000301", hs.v.query, len(hs.v.hits))
	}
}

// Wrapped text breaks between words, as a person reads it: no row ends
// inside a word ("in how┃" / "l, add"), and only a word longer than the
// row is cut.
func TestViewerWrapsAtWordBoundaries(t *testing.T) {
	h := newBench(t, 40, 20)
	words := strings.Fields(strings.Repeat("to chat in howl, add --model openai/gpt-4o to the command line ", 4))
	long := strings.Repeat("x", 70)
	h.rt.texts["mem://prose"] = strings.Join(words, " ") + " " + long + " end"
	h.open("mem://prose")
	if !h.v.wrapping() {
		h.keys("w")
	}
	var got []string
	body := false
	for _, l := range strings.Split(h.view(), "\n") {
		r := []rune(l)
		if strings.Contains(l, "────") {
			body = true // the rows after the header's rule
			continue
		}
		if body && len(r) > 2 && !strings.Contains(l, "━━━") {
			got = append(got, strings.Fields(string(r[1:len(r)-1]))...)
		}
	}
	known := map[string]bool{"end": true}
	for _, w := range words {
		known[w] = true
	}
	cut := ""
	for _, w := range got {
		switch {
		case strings.Trim(w, "x") == "":
			cut += w
		case !known[w] && w != "1": // 1: the gutter
			t.Errorf("a row splits a word: %q", w)
		}
	}
	if cut != long {
		t.Errorf("the word longer than a row must be cut across rows, whole: %d of %d x", len(cut), len(long))
	}
}

// A search keeps at most MaxSearchHits hits and says so; a frame groups
// only the hits on the lines it draws (it grouped all of them, millions
// for a one-letter search of a 4 MiB raw view, on every frame).
func TestASearchKeepsAtMostMaxSearchHitsAndSaysSo(t *testing.T) {
	hs, _ := viewerBench(t)
	lines := make([]docLine, 150_000)
	for i := range lines {
		lines[i] = docLine{num: i + 1, plain: "aa", styled: "aa", width: 2}
	}
	hs.v.doc.lines = lines
	hs.keys("/")
	hs.typeText("a")
	hs.keys("enter")
	if len(hs.v.hits) != MaxSearchHits {
		t.Errorf("%d hits kept, want MaxSearchHits (%d)", len(hs.v.hits), MaxSearchHits)
	}
	if view := hs.view(); !strings.Contains(view, "MaxSearchHits") {
		t.Errorf("the count does not say the hits were bounded:\n%s", view)
	}
	if by := hs.v.visibleHits(10, 20); len(by) != 10 || len(by[10]) != 2 {
		t.Errorf("the hits of lines 10-19: %v", by)
	}
}
