package viewer

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// Search within the viewer's document: client side, over the page on
// screen, smart case, every hit highlighted and the current one stronger.

// handleSearchKey edits the search; the hits follow every keystroke.
func (v *Pane) handleSearchKey(msg tea.KeyMsg) tea.Cmd {
	k := v.com.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		v.searching = false
		v.search.Blur()
		v.clearSearch()
		return nil
	case key.Matches(msg, k.Accept):
		v.searching = false
		v.search.Blur()
		if len(v.hits) == 0 && v.query != "" {
			return common.ReportWarn(fmt.Sprintf("%q is not on this page", v.query))
		}
		return nil
	}
	cmd := v.search.Update(msg)
	if q := v.search.Value(); q != v.query {
		v.query = q
		v.findHits(true)
	}
	return cmd
}

// clearSearch forgets the query and its hits.
func (v *Pane) clearSearch() {
	v.query, v.hits, v.cur = "", nil, 0
	v.search.SetValue("")
}

// findHits finds the query in every line (smart case: case-insensitive
// unless the query has an upper-case letter) and, with jump, moves to the
// first hit at or after the top.
func (v *Pane) findHits(jump bool) {
	v.hits, v.cur = nil, 0
	d := v.doc
	if d == nil || v.query == "" {
		return
	}
	q := v.query
	fold := !strings.ContainsFunc(q, unicode.IsUpper)
	if fold {
		q = strings.ToLower(q)
	}
	for i, l := range d.lines {
		text := l.plain
		if fold {
			text = strings.ToLower(text)
		}
		if len(text) != len(l.plain) {
			text = l.plain // lower-casing changed byte offsets: match as written
		}
		for off := 0; len(v.hits) < MaxSearchHits; {
			j := strings.Index(text[off:], q)
			if j < 0 {
				break
			}
			v.hits = append(v.hits, hit{i, off + j, off + j + len(q)})
			off += j + max(len(q), 1)
		}
	}
	if jump && len(v.hits) > 0 {
		top := v.lineAtRow(d.top)
		v.cur = sort.Search(len(v.hits), func(i int) bool { return v.hits[i].line >= top })
		if v.cur == len(v.hits) {
			v.cur = 0
		}
		v.showHit()
	}
}

// stepHit moves to the next (1) or previous (-1) hit, wrapping around.
func (v *Pane) stepHit(dir int) {
	if len(v.hits) == 0 {
		return
	}
	v.cur = (v.cur + dir + len(v.hits)) % len(v.hits)
	v.showHit()
}

// showHit scrolls so the current hit is on screen, a third from the top.
func (v *Pane) showHit() {
	d := v.doc
	h := v.hits[v.cur]
	row := v.rowOfLine(h.line)
	if !v.wrapping() {
		col := common.WidthOf(d.lines[h.line].plain[:h.start])
		if col < d.xoff || col >= d.xoff+v.textW() {
			d.xoff = max(col-v.textW()/3, 0)
		}
	}
	if row < d.top || row >= d.top+v.bodyH() {
		d.top = common.Clamp(row-v.bodyH()/3, 0, max(v.rowCount()-v.bodyH(), 0))
	}
}

// rowOfLine is the first screen row of a line (lines wrap into rows).
func (v *Pane) rowOfLine(line int) int {
	if !v.wrapping() {
		return line
	}
	v.layoutRows()
	return v.rowStart[line]
}

// lineAtRow is the line a screen row belongs to.
func (v *Pane) lineAtRow(row int) int {
	if !v.wrapping() {
		return row
	}
	v.layoutRows()
	i := sort.Search(len(v.rowStart), func(i int) bool { return v.rowStart[i] > row })
	return max(i-1, 0)
}

// MaxSearchHits bounds the hits a search keeps: a one-letter search of a
// 4 MiB raw view has millions, each kept and, before, grouped on every
// frame. The count says when it was reached; the hits past it are not
// marked.
const MaxSearchHits = 100_000

// visibleHits groups by line the hits on lines [from, to), the lines a
// frame draws (hits are in line order).
func (v *Pane) visibleHits(from, to int) map[int][]int {
	i := sort.Search(len(v.hits), func(i int) bool { return v.hits[i].line >= from })
	if i == len(v.hits) || v.hits[i].line >= to {
		return nil
	}
	out := map[int][]int{}
	for ; i < len(v.hits) && v.hits[i].line < to; i++ {
		out[v.hits[i].line] = append(out[v.hits[i].line], i)
	}
	return out
}

// markHits draws a line's plain text with its hits highlighted (the
// current one more strongly).
func (v *Pane) markHits(plain string, idx []int) string {
	st := v.com.Styles
	var b strings.Builder
	pos := 0
	for _, i := range idx {
		h := v.hits[i]
		if h.start < pos {
			continue
		}
		b.WriteString(plain[pos:h.start])
		style := st.Viewer.Search
		if i == v.cur {
			style = st.Viewer.SearchCurrent
		}
		b.WriteString(style.Render(plain[h.start:h.end]))
		pos = h.end
	}
	b.WriteString(plain[pos:])
	return b.String()
}
