package common

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/howl-mcp/howl/render"
)

// Drawing helpers. Every width is measured and every cut made with x/ansi,
// so styled strings and wide characters keep the frame math right. Widths
// are per code point (wcwidth, the ...Wc functions), as tmux, xterm and
// most terminals count them; grapheme-cluster widths undercount emoji ZWJ
// sequences and some scripts there, and the frame would wrap.

const Reset = "\x1b[0m"

// fit cuts s to at most w cells and pads it with spaces to exactly w.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidthWc(s)
	if sw > w {
		s = ansi.TruncateWc(s, w, "…")
		sw = ansi.StringWidthWc(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// cutFit returns cells [from, from+w) of s, padded to exactly w.
func CutFit(s string, from, w int) string {
	if from > 0 {
		s = CutCells(s, from, from+w)
	}
	return Fit(s, w)
}

// widthOf is the display width of s in cells.
func WidthOf(s string) int { return ansi.StringWidthWc(s) }

// cutCells returns cells [from, to) of s. (ansi.CutWc of x/ansi v0.11.6
// truncates the wrong side, so the cut is made from its two halves.)
func CutCells(s string, from, to int) string {
	if to <= from {
		return ""
	}
	return ansi.TruncateLeftWc(ansi.TruncateWc(s, to, ""), from, "")
}

// truncate cuts s to at most w cells with an ellipsis, without padding.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidthWc(s) <= w {
		return s
	}
	return ansi.TruncateWc(s, w, "…")
}

// padLines makes exactly h lines of exactly w cells.
func PadLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := 0; i < h; i++ {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// box frames content lines (already at most w-2 cells wide) in a border of
// exactly w x h cells, with a title set into the top edge. The focused pane
// gets a thick border, so focus shows even without colour.
func Box(st BoxStyle, title string, content []string, w, h int) []string {
	if w < 2 || h < 2 {
		return PadLines(nil, max(w, 0), max(h, 0))
	}
	b := lipgloss.RoundedBorder()
	edge, titleStyle := st.Border, st.Title
	if st.Focused {
		b = lipgloss.ThickBorder()
		edge, titleStyle = st.BorderFocused, st.TitleFocused
	}
	inner := w - 2
	top := b.Top
	var head string
	if title != "" && inner > 4 {
		t := Truncate(title, inner-4)
		head = edge.Render(b.TopLeft+top) + titleStyle.Render(" "+t+" ")
		rest := inner - 1 - ansi.StringWidthWc(t) - 2
		head += edge.Render(strings.Repeat(top, max(rest, 0)) + b.TopRight)
	} else {
		head = edge.Render(b.TopLeft + strings.Repeat(top, inner) + b.TopRight)
	}
	out := make([]string, 0, h)
	out = append(out, head)
	left, right := edge.Render(b.Left), edge.Render(b.Right)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(content) {
			line = content[i]
		}
		out = append(out, left+Fit(line, inner)+right)
	}
	out = append(out, edge.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return out
}

// boxStyle is the styling of one box.
type BoxStyle struct {
	Focused               bool
	Border, BorderFocused lipgloss.Style
	Title, TitleFocused   lipgloss.Style
}

// joinColumns puts equal-height blocks of fixed-width lines side by side.
func JoinColumns(blocks ...[]string) []string {
	h := 0
	for _, b := range blocks {
		h = max(h, len(b))
	}
	out := make([]string, h)
	for i := range out {
		var sb strings.Builder
		for _, b := range blocks {
			if i < len(b) {
				sb.WriteString(b[i])
			}
		}
		out[i] = sb.String()
	}
	return out
}

// overlay draws the lines of top over base, with top's first cell at
// (x, y). Styles are reset at the seams so neither side bleeds into the other.
func Overlay(base []string, top []string, x, y int) []string {
	out := append([]string(nil), base...)
	for i, line := range top {
		row := y + i
		if row < 0 || row >= len(out) {
			continue
		}
		b := out[row]
		w := ansi.StringWidthWc(line)
		bw := ansi.StringWidthWc(b)
		left := CutCells(b, 0, x)
		if lw := ansi.StringWidthWc(left); lw < x {
			left += strings.Repeat(" ", x-lw)
		}
		right := ""
		if x+w < bw {
			right = CutCells(b, x+w, bw)
		}
		if strings.Contains(b, "\x1b") || strings.Contains(line, "\x1b") {
			left, line = left+Reset, line+Reset
		}
		out[row] = left + line + right
	}
	return out
}

// wrapText word-wraps plain text to w cells; newlines are kept.
func WrapText(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.WrapWc(s, w, ""), "\n")
}

// scrollMark says where a view of n rows, h of them shown from off, is:
// "Top", "Bot", "All" or a percentage, as pagers do.
func ScrollMark(off, n, h int) string {
	switch {
	case n <= h:
		return ""
	case off <= 0:
		return "Top"
	case off >= n-h:
		return "Bot"
	}
	return fmt.Sprintf("%d%%", Percent(off, n-h))
}

// PrettyJSON indents raw JSON with two spaces (on one line when indenting
// would multiply its size: render.IndentJSON), or returns it as it is when
// it does not parse.
func PrettyJSON(raw []byte) string {
	var b bytes.Buffer
	if _, err := render.IndentJSON(&b, bytes.TrimSpace(raw), "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
