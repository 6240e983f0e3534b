package catalog

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/sahilm/fuzzy"

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
	matches [4][]match
}

// entrySource adapts entries to fuzzy.Source.
type entrySource []*Entry

func (s entrySource) String(i int) string { return s[i].hay }
func (s entrySource) Len() int            { return len(s) }

// filterCmd fuzzy-matches query against every kind's entries, off the
// update path. The entries are captured as they are; the catalog never
// mutates a published slice, it replaces it.
func filterCmd(id common.RequestID, version int, query string, all [4][]*Entry) tea.Cmd {
	return common.Deliver(common.OwnerCatalog, id, func() tea.Msg {
		msg := filterDoneMsg{version: version}
		for k, entries := range all {
			found := fuzzy.FindFrom(query, entrySource(entries))
			out := make([]match, len(found))
			for i, f := range found {
				out[i] = match{e: entries[f.Index], pos: append([]int(nil), f.MatchedIndexes...)}
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
