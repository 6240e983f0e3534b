package render

import (
	"strings"
	"testing"
	"unsafe"
)

func TestSanitizeRemovesEverythingThatDrivesTheTerminal(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
		{"cursor movement and clear", "a\x1b[2J\x1b[H\x1b[10;20Hb\x1b[?25l", "ab"},
		{"OSC title ended by BEL", "\x1b]0;pwned\x07text", "text"},
		{"OSC clipboard ended by ST", "\x1b]52;c;ZXZpbA==\x1b\\after", "after"},
		{"OSC hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"OSC unterminated swallows the rest", "ok\x1b]0;title never ends", "ok"},
		{"DCS", "\x1bPq#0;2;0;0;0#0~~\x1b\\x", "x"},
		{"SOS PM APC", "\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\done", "done"},
		{"string cancelled by CAN", "\x1b]0;t\x18visible", "visible"},
		{"ESC inside a string starts a new sequence", "\x1b]0;t\x1b[31mz", "z"},
		{"8-bit CSI byte", "\x9b31mX", "X"},
		{"C1 CSI character", "\u009b31mX", "X"},
		{"C1 OSC with C1 ST", "\u009d0;title\u009cX", "X"},
		{"8-bit OSC with 8-bit ST", "\x9d0;title\x9cX", "X"},
		{"C1 ST byte inside a character does not end OSC", "\x1b]0;“quoted”\x07X", "X"},
		{"other C1 controls", "a\u0085b\u0084c", "abc"},
		{"charset designation", "\x1b(Bplain\x1b)0", "plain"},
		{"two-byte escapes", "\x1b7saved\x1b8\x1bc\x1bM", "saved"},
		{"ESC at the end", "end\x1b", "end"},
		{"CSI cut short by a control", "\x1b[31\nm", "\nm"},
		{"CR is removed", "50%\r60%\r\n", "50%60%\n"},
		{"C0 controls and DEL", "a\x00b\x07c\x08d\x7fe\x0cf", "abcdef"},
		{"newline and tab kept", "col1\tcol2\nrow2", "col1\tcol2\nrow2"},
		{"invalid UTF-8 replaced", "caf\xe9 \xff", "caf\uFFFD \uFFFD"},
		{"bidi overrides removed", "abc\u202Egnp.exe\u202C \u2066x\u2069", "abcgnp.exe x"},
		{"multibyte text kept", "日本語 👍🏽 é", "日本語 👍🏽 é"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSanitizeLineFlattensNewlinesAndTabs(t *testing.T) {
	if got := SanitizeLine("title\x1b[1m\nsecond\tcol\r\n"); got != "title second col " {
		t.Errorf("got %q", got)
	}
	if got := Sanitize("a\nb"); got != "a\nb" {
		t.Errorf("Sanitize must keep newlines: %q", got)
	}
}

func TestSanitizeReturnsSafeInputUnchangedWithoutAllocating(t *testing.T) {
	in := strings.Repeat("plain text, 日本語 and emoji 👍 with\ttabs\n", 100)
	if got := Sanitize(in); unsafe.StringData(got) != unsafe.StringData(in) {
		t.Error("safe input was copied")
	}
	if allocs := testing.AllocsPerRun(100, func() { Sanitize(in) }); allocs != 0 {
		t.Errorf("Sanitize allocates %v times on safe input", allocs)
	}
	line := "one line, no controls"
	if allocs := testing.AllocsPerRun(100, func() { SanitizeLine(line) }); allocs != 0 {
		t.Errorf("SanitizeLine allocates %v times on safe input", allocs)
	}
}
