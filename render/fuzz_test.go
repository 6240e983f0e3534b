package render

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPageText pages arbitrary text from offset 0 to the end and from an
// arbitrary offset. Invariants: every page is valid UTF-8 and within the
// effective max_bytes, next_offset always advances, and for valid UTF-8
// input the pages reassemble the input exactly.
func FuzzPageText(f *testing.F) {
	f.Add("hello, world", 0, 5)
	f.Add("日本語のテキスト", 1, 4)
	f.Add("👍🏽🎉🚀", 2, 5)
	f.Add("a\xffb\xc3\xa9\xe6\x97", 0, 4)
	f.Add("", 3, 0)
	f.Add(strings.Repeat("é", 100), 201, -1)
	f.Fuzz(func(t *testing.T, text string, offset, maxBytes int) {
		offset = max(offset, 0) % (len(text) + 3)
		maxBytes = max(maxBytes, 0) % 40
		max := maxBytes
		switch {
		case max == 0:
			max = DefaultMaxBytes
		case max < MinMaxBytes:
			max = MinMaxBytes
		}
		var whole strings.Builder
		for off, pages := 0, 0; ; pages++ {
			r, err := PageText("u", "", text, PageOptions{Offset: off, MaxBytes: maxBytes})
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.ValidString(r.Text) || len(r.Text) > max {
				t.Fatalf("page at %d: %q invalid or over %d bytes", off, r.Text, max)
			}
			whole.WriteString(r.Text)
			if r.NextOffset == nil {
				break
			}
			if *r.NextOffset <= off || pages > len(text) {
				t.Fatalf("next_offset %d does not advance from %d", *r.NextOffset, off)
			}
			off = *r.NextOffset
		}
		if utf8.ValidString(text) && whole.String() != text {
			t.Fatalf("pages %q do not reassemble %q", whole.String(), text)
		}
		r, err := PageText("u", "", text, PageOptions{Offset: offset, MaxBytes: maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(r.Text) || len(r.Text) > max {
			t.Fatalf("page at offset %d: %q invalid or over %d bytes", offset, r.Text, max)
		}
		if utf8.ValidString(text) && offset < len(text) && !strings.HasPrefix(text[roundForward(text, offset):], r.Text) {
			t.Fatalf("page at %d is not the text there", offset)
		}
	})
}

var extensionShape = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

// FuzzMimeExtension: whatever the claimed MIME type, the extension is safe
// ([a-z0-9]{1,8}) and is either "bin" or the allowlisted extension of the
// normalized type.
func FuzzMimeExtension(f *testing.F) {
	for _, s := range []string{"image/png", "IMAGE/PNG; charset=x", "../../x", "image/png/../..", "image/\u212Aey", strings.Repeat("a", 200), "", ";", " image/jpeg\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, mime string) {
		ext := mimeExtension(mime)
		if !extensionShape.MatchString(ext) {
			t.Fatalf("mimeExtension(%q) = %q", mime, ext)
		}
		if ext == "bin" {
			return
		}
		base, _, _ := strings.Cut(mime, ";")
		if want, ok := mimeExtensions[strings.ToLower(strings.TrimSpace(base))]; !ok || want != ext {
			t.Fatalf("mimeExtension(%q) = %q, not from the allowlist", mime, ext)
		}
	})
}

// FuzzSanitize: no ESC, C0 control (but newline and tab), DEL, C1 control
// or bidi control survives; the output is valid UTF-8; sanitizing is
// idempotent; SanitizeLine output has no newline or tab.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"\x1b[31mred", "\x1b]0;t\x07x", "\x9b1m", "\u009d52;c;x\u009c", "a\rb", "\x1bP\x1b\\", "日本\xff", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, oneLine := range []bool{false, true} {
			out := sanitize(s, oneLine)
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 from %q: %q", s, out)
			}
			for _, r := range out {
				unsafe := r == 0x1b || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || isC1(r) || isBidiControl(r) ||
					oneLine && (r == '\n' || r == '\t')
				if unsafe {
					t.Fatalf("sanitize(%q, %v) = %q keeps %U", s, oneLine, out, r)
				}
			}
			if again := sanitize(out, oneLine); again != out {
				t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
			}
		}
	})
}

// FuzzFilter checks the fast grep paths against the obvious implementation.
func FuzzFilter(f *testing.F) {
	f.Add("ERROR", "a\nERROR x\nb\n\nc\nERROR\n")
	f.Add("^x$", "x\r\nx\ny\n")
	f.Add("(?i)é", "É\né\n")
	f.Add("a|b", "")
	f.Add(`\d{4}ms`, "took 1234ms\n123ms\n12345ms\r\n")
	f.Add(`[a-z]{2}-\d+x`, "ab-1x\nab-x\nAB-12x\n")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if _, err := regexp.Compile(pattern); err != nil || pattern == "" {
			return
		}
		got, err := PageText("u", "", text, PageOptions{Pattern: pattern, MaxBytes: MaxSliceBytes})
		if err != nil {
			t.Fatal(err)
		}
		want, matched, lines := referenceGrep(pattern, text)
		if got.Text != strings.ToValidUTF8(want, "\uFFFD") && utf8.ValidString(want) || *got.MatchedLines != matched || *got.TotalLines != lines {
			t.Fatalf("pattern %q over %q:\n got %q (%d of %d)\nwant %q (%d of %d)", pattern, text, got.Text, *got.MatchedLines, *got.TotalLines, want, matched, lines)
		}
	})
}
