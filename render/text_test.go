package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPageTextNotesShownOfTotalAndHowToContinue(t *testing.T) {
	text := strings.Repeat("a", 1048576)
	r, err := PageText("file:///log", "text/plain", text, PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "showing bytes 0-51200 of 1048576; re-call with offset=51200 to continue (max_bytes is clamped to 204800)"
	if r.Note != want {
		t.Errorf("note\n got %q\nwant %q", r.Note, want)
	}
	if len(r.Text) != DefaultMaxBytes || !r.Truncated || r.TotalBytes != 1048576 || r.NextOffset == nil || *r.NextOffset != 51200 {
		t.Errorf("got len(text)=%d truncated=%v total=%d next=%v", len(r.Text), r.Truncated, r.TotalBytes, r.NextOffset)
	}
}

func TestPageTextLastPageHasNullNextOffset(t *testing.T) {
	for _, tc := range []struct {
		name      string
		text      string
		offset    int
		truncated bool
		note      string
	}{
		{"whole text", "hello", 0, false, "showing bytes 0-5 of 5 (complete)"},
		{"last page", "hello", 2, true, "showing bytes 2-5 of 5; this is the last page"},
		{"empty text", "", 0, false, "nothing to show: 0 bytes"},
		{"offset into empty text", "", 3, true, "offset 3 is past the end; nothing to show: 0 bytes"},
		{"offset at the end", "hello", 5, true, "offset 5 is the end of 5 bytes; nothing more to show"},
		{"offset past the end", "hello", 9, true, "offset 9 is past the end of 5 bytes; nothing shown: re-call with an offset below 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := PageText("u", "text/plain", tc.text, PageOptions{Offset: tc.offset})
			if err != nil {
				t.Fatal(err)
			}
			if r.NextOffset != nil {
				t.Errorf("next_offset = %d, want null", *r.NextOffset)
			}
			if r.Truncated != tc.truncated || r.Note != tc.note {
				t.Errorf("truncated=%v note=%q, want %v %q", r.Truncated, r.Note, tc.truncated, tc.note)
			}
			if !contains(marshal(t, r), `"next_offset":null`) {
				t.Errorf("next_offset does not serialize as null: %s", marshal(t, r))
			}
			if tc.offset >= len(tc.text) && r.Text != "" {
				t.Errorf("text = %q past the end, want empty", r.Text)
			}
		})
	}
}

