package viewer

import (
	"github.com/charmbracelet/x/ansi"
)

// wrapStarts is where each row of a line starts, in cells, when the line
// wraps at w cells: after the last space that fits, and inside a word
// only when the word alone is longer than the row. plain is the line's
// text and width its width in cells.
func wrapStarts(plain string, width, w int) []int {
	starts := []int{0}
	if width <= w || w <= 0 {
		return starts
	}
	row, brk, p := 0, -1, 0 // the row's start, the cell after its last space, this rune's cell
	for _, r := range plain {
		cw := ansi.StringWidthWc(string(r))
		for p+cw-row > w {
			if brk > row {
				row = brk
			} else {
				row = p
			}
			brk = -1
			starts = append(starts, row)
			if p+cw-row > w { // a rune wider than the row: it takes one alone
				break
			}
		}
		p += cw
		if r == ' ' {
			brk = p
		}
	}
	return starts
}

// wrapRows is how many rows a line of plain text (width cells) takes
// wrapped at w cells.
func wrapRows(plain string, width, w int) int {
	if width <= w {
		return 1
	}
	return len(wrapStarts(plain, width, w))
}
