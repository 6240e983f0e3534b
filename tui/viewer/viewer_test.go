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
