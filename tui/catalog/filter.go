package catalog

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/howl-mcp/howl/tui/common"
)

// match is one Entry a filter kept, with the byte positions it matched in
// the Entry's hay.
type match struct {
	e   *Entry
	pos []int
}

// filterDoneMsg is the result of one filter run over every kind.
type filterDoneMsg struct {
	version int
	matches [numKinds][]match
}

// filterCmd matches query against every kind's entries, off the update
// path, best first (see rank.go). The entries are captured as they are;
// the catalog never mutates a published slice, it replaces it.
func filterCmd(id common.RequestID, version int, query string, all [numKinds][]*Entry) tea.Cmd {
	return common.Deliver(common.OwnerCatalog, id, func() tea.Msg {
		msg := filterDoneMsg{version: version}
		terms := queryTerms(query)
		for k, entries := range all {
			type ranked struct {
				m match
				r rank
			}
			var found []ranked
			for _, e := range entries {
				if r, pos, ok := matchEntry(&e.idx, terms); ok {
					found = append(found, ranked{match{e: e, pos: pos}, r})
				}
			}
			slices.SortStableFunc(found, func(a, b ranked) int {
				switch {
				case a.r.less(b.r):
					return -1
				case b.r.less(a.r):
					return 1
				}
				return 0
			})
			out := make([]match, len(found))
			for i, f := range found {
				out[i] = f.m
			}
			msg.matches[k] = out
		}
		return msg
	})
}

// highlightPositions styles s with base, and the bytes at pos (which index
// a string starting with s) with hit. Positions past s are ignored.
func highlightPositions(s string, pos []int, base, hit lipgloss.Style) string {
	if len(pos) == 0 {
		return base.Render(s)
	}
	var b strings.Builder
	set := make(map[int]bool, len(pos))
	for _, p := range pos {
		set[p] = true
	}
	start := 0
	flush := func(end int, st lipgloss.Style) {
		if end > start {
			b.WriteString(st.Render(s[start:end]))
		}
		start = end
	}
	inHit := false
	for i, r := range s {
		_ = r
		h := set[i]
		if h != inHit {
			if inHit {
				flush(i, hit)
			} else {
				flush(i, base)
			}
			inHit = h
		}
	}
	if inHit {
		flush(len(s), hit)
	} else {
		flush(len(s), base)
	}
	return b.String()
}
