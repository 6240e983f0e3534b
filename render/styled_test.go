package render

import (
	"html"
	"strings"
	"testing"
	"unsafe"
)

// TestDisarmedReferencesDecodeToNothingThatDrivesTheTerminal decodes each
// disarmed string as glamour does (html.UnescapeString): nothing Sanitize
// would remove comes out, and references to safe characters decode as
// before.
func TestDisarmedReferencesDecodeToNothingThatDrivesTheTerminal(t *testing.T) {
	for _, tc := range []struct{ name, in, shows string }{
		{"decimal ESC", "&#27;&#91;2J", "&#27;["},
		{"hex ESC, either case", "&#x1b;&#X1B;&#x1B", "&#x1b;&#X1B;&#x1B"},
		{"no semicolon", "&#27[2J", "&#27[2J"},
		{"leading zeros", "&#0000027;", "&#0000027;"},
		{"wraps around to ESC", "&#4294967323;", "&#4294967323;"},
		{"hex wraps around to ESC", "&#x10000001b;", "&#x10000001b;"},
		{"BEL, CR, BS, DEL", "&#7;&#13;&#8;&#127;", "&#7;&#13;&#8;&#127;"},
		{"bidi override and isolate", "&#8238;&#x2066;", "&#8238;&#x2066;"},
		{"after an escaped one", "&amp;&#27;", "&&#27;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := html.UnescapeString(DisarmCharRefs(tc.in))
			if Sanitize(got) != got {
				t.Fatalf("%q decodes to %q after disarming", tc.in, got)
			}
			if !strings.HasPrefix(got, tc.shows) {
				t.Errorf("%q decodes to %q, want it to show %q", tc.in, got, tc.shows)
			}
		})
	}
	for _, safe := range []string{"&#233;", "&#x41;", "&#10;", "&#9;", "&amp;", "&lt;b&gt;", "&#155;", "&#0;", "&#xD800;", "&#99999999;", "&Tab;&NewLine;", "&#;", "&#x;", "a & b", "&#"} {
		if got, want := html.UnescapeString(DisarmCharRefs(safe)), html.UnescapeString(safe); got != want {
			t.Errorf("%q decodes to %q after disarming, %q before", safe, got, want)
		}
	}
}

// FuzzDisarmCharRefs: whatever the text, once disarmed it decodes to a
// string Sanitize leaves alone, if the text itself was one.
func FuzzDisarmCharRefs(f *testing.F) {
	for _, s := range []string{"&#27;", "&#x1b", "&#4294967323;", "&#8238;x", "&&#27;#27;", "&#1&#27;", "&#x&#27;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = Sanitize(s)
		if got := html.UnescapeString(DisarmCharRefs(s)); Sanitize(got) != got {
			t.Fatalf("%q decodes to %q after disarming", s, got)
		}
	})
}

func TestSanitizeStyledKeepsOnlyColoursAndStyles(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"SGR kept", "\x1b[1;38;2;1;2;3mbold\x1b[0m \x1b[4:3mcurly\x1b[m", "\x1b[1;38;2;1;2;3mbold\x1b[0m \x1b[4:3mcurly\x1b[m"},
		{"clear screen", "\x1b[31ma\x1b[2Jb\x1b[0m", "\x1b[31mab\x1b[0m"},
		{"title", "x\x1b]0;pwned\x07y", "xy"},
		{"controls between styles", "\x1b[1m\ra\x07\u202eb\x1b[0m", "\x1b[1mab\x1b[0m"},
		{"private SGR-like", "\x1b[?25ma", "a"},
		{"8-bit CSI", "\x9b2Ja", "a"},
		{"ESC at the end", "a\x1b", "a"},
		{"ESC [ at the end", "a\x1b[", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SanitizeStyled(tc.in); got != tc.want {
				t.Errorf("SanitizeStyled(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	in := strings.Repeat("\x1b[38;2;1;2;3mstyled text\x1b[0m\n", 100)
	if got := SanitizeStyled(in); unsafe.StringData(got) != unsafe.StringData(in) {
		t.Error("safe styled input was copied")
	}
	if allocs := testing.AllocsPerRun(100, func() { SanitizeStyled(in) }); allocs != 0 {
		t.Errorf("SanitizeStyled allocates %v times on safe input", allocs)
	}
}
