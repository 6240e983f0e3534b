package common

import "strings"

// CompactSGR rewrites one drawn line with fewer colour escapes and the
// same look: a style that is set again before any text is not written
// twice, neighbours in the same style share one escape, spaces keep the
// style already in force when only the foreground would change (a space
// shows no foreground), and a reset directly followed by a style becomes
// one escape. Every line is drawn whole again when anything on it
// changes (bubbletea's renderer diffs lines), and in colour about half
// of a line's bytes were escapes. Other escape sequences pass through as
// they are; a line without escapes, or with any escape other than a
// control sequence (ESC [), is returned unchanged.
func CompactSGR(line string) string {
	if !strings.Contains(line, "\x1b[") {
		return line
	}
	for i := strings.IndexByte(line, '\x1b'); i >= 0; {
		if i+1 >= len(line) || line[i+1] != '[' {
			return line // an image, a link or a title: left alone
		}
		j := strings.IndexByte(line[i+1:], '\x1b')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	var b strings.Builder
	b.Grow(len(line))
	want, out := "", "" // the style the text asks for, the one written
	flush := func() {
		switch {
		case want == out:
		case want == "":
			b.WriteString("\x1b[m")
		case strings.HasPrefix(want, out+";"): // more on top of what is in force
			b.WriteString("\x1b[" + want[len(out)+1:] + "m")
		case out == "", fgOnly(out) && setsFg(want): // nothing to undo but a colour that want replaces
			b.WriteString("\x1b[" + want + "m")
		default:
			b.WriteString("\x1b[0;" + want + "m")
		}
		out = want
	}
	for i := 0; i < len(line); {
		if params, n, ok := sgrAt(line, i); ok {
			if params == "" || params == "0" {
				want = ""
			} else if rest, reset := strings.CutPrefix(params, "0;"); reset {
				want = rest
			} else if want == "" {
				want = params
			} else {
				want += ";" + params
			}
			i += n
			continue
		}
		if line[i] == '\x1b' {
			// Another control sequence (ESC [ ... final byte): written as
			// it came, in the style asked for.
			flush()
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) && line[j] != '\x1b' {
				j++
			}
			if j < len(line) && line[j] != '\x1b' {
				j++
			}
			b.WriteString(line[i:j])
			i = j
			continue
		}
		j := i
		for j < len(line) && line[j] != '\x1b' {
			j++
		}
		text := line[i:j]
		if strings.Trim(text, " ") != "" || paintsSpaces(want) || paintsSpaces(out) {
			flush()
		}
		b.WriteString(text)
		i = j
	}
	if out != "" {
		b.WriteString("\x1b[m")
	}
	return b.String()
}

// sgrAt reads a Select Graphic Rendition escape (ESC [ params m) at i: its
// parameters and length.
func sgrAt(s string, i int) (params string, n int, ok bool) {
	if i+1 >= len(s) || s[i] != '\x1b' || s[i+1] != '[' {
		return "", 0, false
	}
	j := i + 2
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
		j++
	}
	if j >= len(s) || s[j] != 'm' {
		return "", 0, false
	}
	return s[i+2 : j], j + 1 - i, true
}

// fgOnly reports whether a style is a foreground colour and nothing else.
func fgOnly(params string) bool {
	fg, other := sgrKinds(params)
	return fg && !other
}

// setsFg reports whether a style sets a foreground colour.
func setsFg(params string) bool {
	fg, _ := sgrKinds(params)
	return fg
}

// sgrKinds says whether params set a foreground colour, and anything else.
func sgrKinds(params string) (fg, other bool) {
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		switch p := ps[k]; {
		case p == "38" && k+1 < len(ps) && ps[k+1] == "5":
			fg, k = true, k+2
		case p == "38" && k+1 < len(ps) && ps[k+1] == "2":
			fg, k = true, k+4
		case len(p) == 2 && (p[0] == '3' || p[0] == '9') && p[1] >= '0' && p[1] <= '7':
			fg = true
		default:
			other = true
		}
	}
	return fg, other
}

// paintsSpaces reports whether a style shows on a space: a background,
// reverse video, or a line drawn through or under the cell. Unsure
// parameters count as showing.
func paintsSpaces(params string) bool {
	if params == "" {
		return false
	}
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		switch p := ps[k]; {
		case p == "38": // a foreground colour: skip its arguments
			if k+1 < len(ps) && ps[k+1] == "5" {
				k += 2
			} else if k+1 < len(ps) && ps[k+1] == "2" {
				k += 4
			}
		case p == "0", p == "1", p == "2", p == "3", p == "22", p == "23", p == "39":
		case len(p) == 2 && (p[0] == '3' || p[0] == '9') && p[1] >= '0' && p[1] <= '7':
		default:
			return true
		}
	}
	return false
}
