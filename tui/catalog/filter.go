package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/howl-mcp/howl/tui/common"
)

// The catalog filter keeps up at 120,000 items (issue 20). The ranking
// is rank.go's; around it:
//   - a run is split across the cores in chunks, checks its context and
//     yields to the update path (the next key's echo) between chunks, and
//     is cancelled when the next key starts another;
//   - a query that extends the last one shown searches only the entries
//     that run kept as candidates: those holding every term's letters in
//     order, which every match of a longer query does (a match itself is
//     not enough: "res12" matches resource-0012, "res1" does not);
//   - a match is one integer while the run sorts (its rank and place,
//     packed: rank.key), and keeps no positions: the rows on screen find
//     theirs when drawn (Pane.matchPositions);
//   - it returns the rows to show (with their name column's width and the
//     best match's row), built off the update path, so the update path
//     only swaps them in; and the rows without a filter are kept while
//     one is shown, so clearing it is a swap too;
//   - what runs on one core after the workers is kept to a pass over the
//     sorted keys: a match's server is found from its place (each
//     server's entries are one span of the kind's), and the name column's
//     width is found by the workers, so no entry is read twice.

// filterDoneMsg is the result of one filter run over every kind.
type filterDoneMsg struct {
	version int
	query   string
	// matches are each kind's matching entries, best first.
	matches [numKinds][]*Entry
	// cands are the indexes in each kind's entries that hold every term's
	// letters in order, in entry order: a superset of the matches of any
	// query that extends this one.
	cands [numKinds][]int32
	// rows are the rows to show per kind, nameW their name column's width
	// and best the row of the best match (-1 when there is none).
	rows  [numKinds][]row
	nameW [numKinds]int
	best  [numKinds]int
}

// filterState is the pane's filter bookkeeping.
type filterState struct {
	cancel context.CancelFunc // the run in flight
	// last is the newest run shown, for narrowing the next one.
	last *filterDoneMsg
	// plain are the rows without a filter (and their name width), valid
	// while plainOK.
	plain   [numKinds][]row
	plainW  [numKinds]int
	plainOK bool
	// terms are the shown run's query terms; hl and hlPos the scratch that
	// finds a drawn row's matched positions.
	terms terms
	hl    matcher
	hlPos []int
}

// stop cancels the run in flight, if any.
func (f *filterState) stop() {
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
}

// filterJob is what one run needs, captured on the update path: the
// catalog never mutates a published entry slice, it replaces it.
type filterJob struct {
	id      common.RequestID
	version int
	query   string
	all     [numKinds][]*Entry
	// base, when set, is the run for a prefix of query over the same
	// entries: only its candidates can match.
	base *filterDoneMsg
	// spans are each kind's servers, in the order of all's entries.
	spans [numKinds][]serverSpan
}

// serverSpan is one server's entries in a kind's entries: those before
// end, from the previous span's end.
type serverSpan struct {
	sv  *Server
	end int32
}

// filterCmd runs job off the update path, best first (see rank.go); its
// answer travels to the catalog in the result envelope. A run cancelled
// by ctx (a newer key) answers nothing.
func filterCmd(ctx context.Context, job filterJob) tea.Cmd {
	return common.Deliver(common.OwnerCatalog, job.id, func() tea.Msg {
		msg := &filterDoneMsg{version: job.version, query: job.query}
		terms := queryTerms(job.query)
		for k, entries := range job.all {
			var cands []int32
			if job.base != nil {
				cands = job.base.cands[k]
			}
			var keys []uint64
			keys, msg.cands[k], msg.nameW[k] = matchEntries(ctx, terms, entries, cands, job.base != nil)
			if ctx.Err() != nil {
				return nil
			}
			msg.matches[k] = make([]*Entry, len(keys))
			for o, key := range keys {
				msg.matches[k][o] = entries[key&keyPlaceMask]
			}
			msg.rows[k], msg.best[k] = filteredRows(job.spans[k], msg.matches[k], keys, job.query)
		}
		return *msg
	})
}

// filterChunk is how many entries a worker matches between checks of
// its context (about a millisecond's work).
const filterChunk = 2048

