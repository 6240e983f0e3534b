package viewer

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/tui/common"
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

// wrapPlain wraps one line of plain text at w cells the way wrapStarts
// does (at spaces; a word is cut only when longer than the row).
func wrapPlain(s string, w int) []string {
	width := common.WidthOf(s)
	starts := wrapStarts(s, width, w)
	out := make([]string, len(starts))
	for i, st := range starts {
		end := width
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		out[i] = strings.TrimRight(common.CutCells(s, st, end), " ")
	}
	return out
}

// wrapLabelled wraps a "label   value" line at w cells, its continuation
// rows indented under the value, and cuts it with "…" after n rows.
func wrapLabelled(s string, w, n int) []string {
	indent := 0
	if i := strings.Index(s, "  "); i > 0 && i <= 10 && !strings.Contains(s[:i], " ") {
		indent = i + len(s[i:]) - len(strings.TrimLeft(s[i:], " "))
	}
	if indent == 0 || w-indent < 10 {
		return cutRows(wrapPlain(s, w), w, n)
	}
	rows := wrapPlain(s[indent:], w-indent)
	for i := range rows {
		pre := strings.Repeat(" ", indent)
		if i == 0 {
			pre = s[:indent]
		}
		rows[i] = pre + rows[i]
	}
	return cutRows(rows, w, n)
}

// cutRows keeps the first n rows, the last ending in "…" when any were cut.
func cutRows(rows []string, w, n int) []string {
	if len(rows) > n {
		rows = rows[:n]
		rows[n-1] = common.Truncate(rows[n-1]+" …", w)
	}
	return rows
}
