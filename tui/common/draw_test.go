package common

import (
	"strings"
	"testing"
)

func TestCutCellsTakesTheMiddleOfAStyledWideString(t *testing.T) {
	s := "\x1b[1mab\x1b[0m漢字cd"
	if got := CutCells(s, 2, 6); got != "\x1b[1m\x1b[0m漢字" && strings.ReplaceAll(got, "\x1b[1m\x1b[0m", "") != "漢字" {
		t.Fatalf("cutCells = %q", got)
	}
	if got := CutCells("abcdefgh", 3, 6); got != "def" {
		t.Fatalf("cutCells = %q", got)
	}
}

func TestOverlayKeepsBothSidesOfTheBase(t *testing.T) {
	base := []string{"0123456789", "abcdefghij"}
	out := Overlay(base, []string{"XY"}, 4, 1)
	if out[0] != base[0] || out[1] != "abcdXYghij" {
		t.Fatalf("overlay = %q", out)
	}
}

func TestFitPadsAndCutsToExactWidth(t *testing.T) {
	for _, s := range []string{"", "short", "a much longer line than the width", "漢字漢字漢字"} {
		if w := WidthOf(Fit(s, 7)); w != 7 {
			t.Errorf("fit(%q, 7) is %d wide", s, w)
		}
	}
}
