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