func TestPageTextRejectsNegativeArgumentsWithTeachingErrors(t *testing.T) {
	for _, tc := range []struct {
		opts PageOptions
		want string
	}{
		{PageOptions{Offset: -5}, "offset -5 is negative: pass 0 to read from the start, or the next_offset of a previous result"},
		{PageOptions{MaxBytes: -1}, "max_bytes -1 is negative: omit it (or pass 0) for the default 51200, or pass a value up to 204800"},
	} {
		_, err := PageText("u", "", "text", tc.opts)
		var rerr *Error
		if !errors.As(err, &rerr) || rerr.Code != CodeInvalidArgument || err.Error() != tc.want {
			t.Errorf("%+v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestPageTextMaxBytesDefaultsClampsAndRaises(t *testing.T) {
	text := strings.Repeat("x", 300000)
	for _, tc := range []struct {
		maxBytes, wantLen int
		noteHas           string
	}{
		{0, DefaultMaxBytes, ""},
		{1000, 1000, ""},
		{300000, MaxSliceBytes, "max_bytes 300000 was clamped to 204800"},
		{2, MinMaxBytes, "max_bytes 2 was raised to 4"},
	} {
		r, err := PageText("u", "", text, PageOptions{MaxBytes: tc.maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Text) != tc.wantLen || !strings.Contains(r.Note, tc.noteHas) {
			t.Errorf("max_bytes %d: len %d note %q; want len %d note containing %q", tc.maxBytes, len(r.Text), r.Note, tc.wantLen, tc.noteHas)
		}
	}
}

// multibyte fixtures: 2-, 3- and 4-byte characters, mixed with ASCII.
var multibyteTexts = map[string]string{
	"latin":  "café crème brûlée naïve",
	"cjk":    "日本語のテキスト、漢字と仮名。中文文本。",
	"emoji":  "👍🏽🎉🚀👨‍👩‍👧‍👦🇯🇵",
	"mixed":  "a日b👍c\u00e9d\u0301e世界🎉f",
	"hangul": "한국어 텍스트입니다",
}

func TestPageTextNeverSplitsACharacterAtAnyBoundary(t *testing.T) {
	for name, text := range multibyteTexts {
		for off := 0; off <= len(text); off++ {
			for max := MinMaxBytes; max <= 13; max++ {
				r, err := PageText("u", "", text, PageOptions{Offset: off, MaxBytes: max})
				if err != nil {
					t.Fatal(err)
				}
				if !utf8.ValidString(r.Text) || len(r.Text) > max {
					t.Fatalf("%s off=%d max=%d: text %q (len %d) invalid or over budget", name, off, max, r.Text, len(r.Text))
				}
				start := off
				for start < len(text) && !utf8.RuneStart(text[start]) {
					start++
				}
				if start < len(text) && !strings.HasPrefix(text[start:], r.Text) {
					t.Fatalf("%s off=%d max=%d: text %q is not the text at the boundary %d", name, off, max, r.Text, start)
				}
				if start < len(text) && r.Text == "" {
					t.Fatalf("%s off=%d max=%d: empty page before the end", name, off, max)
				}
				if start != off && !strings.Contains(r.Note, fmt.Sprintf("offset %d was inside a UTF-8 character and was moved forward to %d", off, start)) {
					t.Fatalf("%s off=%d: note %q does not explain the rounding to %d", name, off, r.Note, start)
				}
			}
		}
	}
}

func TestPagesFollowedByNextOffsetReassembleTheText(t *testing.T) {
	for name, text := range multibyteTexts {
		text = strings.Repeat(text, 50)
		for _, max := range []int{4, 5, 7, 64, 1000} {
			pages := readAll(t, text, PageOptions{MaxBytes: max})
			if got := joinText(pages); got != text {
				t.Errorf("%s max=%d: pages do not reassemble the text", name, max)
			}
		}
	}
}

func TestPageTextReplacesInvalidUTF8AndSaysSo(t *testing.T) {
	text := "ok \xff\xfe bad \xc3 end\xe6\x97"
	r, err := PageText("u", "", text, PageOptions{MaxBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	mustValidUTF8(t, r.Text)
	if len(r.Text) > 16 {
		t.Errorf("len(text) = %d, over max_bytes 16", len(r.Text))
	}
	if !strings.Contains(r.Note, "invalid UTF-8 bytes were replaced with U+FFFD") {
		t.Errorf("note %q does not mention the replacement", r.Note)
	}
	pages := readAll(t, text, PageOptions{MaxBytes: 16})
	if got, want := joinText(pages), replaceEachInvalidByte(text); got != want {
		t.Errorf("pages %q do not cover the text %q", got, want)
	}
}

func TestPageTextExaminesOnlyTheWindow(t *testing.T) {
	// Invalid bytes after the window are neither scanned nor reported: the
	// no-pattern path costs O(max_bytes), not O(len(text)).
	text := strings.Repeat("a", 1<<20) + "\xff"
	r, _ := PageText("u", "", text, PageOptions{MaxBytes: 100})
	if strings.Contains(r.Note, "invalid") {
		t.Errorf("note %q reports bytes outside the window", r.Note)
	}
	if allocs := testing.AllocsPerRun(20, func() { PageText("u", "", text, PageOptions{MaxBytes: 100}) }); allocs > 12 {
		t.Errorf("PageText allocates %v times per page; the window must not be copied per byte", allocs)
	}
}

func TestTextResultCoverageFieldsLeadThePayload(t *testing.T) {
	payloads := map[string]string{
		"ascii":     strings.Repeat("z", 300000),
		"escapes":   strings.Repeat("\"\\\x01<>&\n", 40000),
		"multibyte": strings.Repeat("日本👍", 30000),
	}
	for name, text := range payloads {
		for _, opts := range []PageOptions{{}, {Pattern: "z|日|<"}, {Offset: 7, MaxBytes: 204800}} {
			r, err := PageText("file:///var/log/app.log", "text/plain", text, opts)
			if err != nil {
				t.Fatal(err)
			}
			b := marshal(t, r)
			keys := keysInOrder(t, b)
			if keys[len(keys)-1] != "text" {
				t.Errorf("%s: text is not the last field: %v", name, keys)
			}
			wantHead := []string{"uri", "mime_type", "truncated", "total_bytes", "next_offset", "note"}
			for i, k := range wantHead {
				if keys[i] != k {
					t.Fatalf("%s: field order %v, want it to start %v", name, keys, wantHead)
				}
			}
			for _, k := range []string{`"truncated"`, `"total_bytes"`, `"next_offset"`, `"note"`} {
				if i := strings.Index(string(b), k); i < 0 || i >= 256 {
					t.Errorf("%s %+v: %s at byte %d, want within the first 256 bytes", name, opts, k, i)
				}
			}
		}
	}
}

func TestMarshalDoesNotEscapeHTML(t *testing.T) {
	b, err := Marshal(&TextResult{Text: "<b>&amp;</b>"})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(b, `"text":"<b>&amp;</b>"`) || contains(b, `\u003c`) || b[len(b)-1] == '\n' {
		t.Errorf("Marshal = %s", b)
	}
}

// replaceEachInvalidByte is the reference: every byte that does not start a
// valid character becomes one U+FFFD.
func replaceEachInvalidByte(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
