package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// keysInOrder returns the member names of a JSON object in document order.
func keysInOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	members, ok := objectMembers(raw)
	if !ok {
		t.Fatalf("not a JSON object: %.200s", raw)
	}
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.key
	}
	return keys
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll pages through text via next_offset and returns the pages.
func readAll(t *testing.T, text string, opts PageOptions) []*TextResult {
	t.Helper()
	var pages []*TextResult
	for {
		r, err := PageText("u", "text/plain", text, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, r)
		if r.NextOffset == nil {
			return pages
		}
		if *r.NextOffset <= opts.Offset {
			t.Fatalf("next_offset %d does not advance past offset %d", *r.NextOffset, opts.Offset)
		}
		opts.Offset = *r.NextOffset
		if len(pages) > len(text)+2 {
			t.Fatal("paging does not terminate")
		}
	}
}

func joinText(pages []*TextResult) string {
	var b strings.Builder
	for _, p := range pages {
		b.WriteString(p.Text)
	}
	return b.String()
}

func mustValidUTF8(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("output is not valid UTF-8: %q", s)
	}
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
