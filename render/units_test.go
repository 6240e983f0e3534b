package render

import (
	"testing"
	"unicode/utf8"
)

func TestEllipsizeCutsAtACharacterBoundary(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"日本語テキスト", 7, "日本…"}, // 7 bytes falls inside the third character
		{"ab😀cd", 4, "ab…"},
		{"😀", 0, "…"},
	}
	for _, c := range cases {
		got := Ellipsize(c.s, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Ellipsize(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	if RuneBoundary("héllo", 2) != 1 || RuneBoundary("héllo", 99) != 6 {
		t.Error("RuneBoundary")
	}
}
