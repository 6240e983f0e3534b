package mcp

import (
	"fmt"
	"strings"
)

// SplitArgs splits a command line (".prompt demo code_review focus=\"two
// words\"") into words the way a shell would, without running anything:
// blanks separate words; double quotes group and allow \" \\ escapes;
// single quotes group literally; a backslash outside quotes escapes the next
// character. An unterminated quote is an error naming where it opened.
func SplitArgs(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
		case c == '"' || c == '\'':
			inWord = true
			j := i + 1
			for ; j < len(line) && line[j] != c; j++ {
				if c == '"' && line[j] == '\\' && j+1 < len(line) && (line[j+1] == '"' || line[j+1] == '\\') {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated %c quote opened at column %d: close it, e.g. key=%cvalue%c", c, i+1, c, c)
			}
			i = j
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// ParseKeyValues turns words of the form key=value into a map. A word
// without "=", an empty key or a key given twice is an error that says so.
func ParseKeyValues(words []string) (map[string]string, error) {
	out := make(map[string]string, len(words))
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value: arguments are named, e.g. language=go (quote values with spaces: focus=\"two words\")", w)
		}
		if k == "" {
			return nil, fmt.Errorf("argument %q has no name before '=': write name=value", w)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("argument %q is given twice: keep one", k)
		}
		out[k] = v
	}
	return out, nil
}

// QuoteArg quotes a word so SplitArgs gives it back unchanged.
func QuoteArg(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n\r\"'\\") {
		return w
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
}
