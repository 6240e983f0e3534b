package render

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// lineFilter keeps the lines of a text that match a pattern, grep-style.
// Lines are matched one at a time (without their "\n" or a trailing "\r"),
// so ^ and $ anchor to each line. Candidate lines are found by the fastest
// means the pattern allows: strings.Index alone for a plain literal;
// strings.Index for the literals every match must contain (ASCII case folded
// for (?i)), then the regexp on that line; a shift-and scan for a run of
// byte classes every match contains (classseq.go), then the regexp; or the
// regexp on every line.
type lineFilter struct {
	pattern string
	re      *regexp.Regexp
	// lits, when set, are literals every matching line contains one of.
	lits []string
	// fold: lits are lowercase and searched in an ASCII-lowercased text.
	fold bool
	// exact: the pattern is just its literals (one, or an alternation), so
	// containing one is matching.
	exact bool
	// seq, when set (and lits not), is a run of byte classes every
	// matching line contains.
	seq []byteSet
}

// finder jumps to the next candidate: the index, at or after pos, of
// something every match contains, or -1.
type candidateFinder interface{ find(pos int) int }

func compileFilter(pattern string) (*lineFilter, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		reason := err.Error()
		var serr *syntax.Error
		if errors.As(err, &serr) {
			reason = serr.Code.String()
			if serr.Expr != "" && serr.Expr != pattern {
				reason += fmt.Sprintf(" at %q", serr.Expr)
			}
		}
		return nil, newError(CodeInvalidPattern, err, fmt.Sprintf(
			"pattern %q is not a valid regex: %s: use RE2 syntax (escape literal metacharacters like ( [ . * with a backslash)",
			pattern, reason))
	}
	f := &lineFilter{pattern: pattern, re: re}
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		tree = tree.Simplify()
		var ok bool
		if f.lits, f.fold, ok = requiredLiterals(tree); ok {
			fold, exact := isLiteralSet(tree)
			f.exact = exact && fold == f.fold
		} else if seq, ok := requiredClassSeq(tree); ok {
			f.seq = seq
		}
	}
	return f, nil
}

// apply filters s: each kept line prefixed with its 1-based number and ":"
// (a match) or "-" (context), "--" between groups that are not adjacent,
// every line ending in "\n". Of that output it keeps only the bytes
// [lo, hi), the window a page is cut from, and returns them with the
// output's whole size, how many lines matched and how many lines s has.
// The output can be ten times s (a line number and a colon before every
// empty line a "^$" keeps), so it is counted, not held. No allocation is
// made per line.
func (f *lineFilter) apply(s string, lo, hi int) (window string, total, matched, lines int) {
	w := grepWriter{s: s, lo: lo, hi: hi}
	var finder candidateFinder
	switch {
	case f.lits != nil:
		text := s
		if f.fold {
			text = asciiLower(s)
		}
		finder = newNeedleFinder(text, f.lits)
	case f.seq != nil:
		finder = newClassFinder(s, f.seq)
	}
	pos, lineNo := 0, 1 // pos is the start of line lineNo
	for pos < len(s) {
		start, end, ok := f.next(s, pos, finder)
		if !ok {
			break
		}
		lineNo += strings.Count(s[pos:start], "\n")
		w.match(lineNo, start, end)
		matched++
		pos, lineNo = end+1, lineNo+1
	}
	lines = lineNo - 1
	if pos < len(s) {
		lines += strings.Count(s[pos:], "\n")
		if s[len(s)-1] != '\n' {
			lines++
		}
	}
	w.finish()
	return w.b.String(), w.n, matched, lines
}

// next finds the first matching line that starts at or after pos, which is
// a line start, and returns its bounds (end is the index of its "\n" or
// len(s)). finder, when not nil, jumps to candidate lines.
func (f *lineFilter) next(s string, pos int, finder candidateFinder) (start, end int, ok bool) {
	for pos < len(s) {
		if finder != nil {
			i := finder.find(pos)
			if i < 0 {
				return 0, 0, false
			}
			start = pos + strings.LastIndexByte(s[pos:i], '\n') + 1
			end = lineEnd(s, i)
		} else {
			start, end = pos, lineEnd(s, pos)
		}
		if f.exact || f.re.MatchString(trimCR(s[start:end])) {
			return start, end, true
		}
		pos = end + 1
	}
	return 0, 0, false
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func trimCR(line string) string { return strings.TrimSuffix(line, "\r") }

// grepWriter writes matched lines and their context in order, keeping
// the bytes of its output in [lo, hi) and counting all of them in n.
type grepWriter struct {
	s       string
	b       strings.Builder
	lo, hi  int
	n       int
	emitted int // number of the last line written, 0 before any
	next    int // byte offset where line emitted+1 starts
	after   int // context lines still owed after the last match
	num     [20]byte
}

// put appends p to the output: to b, as far as it falls in the window.
func (w *grepWriter) put(p string) {
	if w.n < w.hi && w.n+len(p) > w.lo {
		w.b.WriteString(p[max(w.lo-w.n, 0):min(w.hi-w.n, len(p))])
	}
	w.n += len(p)
}

// putBytes is put for bytes.
func (w *grepWriter) putBytes(p []byte) {
	if w.n < w.hi && w.n+len(p) > w.lo {
		w.b.Write(p[max(w.lo-w.n, 0):min(w.hi-w.n, len(p))])
	}
	w.n += len(p)
}

func (w *grepWriter) match(lineNo, start, end int) {
	w.flushAfter(lineNo - 1)
	first := max(lineNo-ContextLines, w.emitted+1)
	if w.emitted > 0 && first > w.emitted+1 {
		w.put("--\n")
	}
	// Find the starts of the context lines before the match by walking back.
	var starts [ContextLines]int
	n := lineNo - first
	at := start
	for i := n - 1; i >= 0; i-- {
		at = strings.LastIndexByte(w.s[:at-1], '\n') + 1
		starts[i] = at
	}
	for i := 0; i < n; i++ {
		w.write(first+i, starts[i], lineEnd(w.s, starts[i]), '-')
	}
	w.write(lineNo, start, end, ':')
	w.after = ContextLines
}

// flushAfter writes owed context lines, up to line number limit.
func (w *grepWriter) flushAfter(limit int) {
	for w.after > 0 && w.emitted < limit && w.next < len(w.s) {
		w.write(w.emitted+1, w.next, lineEnd(w.s, w.next), '-')
		w.after--
	}
}

func (w *grepWriter) finish() { w.flushAfter(math.MaxInt) }

// write writes line lineNo, s[start:end], marked ':' (match) or '-' (context).
func (w *grepWriter) write(lineNo, start, end int, sep byte) {
	b := append(strconv.AppendInt(w.num[:0], int64(lineNo), 10), sep)
	w.putBytes(b)
	w.put(w.s[start:end])
	w.put("\n")
	w.emitted, w.next = lineNo, end+1
}
