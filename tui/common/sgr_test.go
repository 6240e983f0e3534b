package common

import (
	"fmt"
	"strings"
	"testing"
)

// looks draws a line of text and SGR escapes into its cells: each rune
// with the style it shows (a space shows no foreground). It is the oracle
// CompactSGR must leave unchanged.
func looks(t *testing.T, line string) []string {
	t.Helper()
	fg, bg, other := "", "", ""
	var cells []string
	for i := 0; i < len(line); {
		if params, n, ok := sgrAt(line, i); ok {
			ps := strings.Split(params, ";")
			for k := 0; k < len(ps); k++ {
				switch p := ps[k]; {
				case p == "" || p == "0":
					fg, bg, other = "", "", ""
				case p == "38" || p == "48":
					arg := 2
					if k+1 < len(ps) && ps[k+1] == "2" {
						arg = 4
					}
					v := strings.Join(ps[k+1:min(k+1+arg, len(ps))], ";")
					if p == "38" {
						fg = v
					} else {
						bg = v
					}
					k += arg
				case p == "39":
					fg = ""
				case p == "49":
					bg = ""
				case len(p) == 2 && (p[0] == '3' || p[0] == '9'):
					fg = p
				case len(p) == 2 && p[0] == '4' || len(p) == 3 && p[0] == '1':
					bg = p
				default:
					other += p + ","
				}
			}
			i += n
			continue
		}
		if line[i] == '\x1b' {
			t.Fatalf("the oracle reads SGR only: %q", line[i:])
		}
		r := []rune(line[i:])[0]
		f := fg
		if r == ' ' {
			f = ""
		}
		cells = append(cells, fmt.Sprintf("%c|%s|%s|%s", r, f, bg, other))
		i += len(string(r))
	}
	return cells
}

func TestCompactSGRKeepsTheLookWithFewerBytes(t *testing.T) {
	border := "\x1b[38;2;143;168;255m┃\x1b[0m"
	for _, tc := range []struct{ name, line string }{
		{"pane row", border + "  \x1b[38;2;227;227;231madd_note\x1b[0m     \x1b[38;2;107;107;118mAdd a note\x1b[0m" + border + "\x1b[38;2;69;69;79m│\x1b[0m \x1b[38;2;161;161;170mname      \x1b[0m\x1b[38;2;227;227;231mbig_text\x1b[0m" + strings.Repeat(" ", 40) + "\x1b[38;2;69;69;79m│\x1b[0m"},
		{"json tokens", "\x1b[38;2;227;227;231m  \x1b[0m\x1b[38;2;240;113;120m\"properties\"\x1b[0m\x1b[38;2;166;172;205m:\x1b[0m\x1b[38;2;227;227;231m \x1b[0m\x1b[38;2;166;172;205m{\x1b[0m\x1b[38;2;166;172;205m}\x1b[0m\x1b[38;2;166;172;205m,\x1b[0m"},
		{"selected row with a background", "\x1b[1;38;2;255;255;255;48;2;52;54;89m› big_text     Big text   \x1b[0m\x1b[38;2;143;168;255m┃\x1b[0m"},
		{"bold then a colour", "\x1b[1mA\x1b[38;5;12mB \x1b[22mC\x1b[0m D \x1b[7m  \x1b[0m"},
		{"reset with parameters", "\x1b[31mx\x1b[0;32my\x1b[m z"},
		{"a colour, then bold in another, then a plain colour", "\x1b[31mA\x1b[0m\x1b[1;32mB\x1b[0m\x1b[33mC\x1b[0m\x1b[1mD\x1b[0m\x1b[34mE"},
	} {
		got := CompactSGR(tc.line)
		if a, b := strings.Join(looks(t, tc.line), "\n"), strings.Join(looks(t, got), "\n"); a != b {
			t.Errorf("%s: the look changed:\n%q\n%q", tc.name, tc.line, got)
		}
		if len(got) > len(tc.line) {
			t.Errorf("%s: %d bytes became %d", tc.name, len(tc.line), len(got))
		}
	}
	if line := "plain │ text"; CompactSGR(line) != line {
		t.Error("a line without escapes must come back as it is")
	}
	if img := "\x1b_Gf=100;AAAA\x1b\\\x1b[38;5;1m\U0010EEEE\x1b[0m"; CompactSGR(img) != img {
		t.Error("a line with an image escape must come back as it is")
	}
}
