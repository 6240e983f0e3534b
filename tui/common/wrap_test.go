package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A flag, a path and a URL are never split across lines; a word longer
// than the line is cut at the edge, and no line is wider than asked.
func TestWrapWordsKeepsFlagsAndPathsWhole(t *testing.T) {
	s := "no chat model is configured in howl, so nothing can answer: start howl with --model provider/name, or write /home/someone/.config/howl/config.json (see https://example.com/howl-docs/models)"
	for w := 20; w <= 90; w++ {
		lines := WrapWords(s, w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q is wider", w, l)
			}
		}
		joined := "\n" + strings.Join(lines, "\n") + "\n"
		for _, whole := range []string{"--model", "/home/someone/.config/howl/config.json", "https://example.com/howl-docs/models)"} {
			if len(whole) <= w && !strings.Contains(joined, whole) {
				t.Fatalf("width %d split %q:\n%s", w, whole, joined)
			}
		}
		if strings.Join(strings.Fields(strings.Join(lines, "")), "") != strings.Join(strings.Fields(s), "") {
			t.Fatalf("width %d lost words:\n%s", w, joined)
		}
	}
	if got := WrapWords("abcdefghij xy", 4); strings.Join(got, "|") != "abcd|efgh|ij|xy" {
		t.Errorf("a word longer than the line: %q", got)
	}
	if got := WrapWords("a\n\nb", 10); strings.Join(got, "|") != "a||b" {
		t.Errorf("line breaks: %q", got)
	}
}

// WrapText, which dialogs used, breaks after a hyphen: the reason
// WrapWords exists.
func TestWrapTextSplitsAFlagWhereWrapWordsDoesNot(t *testing.T) {
	s := "start howl with --model provider/name"
	if lines := WrapText(s, 17); !strings.Contains(strings.Join(lines, "\n"), "-\n-model") && !strings.Contains(strings.Join(lines, "\n"), "--\nmodel") {
		t.Skipf("WrapText keeps %q whole now: %q", "--model", lines)
	}
	if lines := WrapWords(s, 17); !strings.Contains(strings.Join(lines, "\n"), "--model") {
		t.Fatalf("WrapWords split the flag: %q", lines)
	}
}

// An indented line keeps its indent when it wraps.
func TestWrapWordsKeepsTheFirstLinesIndent(t *testing.T) {
	got := WrapWords(`    "path": "/a/long/path/that/does/not/fit"`, 30)
	if got[0] != `    "path":` || got[1] != `"/a/long/path/that/does/not/fi` {
		t.Errorf("wrapped %q", got)
	}
}

// A word longer than a line is cut at the edge, wide characters whole,
// and the parts put back together are the word: a server's 1 MiB URL with
// no space in it (once quadratic to cut, on the update path) included.
func TestWrapWordsCutsALongWordAtTheEdgeInOnePass(t *testing.T) {
	for _, c := range []struct {
		word string
		w    int
	}{
		{strings.Repeat("a", 25), 10},
		{strings.Repeat("漢", 9), 5}, // 2 cells each: 4 a line, never 5 cells split
		{strings.Repeat("e\u0301", 7) + strings.Repeat("🐺", 3), 4},
		{"https://evil.example/" + strings.Repeat("x", 1<<20), 80},
	} {
		lines := WrapWords(c.word, c.w)
		if got := strings.Join(lines, ""); got != c.word {
			t.Errorf("cut at %d, the parts do not make the word again (%d bytes of %d)", c.w, len(got), len(c.word))
		}
		for i, l := range lines {
			if lw := ansi.StringWidth(l); lw > c.w || i < len(lines)-1 && lw < c.w-1 {
				t.Errorf("cut at %d, line %d is %d cells: %q", c.w, i, lw, ansi.Truncate(l, 40, "…"))
				break
			}
		}
	}
}
