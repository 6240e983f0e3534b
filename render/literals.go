package render

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minNeedle is the shortest literal worth searching for: shorter ones occur
// on nearly every line, so checking every line is as fast.
const minNeedle = 3

// requiredLiterals finds literals of which every match of re contains at
// least one, so lines containing none of them can be skipped without running
// the regexp. fold means the literals are ASCII-lowercased and must be
// searched for case-insensitively (in an ASCII-lowercased text). ok is false
// when no useful set exists.
func requiredLiterals(re *syntax.Regexp) (lits []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return []string{s}, false, len(s) >= minNeedle
		}
		for _, r := range re.Rune {
			if !asciiFoldOrbit(r) {
				return nil, false, false
			}
		}
		return []string{asciiLower(s)}, true, len(s) >= minNeedle
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any one child's set will do; take the one with the longest
		// shortest literal, preferring exact matching over folded.
		best, bestLen := -1, 0
		var bestLits []string
		var bestFold bool
		for i, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if !ok {
				continue
			}
			n := shortest(l)
			if !f {
				n += 1 << 20
			}
			if best < 0 || n > bestLen {
				best, bestLen, bestLits, bestFold = i, n, l, f
			}
		}
		return bestLits, bestFold, best >= 0
	case syntax.OpAlternate:
		// Every branch must contribute; the union covers every match.
		for _, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if !ok {
				return nil, false, false
			}
			lits = append(lits, l...)
			fold = fold || f
		}
		if fold {
			for i, l := range lits {
				lits[i] = asciiLower(l)
			}
		}
		return lits, fold, len(lits) <= maxNeedles
	}
	return nil, false, false
}

// isLiteralSet reports whether re matches exactly the lines containing one
// of its literals: a literal, or an alternation of literals, all with the
// same case folding and none containing a line break.
func isLiteralSet(re *syntax.Regexp) (fold, ok bool) {
	switch re.Op {
	case syntax.OpCapture:
		return isLiteralSet(re.Sub[0])
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase != 0, !strings.ContainsAny(string(re.Rune), "\r\n")
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			f, ok := isLiteralSet(sub)
			if !ok || i > 0 && f != fold {
				return false, false
			}
			fold = f
		}
		return fold, true
	}
	return false, false
}

// maxNeedles bounds the literal set searched for; beyond it, checking every
// line is as fast.
const maxNeedles = 8

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// asciiFoldOrbit reports whether every case variant of r is ASCII, so an
// ASCII-lowercased text finds every case-insensitive occurrence of it. The
// variants of k and s include the Kelvin sign and long s, so they do not.
func asciiFoldOrbit(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// needleFinder finds, from a position, the first occurrence of any of a set
// of literals, remembering each literal's next occurrence so the text is
// scanned once per literal overall.
type needleFinder struct {
	text string // the text searched: the original, or its ASCII-lowercased copy
	lits []string
	next []int // next occurrence of each literal at or after the last search, -1 if none
}

func newNeedleFinder(text string, lits []string) *needleFinder {
	f := &needleFinder{text: text, lits: lits, next: make([]int, len(lits))}
	for i := range f.next {
		f.next[i] = -2 // not searched yet
	}
	return f
}

// find returns the first index >= pos where any literal occurs, or -1.
func (f *needleFinder) find(pos int) int {
	first := -1
	for i, lit := range f.lits {
		if f.next[i] == -1 {
			continue
		}
		if f.next[i] < pos {
			f.next[i] = -1
			if j := strings.Index(f.text[pos:], lit); j >= 0 {
				f.next[i] = pos + j
			}
		}
		if n := f.next[i]; n >= 0 && (first < 0 || n < first) {
			first = n
		}
	}
	return first
}
