package render

import (
	"regexp/syntax"
	"unicode/utf8"
)

// A pattern with no literal worth searching for (`\d{4}ms`, `[A-Z]{3}-\d+`)
// would otherwise run the regexp on every line, which Go's regexp does at
// about 30 MB/s. Many such patterns still require a fixed run of single-byte
// classes: `\d{4}ms` needs six bytes, each from a known set. A shift-and
// (bitap) scan finds such a run at several hundred MB/s, and the regexp then
// runs only on the lines that contain one. Go's regexp has no such
// prefilter and no pinned library offers one, hence this small matcher.
//
// The scan is only ever a prefilter: a line it rejects cannot match (every
// match contains the run), and a line it accepts is confirmed by the
// regexp. So a class that also matches "\n" or "\r" only costs extra
// confirmations.

// maxClassSeq is the longest run a scan tracks: one bit per position.
const maxClassSeq = 64

// minClassSeq is the shortest run worth scanning for; shorter runs of
// broad classes occur on nearly every line.
const minClassSeq = 4

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addRange(lo, hi int) {
	for b := lo; b <= hi; b++ {
		s.add(byte(b))
	}
}

// requiredClassSeq finds a run of single-byte sets that every match of re
// contains, contiguously, in that order; ok is false when none of at least
// minClassSeq exists. re must be simplified (counted repeats expanded).
func requiredClassSeq(re *syntax.Regexp) (seq []byteSet, ok bool) {
	if units, fixed := fixedUnits(re); fixed {
		return clampSeq(units)
	}
	var best []byteSet
	consider := func(s []byteSet) {
		if len(s) > len(best) {
			best = s
		}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		if s, ok := requiredClassSeq(re.Sub[0]); ok {
			consider(s)
		}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			if s, ok := requiredClassSeq(re.Sub[0]); ok {
				consider(s)
			}
		}
	case syntax.OpConcat:
		// Contiguous children that are fixed runs form one run; any other
		// child ends it, and may hold a run of its own.
		var run []byteSet
		for _, sub := range re.Sub {
			if units, fixed := fixedUnits(sub); fixed {
				run = append(run, units...)
				continue
			}
			// x+ (or x{2,}) begins and ends with x: the run before it goes
			// on through one x, and the run after it starts with one.
			if units, fixed := repeatedUnits(sub); fixed {
				consider(append(run, units...))
				run = append([]byteSet(nil), units...)
				continue
			}
			consider(run)
			run = nil
			if s, ok := requiredClassSeq(sub); ok {
				consider(s)
			}
		}
		consider(run)
	}
	return clampSeq(best)
}

// repeatedUnits is fixedUnits of x for x+ or x{n,} with n >= 1.
func repeatedUnits(re *syntax.Regexp) ([]byteSet, bool) {
	if re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Min >= 1 {
		return fixedUnits(re.Sub[0])
	}
	return nil, false
}

func clampSeq(seq []byteSet) ([]byteSet, bool) {
	if len(seq) > maxClassSeq {
		seq = seq[:maxClassSeq]
	}
	return seq, len(seq) >= minClassSeq
}

// fixedUnits reports whether re always matches the same number of bytes,
// each from a known set, and returns those sets. Zero-width assertions
// contribute nothing. Anything that can match a multi-byte rune in
// several ways (., negated or non-ASCII classes, case-folded non-ASCII) is
// not fixed.
func fixedUnits(re *syntax.Regexp) ([]byteSet, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true
	case syntax.OpLiteral:
		var out []byteSet
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				if !asciiFoldOrbit(r) {
					return nil, false
				}
				var s byteSet
				s.add(byte(r))
				if 'a' <= r && r <= 'z' {
					s.add(byte(r - 'a' + 'A'))
				} else if 'A' <= r && r <= 'Z' {
					s.add(byte(r - 'A' + 'a'))
				}
				out = append(out, s)
				continue
			}
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
				var s byteSet
				s.add(b)
				out = append(out, s)
			}
		}
		return out, true
	case syntax.OpCharClass:
		var s byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				return nil, false
			}
			s.addRange(int(lo), int(hi))
		}
		return []byteSet{s}, true
	case syntax.OpCapture:
		return fixedUnits(re.Sub[0])
	case syntax.OpConcat:
		var out []byteSet
		for _, sub := range re.Sub {
			u, ok := fixedUnits(sub)
			if !ok {
				return nil, false
			}
			out = append(out, u...)
		}
		return out, true
	}
	return nil, false
}

// classFinder finds runs of a class sequence with a shift-and scan.
type classFinder struct {
	text  string
	masks [256]uint64 // bit i: the byte may stand at position i of the run
	last  uint64      // the bit of the run's last position
	n     int
}

func newClassFinder(text string, seq []byteSet) *classFinder {
	f := &classFinder{text: text, last: 1 << (len(seq) - 1), n: len(seq)}
	for i, s := range seq {
		for b := 0; b < 256; b++ {
			if s.has(byte(b)) {
				f.masks[b] |= 1 << i
			}
		}
	}
	return f
}

// find returns the start of the first run at or after pos, or -1.
func (f *classFinder) find(pos int) int {
	var d uint64
	text, masks, last := f.text, &f.masks, f.last
	for i := pos; i < len(text); i++ {
		d = (d<<1 | 1) & masks[text[i]]
		if d&last != 0 {
			return i - f.n + 1
		}
	}
	return -1
}
