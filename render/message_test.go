package render

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAMessageLongerThanMaxMessageBytesIsCutWithItsSizeStated(t *testing.T) {
	for _, msg := range []string{strings.Repeat("é", 1<<20), strings.Repeat("x", MaxMessageBytes+1), strings.Repeat("日本", 3000)} {
		got := BoundMessage(msg)
		if len(got) > MaxMessageBytes || !utf8.ValidString(got) {
			t.Fatalf("%d bytes in, %d out (valid UTF-8: %v)", len(msg), len(got), utf8.ValidString(got))
		}
		if !strings.HasSuffix(got, fmt.Sprintf(" of %d bytes; messages are limited to %d (MaxMessageBytes)]", len(msg), MaxMessageBytes)) {
			t.Errorf("the cut does not state the size: %q", got[len(got)-120:])
		}
	}
	if s := strings.Repeat("y", MaxMessageBytes); BoundMessage(s) != s {
		t.Error("a message within the bound was changed")
	}
}

func TestQuoteSomeQuotesAFewValuesAndCountsTheRest(t *testing.T) {
	many := make([]string, 200000)
	for i := range many {
		many[i] = fmt.Sprintf("v%d", i)
	}
	cases := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a", "b"}, `"a", "b"`},
		{[]string{"a", "b", "c"}, `"a", "b", "c"`},
		{many, `"v0", "v1", "v2" … (200000 values)`},
		{[]string{strings.Repeat("z", 5000)}, `"` + strings.Repeat("z", MaxQuotedValueBytes) + `…"`},
	}
	for _, c := range cases {
		if got := QuoteSome(c.in); got != c.want {
			t.Errorf("QuoteSome(%d values) = %q, want %q", len(c.in), Ellipsize(got, 200), c.want)
		}
	}
}
