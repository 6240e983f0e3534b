package catalog

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ranking the filter's matches the way a person reads them: the name
// itself first, then a name that starts with the query, then a word of
// the name that does, then the query anywhere in the name; then the same
// in the title and id. A query that is not a substring still matches when
// it reads as the starts of words ("lr" list_roots, "getim"
// get_tiny_image), and a last piece of two or more letters may follow
// inside a word ("res12" resource-0012). Letters scattered over many words
// ("moon" in demo://notes/note-009) do not match at all.

// The tiers of a match, best first.
const (
	tierExact = iota
	tierNamePrefix
	tierNameWord
	tierNameSubstring
	tierOtherWord
	tierOtherSubstring
	tierWordStarts
	noMatch
)

// hayIndex is an entry's hay folded to lower case, rune by rune, with the
// byte offset of each rune (match positions are bytes of the hay) and
// where its words start. A hay that is all ASCII (most are) keeps its
// folded bytes too, for the in-order check every entry of a run gets, and
// no offsets (a rune's offset is its index).
type hayIndex struct {
	// low is the folded runes; nil when the hay is ASCII, whose folded
	// bytes are ascii, matched as bytes (see letter), so an entry does
	// not keep four bytes a letter (at 120,000 items, 24 MB the heap held
	// and every collection marked).
	low   []rune
	ascii []byte // the folded bytes; nil unless the hay is ASCII
	off   []int  // nil when ascii is set
	word  []bool
	nameN int // runes of the name, the hay's first part
}

// maxHayRunes bounds what the filter reads of one entry (a server's
// names and titles can be long): the runes past it are not matched.
const maxHayRunes = 1024

// newHayIndex indexes hay, whose first nameBytes bytes are the name.
func newHayIndex(hay string, nameBytes int) hayIndex {
	if isASCII(hay) {
		n := min(len(hay), maxHayRunes)
		ix := hayIndex{ascii: make([]byte, n), word: make([]bool, n), nameN: min(nameBytes, n)}
		prev := rune(0)
		for i := range n {
			r := rune(hay[i])
			ix.word[i] = i == 0 || !isWordRune(prev) && isWordRune(r) || unicode.IsLower(prev) && unicode.IsUpper(r)
			ix.ascii[i] = byte(unicode.ToLower(r))
			prev = r
		}
		return ix
	}
	n := min(utf8.RuneCountInString(hay), maxHayRunes)
	ix := hayIndex{low: make([]rune, 0, n), word: make([]bool, 0, n), off: make([]int, 0, n)}
	prev := rune(0)
	for i, r := range hay {
		if len(ix.low) == maxHayRunes {
			break
		}
		if i < nameBytes {
			ix.nameN++
		}
		start := len(ix.low) == 0 || !isWordRune(prev) && isWordRune(r) ||
			unicode.IsLower(prev) && unicode.IsUpper(r)
		ix.low = append(ix.low, unicode.ToLower(r))
		ix.off = append(ix.off, i)
		ix.word = append(ix.word, start)
		prev = r
	}
	return ix
}

// letter is what a folded hay is made of: bytes for an ASCII hay (most
// are), runes for any other. The matcher is written once for both, so an
// ASCII hay is matched as the bytes it keeps, never copied into runes.
type letter interface{ byte | rune }

// index is the place of c's first match in s, or -1: a byte search for
// bytes.
func index[T letter](s []T, c T) int {
	if b, ok := any(s).([]byte); ok {
		return bytes.IndexByte(b, byte(c))
	}
	return slices.Index(s, c)
}

// folded is a hay's folded letters with its word starts, what the
// matcher reads (see hayIndex).
type folded[T letter] struct {
	low   []T
	word  []bool
	off   []int // nil when a letter's offset is its index
	nameN int   // letters of the name, the hay's first part
}

// bytesOf is an ASCII ix as its folded bytes.
func (ix *hayIndex) bytesOf() folded[byte] {
	return folded[byte]{low: ix.ascii, word: ix.word, nameN: ix.nameN}
}

// runesOf is a non-ASCII ix as its folded runes.
func (ix *hayIndex) runesOf() folded[rune] {
	return folded[rune]{low: ix.low, word: ix.word, off: ix.off, nameN: ix.nameN}
}