// matchEntries matches terms against entries (only those at cands when
// narrow), in parallel, and returns the matches' keys best first (ties in
// entry order; a key's low bits are the entry's place), the candidates
// for a longer query and the widest match's name, in cells.
func matchEntries(ctx context.Context, terms terms, entries []*Entry, cands []int32, narrow bool) ([]uint64, []int32, int) {
	entries = entries[:min(len(entries), maxRankedEntries)]
	n := len(entries)
	if narrow {
		n = len(cands)
	}
	// Each chunk writes its keys and candidates at its own place in two
	// arrays of n, counting them; they are closed up below.
	keys, next := make([]uint64, n), make([]int32, n)
	chunks := (n + filterChunk - 1) / filterChunk
	nKeys, nCands, nameW := make([]int, chunks), make([]int, chunks), make([]int, chunks)
	common.RunChunks(ctx, chunks, func() func(int) {
		var m matcher
		var pos []int
		return func(c int) {
			lo, hi := c*filterChunk, min(n, (c+1)*filterChunk)
			nk, nc, w := lo, lo, 0
			for j := lo; j < hi; j++ {
				i := int32(j)
				if narrow {
					i = cands[j]
				}
				e := entries[i]
				ix := &e.idx
				if !holdsEveryTerm(ix, terms) {
					continue
				}
				next[nc] = i
				nc++
				var r rank
				var ok bool
				if r, pos, ok = m.matchEntry(pos[:0], ix, terms); ok {
					keys[nk] = r.key(i)
					nk++
					w = max(w, e.nameCells)
				}
			}
			nKeys[c], nCands[c], nameW[c] = nk-lo, nc-lo, w
		}
	})
	if ctx.Err() != nil {
		return nil, nil, 0
	}
	nk, nc := 0, 0
	for c := range chunks {
		nk += copy(keys[nk:], keys[c*filterChunk:c*filterChunk+nKeys[c]])
		nc += copy(next[nc:], next[c*filterChunk:c*filterChunk+nCands[c]])
	}
	keys = keys[:nk]
	slices.Sort(keys)
	if ctx.Err() != nil { // cancelled while sorting: the rows are not wanted
		return nil, nil, 0
	}
	return keys, slices.Clip(next[:nc]), slices.Max(append(nameW, 0))
}

// filteredRows are the rows of one kind under a filter: each server with
// a match under its header, the server with the best match first, or a
// notice that nothing matches; and the row of the best match (-1 when
// there is none). keys are the matches' (see matchEntries), spans the
// kind's servers.
func filteredRows(spans []serverSpan, matches []*Entry, keys []uint64, query string) ([]row, int) {
	if len(matches) == 0 {
		return []row{{kind: rowNotice, text: fmt.Sprintf("nothing matches %q", query)}}, -1
	}
	// Each server's matches go under its header in one pass: count them,
	// then place each where its server's rows start. Matches of one rank
	// keep entry order, which is server order, so they come in runs of one
	// server: the span last found is tried first.
	var order []int                    // spans, in the order their first match comes
	place := make([]int, len(spans))   // index in order + 1; 0 while unseen
	count := make([]int, len(spans)+1) // by index in order
	spanOf := func(p int32, last int) int {
		if last >= 0 && p < spans[last].end && (last == 0 || p >= spans[last-1].end) {
			return last
		}
		s := 0
		for s < len(spans)-1 && p >= spans[s].end {
			s++
		}
		return s
	}
	last := -1
	for _, k := range keys {
		last = spanOf(int32(k&keyPlaceMask), last)
		if place[last] == 0 {
			order = append(order, last)
			place[last] = len(order)
		}
		count[place[last]-1]++
	}
	rows := make([]row, len(matches)+len(order))
	next := make([]int, len(order))
	at := 0
	for o, s := range order {
		rows[at] = row{kind: rowHeader, server: spans[s].sv}
		next[o] = at + 1
		at += 1 + count[o]
	}
	last = -1
	for i, k := range keys {
		last = spanOf(int32(k&keyPlaceMask), last)
		o := place[last] - 1
		rows[next[o]] = row{kind: rowItem, server: spans[last].sv, e: matches[i]}
		next[o]++
	}
	return rows, 1 // the best match leads the first server's rows
}

// nameWidth is the name column's width over rows, in cells.
func nameWidth(rows []row) int {
	w := 0
	for _, r := range rows {
		if r.kind == rowItem {
			w = max(w, r.e.nameCells)
		}
	}
	return w
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
