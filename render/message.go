package render

import (
	"fmt"
	"strings"
)

// The bounds of a message built from server data (an error, a refusal)
// before it reaches a model, a terminal or a form: the same policy as
// results, a slice at a character boundary that states shown-of-total.
const (
	// MaxMessageBytes is the longest message howl passes on; longer ones
	// are cut with a note.
	MaxMessageBytes = 8192
	// MaxQuotedValues is how many values of a list a message quotes (the
	// allowed values of an enum, missing arguments, near names).
	MaxQuotedValues = 3
	// MaxQuotedValueBytes is the longest single value a message quotes.
	MaxQuotedValueBytes = 100
)

// BoundMessage cuts msg to MaxMessageBytes at a character boundary, the
// cut stated inside the limit; a message within it is returned as is.
func BoundMessage(msg string) string {
	if len(msg) <= MaxMessageBytes {
		return msg
	}
	note := func(kept int) string {
		return fmt.Sprintf(" …[message cut: showing %d of %d bytes; messages are limited to %d (MaxMessageBytes)]", kept, len(msg), MaxMessageBytes)
	}
	keep := RuneBoundary(msg, MaxMessageBytes-len(note(MaxMessageBytes)))
	return msg[:keep] + note(keep)
}

// QuoteSome quotes the first MaxQuotedValues of values, each cut to
// MaxQuotedValueBytes, and says how many there are when that is more:
// `"a", "b", "c" … (200000 values)`.
func QuoteSome(values []string) string {
	n := min(len(values), MaxQuotedValues)
	q := make([]string, n)
	for i, v := range values[:n] {
		q[i] = fmt.Sprintf("%q", Ellipsize(v, MaxQuotedValueBytes))
	}
	return joinSome(q, len(values))
}

// ListSome is QuoteSome for values already spelled out (as JSON, say):
// the first MaxQuotedValues of shown, each cut to MaxQuotedValueBytes, and
// "… (total values)" when total is more than it shows.
func ListSome(shown []string, total int) string {
	n := min(len(shown), MaxQuotedValues)
	cut := make([]string, n)
	for i, v := range shown[:n] {
		cut[i] = Ellipsize(v, MaxQuotedValueBytes)
	}
	return joinSome(cut, total)
}

// joinSome joins shown, adding the count when total is more.
func joinSome(shown []string, total int) string {
	s := strings.Join(shown, ", ")
	if total > len(shown) {
		s += fmt.Sprintf(" … (%d values)", total)
	}
	return s
}