// offset is the byte offset in the hay of letter i.
func (ix *folded[T]) offset(i int) int {
	if ix.off == nil {
		return i
	}
	return ix.off[i]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// rank is how well a query matched an entry: lower sorts first, by
// worst tier, then their sum, then the first matched rune, then the
// name's length (see key).
type rank struct {
	worst, sum, first, nameLen int
}

// A rank and an entry's place pack into one uint64 that sorts as
// (rank, place) does, so a run sorts plain integers: from the top, worst
// (3 bits), sum (9), first (11), nameLen (11), the place (30). first and
// nameLen are at most maxHayRunes; a sum past 511 (a query of more than
// 85 words) ties.
const (
	keyPlaceBits = 30
	keyPlaceMask = 1<<keyPlaceBits - 1
	// maxRankedEntries is how many entries of one kind a run ranks: the
	// places a key holds. MaxCatalogItems a server keeps any real set of
	// servers far below it.
	maxRankedEntries = 1 << keyPlaceBits
)

// key packs r with the entry's place i (see keyPlaceBits).
func (r rank) key(i int32) uint64 {
	return uint64(r.worst)<<61 | uint64(min(r.sum, 1<<9-1))<<52 |
		uint64(min(r.first, 1<<11-1))<<41 | uint64(min(r.nameLen, 1<<11-1))<<keyPlaceBits | uint64(i)
}

// terms are a query's lower-cased words (every one must match), as runes
// for the matcher and, when all are ASCII, as bytes for the in-order check.
type terms struct {
	runes [][]rune
	ascii [][]byte // nil unless every term is ASCII
}

// queryTerms splits a query into its terms.
func queryTerms(query string) terms {
	var t terms
	low := strings.ToLower(query)
	for _, f := range strings.Fields(low) {
		t.runes = append(t.runes, []rune(f))
	}
	if isASCII(low) {
		for _, f := range t.runes {
			t.ascii = append(t.ascii, []byte(string(f)))
		}
	}
	return t
}

// holdsEveryTerm reports whether every term's runes appear in ix in
// order: what every match needs, and cheap to rule out first.
func holdsEveryTerm(ix *hayIndex, t terms) bool {
	if ix.ascii != nil {
		// A folded ASCII hay holds no other rune.
		if t.ascii == nil {
			return false
		}
		for _, q := range t.ascii {
			if !holdsInOrder(q, ix.ascii) {
				return false
			}
		}
		return true
	}
	for _, q := range t.runes {
		if !isSubsequence(q, ix.low) {
			return false
		}
	}
	return true
}

// holdsInOrder is isSubsequence over bytes, a byte search at a time.
func holdsInOrder(q, s []byte) bool {
	for _, c := range q {
		i := bytes.IndexByte(s, c)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}

// matcher is one goroutine's scratch for matching many entries: the
// word-starts search's memory of dead ends, reused from entry to entry.
type matcher struct {
	failed []uint32 // gen where a state led nowhere
	gen    uint32
	run    []int
	path   []int // the letters the word-starts search has matched so far
}

// matchEntry ranks ix against every term; ok is false when one of them
// does not match. The matched byte positions in the hay are appended to
// dst, sorted and without repeats.
func (m *matcher) matchEntry(dst []int, ix *hayIndex, t terms) (r rank, out []int, ok bool) {
	if ix.ascii != nil {
		if t.ascii == nil { // a folded ASCII hay holds no other rune
			return rank{}, dst, false
		}
		return matchFolded(m, dst, ix.bytesOf(), t.ascii)
	}
	return matchFolded(m, dst, ix.runesOf(), t.runes)
}

// matchFolded is matchEntry over one kind of letter.
func matchFolded[T letter](m *matcher, dst []int, ix folded[T], terms [][]T) (r rank, out []int, ok bool) {
	r.nameLen = ix.nameN
	r.first = len(ix.low)
	start := len(dst)
	for _, q := range terms {
		tier, at := matchTerm(m, &ix, q)
		if tier == noMatch {
			return rank{}, dst[:start], false
		}
		r.worst = max(r.worst, tier)
		r.sum += tier
		r.first = min(r.first, at[0])
		for _, i := range at {
			dst = append(dst, ix.offset(i))
		}
	}
	if len(terms) > 1 {
		slices.Sort(dst[start:])
		dst = append(dst[:start], slices.Compact(dst[start:])...)
	}
	return r, dst, true
}

// matchTerm is the best tier of q in ix and the runes it matched (valid
// until the next call). The caller has checked that ix holds q's runes in
// order (holdsEveryTerm), which every match needs.
func matchTerm[T letter](m *matcher, ix *folded[T], q []T) (int, []int) {
	best, at := noMatch, -1
	for i := 0; i+len(q) <= len(ix.low) && best > bestFrom(ix, i); i++ {
		j := index(ix.low[i:len(ix.low)-len(q)+1], q[0])
		if j < 0 {
			break
		}
		// bestFrom only worsens further on, so checking it at the
		// skipped letters would not have stopped sooner.
		if i += j; best <= bestFrom(ix, i) {
			break
		}
		if !slices.Equal(ix.low[i:i+len(q)], q) {
			continue
		}
		if t := substringTier(ix, i, len(q)); t < best {
			best, at = t, i
		}
	}
	if best != noMatch {
		m.run = m.run[:0]
		for k := range q {
			m.run = append(m.run, at+k)
		}
		return best, m.run
	}
	if run := wordStarts(m, ix, q); run != nil {
		return tierWordStarts, run
	}
	return noMatch, nil
}

// isSubsequence reports whether q's runes appear in s in order.
func isSubsequence(q, s []rune) bool {
	k := 0
	for _, r := range s {
		if k == len(q) {
			break
		}
		if r == q[k] {
			k++
		}
	}
	return k == len(q)
}

// bestFrom is the best tier a substring found at rune i or later can
// have: the scan for the best stops once nothing after can beat it.
func bestFrom[T letter](ix *folded[T], i int) int {
	switch {
	case i == 0:
		return tierExact
	case i < ix.nameN:
		return tierNameWord
	}
	return tierOtherWord
}

// substringTier is the tier of q found at rune i, n runes long.
func substringTier[T letter](ix *folded[T], i, n int) int {
	switch inName := i+n <= ix.nameN; {
	case inName && i == 0 && n == ix.nameN:
		return tierExact
	case inName && i == 0:
		return tierNamePrefix
	case inName && ix.word[i]:
		return tierNameWord
	case inName:
		return tierNameSubstring
	case ix.word[i]:
		return tierOtherWord
	}
	return tierOtherSubstring
}

// maxPieces bounds how many pieces a word-starts match may have.
const maxPieces = 6

// wordStarts matches q as pieces that each begin a word (the last may
// instead sit anywhere after the others, when it is two or more runes),
// the longest piece first. It returns the matched runes, or nil.
func wordStarts[T letter](m *matcher, ix *folded[T], q []T) []int {
	m.gen++
	if m.gen == 0 { // wrapped: every old mark would read as new
		clear(m.failed)
		m.gen = 1
	}
	if n := (len(q) + 1) * (len(ix.low) + 1) * maxPieces; len(m.failed) < n {
		m.failed = make([]uint32, n)
	}
	w := wordSearch[T]{ix: ix, q: q, m: m}
	m.path = m.path[:0]
	if w.next(0, 0, 0) {
		return m.path
	}
	return nil
}

// wordSearch is one word-starts search; m.failed remembers the states
// (runes of q matched, rune of the hay, pieces so far) that lead nowhere,
// so the search is polynomial in the hay's length.
type wordSearch[T letter] struct {
	ix *folded[T]
	q  []T
	m  *matcher
}

// next extends w.m.path from q's rune qi and the hay's rune from, and
// reports whether it reached q's end (on false the path is as it was).
func (w *wordSearch[T]) next(qi, from, pieces int) bool {
	if qi == len(w.q) {
		return true
	}
	if pieces >= maxPieces {
		return false
	}
	state := (qi*(len(w.ix.low)+1)+from)*maxPieces + pieces
	if w.m.failed[state] == w.m.gen {
		return false
	}
	ix, q := w.ix, w.q[qi:]
	for i := from; i < len(ix.low); i++ {
		j := index(ix.low[i:], q[0])
		if j < 0 {
			break
		}
		i += j
		n := 0
		for n < len(q) && i+n < len(ix.low) && ix.low[i+n] == q[n] {
			n++
		}
		if n == 0 {
			continue
		}
		if !ix.word[i] {
			if pieces > 0 && n == len(q) && n >= 2 {
				w.push(i, n)
				return true
			}
			continue
		}
		for k := n; k >= 1; k-- {
			l := len(w.m.path)
			w.push(i, k)
			if w.next(qi+k, i+k, pieces+1) {
				return true
			}
			w.m.path = w.m.path[:l]
		}
	}
	w.m.failed[state] = w.m.gen
	return false
}

// push adds the n runes from i to the path.
func (w *wordSearch[T]) push(i, n int) {
	for k := range n {
		w.m.path = append(w.m.path, i+k)
	}
}
