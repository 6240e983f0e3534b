package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

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
			if ctx.Err() == nil {
				msg.matches[k], msg.rows[k], msg.best[k] = filteredRows(ctx, job.spans[k], entries, keys, job.query)
			}
			keyBufs.put(keys)
			if ctx.Err() != nil {
				msg.recycle()
				return nil
			}
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
	keys, next := keyBufs.get(n), make([]int32, n) // next is kept (cands), and read by the runs that narrow it
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
		keyBufs.put(keys)
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
		keyBufs.put(keys)
		return nil, nil, 0
	}
	return keys, slices.Clip(next[:nc]), slices.Max(append(nameW, 0))
}

// A run's big slices (its keys, matches and rows: 6.5 MB for the
// 100,000 matches of "s") come from pools and go back once nothing reads
// them: the keys at the end of the run, the matches and rows when the
// next run is shown (handleFilter) or when a run is cancelled. Fresh
// memory is dear: a page the process never wrote faults in on its first
// write, and until the collector runs, which it rarely does while keys
// are typed, every run's slices are fresh. On this project's 2-core VM
// writing 100,000 new rows took 15 ms and writing them again 0.15 ms; in
// the TUI, placing the rows of "s" took 11-22 ms of a 25-38 ms run.
// The candidates (cands) stay out: the run that narrows them reads them
// while the next may already be shown.
var (
	keyBufs   bufPool[uint64]
	entryBufs bufPool[*Entry]
	rowBufs   bufPool[row]
)

// pooledBufs is how many slices a bufPool keeps: a run in flight and the
// one shown before it, two of each kind's slices at most.
const pooledBufs = 2

// bufPool keeps up to pooledBufs slices of T for reuse, the biggest
// given back (a sync.Pool would not do: the update path gives a slice
// back on its own processor's private slot, which the run's goroutine on
// another cannot take). What it holds is bounded by the catalog: no
// slice is longer than a kind's entries and servers.
type bufPool[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// get is a slice of n: a pooled one when it fits (big enough, and not
// so big that a few rows would hold 100,000 rows' memory), its elements
// left as they were (the caller writes every one), or a new one.
func (b *bufPool[T]) get(n int) []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.free {
		if cap(s) >= n && cap(s) <= 4*n+4096 {
			b.free = slices.Delete(b.free, i, i+1)
			clear(s[n:cap(s)]) // past n: no old pointers kept alive
			return s[:n]
		}
	}
	return make([]T, n)
}

// put gives s back for reuse; nothing may read it after. Past
// pooledBufs, the smallest slice held is dropped.
func (b *bufPool[T]) put(s []T) {
	if cap(s) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free = append(b.free, s[:0])
	if len(b.free) > pooledBufs {
		small := 0
		for i, f := range b.free {
			if cap(f) < cap(b.free[small]) {
				small = i
			}
		}
		b.free = slices.Delete(b.free, small, small+1)
	}
}

// recycle gives the run's matches and rows back to their pools: the run
// was cancelled, or the next one is shown.
func (msg *filterDoneMsg) recycle() {
	for k := range msg.rows {
		entryBufs.put(msg.matches[k])
		rowBufs.put(msg.rows[k])
		msg.matches[k], msg.rows[k] = nil, nil
	}
}

// rowChunk is how many matches a worker places between checks of its
// context, when the rows of a run are built.
const rowChunk = 8192

// filteredRows are the matching entries of one kind, best first, and
// their rows under a filter: each server with a match under its header,
// the server with the best match first, or a notice that nothing matches;
// and the row of the best match (-1 when there is none). keys are the
// matches' (see matchEntries), entries the kind's, spans its servers.
//
// At 100,000 matches this was the run's longest part on one core (5 ms
// of the 13 its workers took before it), so it is split the way the
// matching is: the workers count each chunk's matches by server, one
// pass over the counts finds where each server's rows start and where
// each chunk's rows of it go, and the workers then write their rows
// there. Matches of one rank keep entry order, which is server order, so
// they come in runs of one server: the span last found is tried first.
func filteredRows(ctx context.Context, spans []serverSpan, entries []*Entry, keys []uint64, query string) ([]*Entry, []row, int) {
	if len(keys) == 0 {
		return []*Entry{}, []row{{kind: rowNotice, text: fmt.Sprintf("nothing matches %q", query)}}, -1
	}
	chunks, ns := (len(keys)+rowChunk-1)/rowChunk, len(spans)
	count := make([]int, chunks*ns) // chunk c's matches of span s at c*ns+s
	firsts := make([][]int, chunks) // each chunk's spans, in the order their first match comes
	common.RunChunks(ctx, chunks, func() func(int) {
		return func(c int) {
			n, last := count[c*ns:(c+1)*ns], -1
			for _, k := range keys[c*rowChunk : min(len(keys), (c+1)*rowChunk)] {
				last = spanOf(spans, int32(k&keyPlaceMask), last)
				if n[last] == 0 {
					firsts[c] = append(firsts[c], last)
				}
				n[last]++
			}
		}
	})
	if ctx.Err() != nil {
		return nil, nil, 0
	}
	// The servers in the order their first match comes; each gets its
	// header, then each chunk's matches of it in chunk order. count
	// becomes where a chunk's next row of a span goes.
	var order []int
	seen := make([]bool, ns)
	for _, f := range firsts {
		for _, s := range f {
			if !seen[s] {
				seen[s] = true
				order = append(order, s)
			}
		}
	}
	rows := rowBufs.get(len(keys) + len(order)) // every row is written below
	at := 0
	for _, s := range order {
		rows[at] = row{kind: rowHeader, server: spans[s].sv}
		at++
		for c := range chunks {
			n := count[c*ns+s]
			count[c*ns+s] = at
			at += n
		}
	}
	matches := entryBufs.get(len(keys)) // every match is written below
	common.RunChunks(ctx, chunks, func() func(int) {
		return func(c int) {
			next, last := count[c*ns:(c+1)*ns], -1
			for i := c * rowChunk; i < min(len(keys), (c+1)*rowChunk); i++ {
				p := int32(keys[i] & keyPlaceMask)
				last = spanOf(spans, p, last)
				matches[i] = entries[p]
				rows[next[last]] = row{kind: rowItem, server: spans[last].sv, e: entries[p]}
				next[last]++
			}
		}
	})
	if ctx.Err() != nil {
		rowBufs.put(rows)
		entryBufs.put(matches)
		return nil, nil, 0
	}
	return matches, rows, 1 // the best match leads the first server's rows
}

// spanOf is the span holding the entry at place p: last (the span found
// for the match before, when >= 0) if it holds it, else the first whose
// end is past p.
func spanOf(spans []serverSpan, p int32, last int) int {
	if last >= 0 && p < spans[last].end && (last == 0 || p >= spans[last-1].end) {
		return last
	}
	s := 0
	for s < len(spans)-1 && p >= spans[s].end {
		s++
	}
	return s
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
