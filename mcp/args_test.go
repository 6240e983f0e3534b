package mcp

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitArgsQuotesLikeAShell(t *testing.T) {
	cases := map[string][]string{
		`.prompt demo code_review language=go`: {".prompt", "demo", "code_review", "language=go"},
		`k="two words"`:                        {"k=two words"},
		`k='it''s'`:                            {"k=its"},
		`k="say \"hi\"" j='a \ b'`:             {`k=say "hi"`, `j=a \ b`},
		`k=a\ b  x`:                            {"k=a b", "x"},
		`  spaced   out  `:                     {"spaced", "out"},
		`k=""`:                                 {"k="},
		`!rm -rf /`:                            {"!rm", "-rf", "/"},
		"tab\tsep\nnewline":                    {"tab", "sep", "newline"},
		`k="é 日本"`:                             {"k=é 日本"},
	}
	for in, want := range cases {
		got, err := SplitArgs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`k="open`, `k='open`, `"`} {
		if _, err := SplitArgs(bad); err == nil || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("SplitArgs(%q) err = %v", bad, err)
		}
	}
}

func TestParseKeyValues(t *testing.T) {
	got, err := ParseKeyValues([]string{"a=1", "b=x=y", "c="})
	if err != nil || got["a"] != "1" || got["b"] != "x=y" || got["c"] != "" {
		t.Errorf("got %v, %v", got, err)
	}
	for words, want := range map[string]string{"noequals": "not key=value", "=v": "no name", "a=1 a=2": "twice"} {
		if _, err := ParseKeyValues(strings.Fields(words)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", words, err, want)
		}
	}
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{`.prompt demo x k="two words"`, `a\ b 'c d' "e\"f"`, `"`, `\`, `k='`, "\x00\t\"\\'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := SplitArgs(line)
		if err != nil {
			return
		}
		// Quoting the words and splitting again gives them back.
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = QuoteArg(w)
		}
		again, err := SplitArgs(strings.Join(q, " "))
		if err != nil || !reflect.DeepEqual(again, words) && !(len(again) == 0 && len(words) == 0) {
			t.Fatalf("round trip of %q: %q -> %q (%v)", line, words, again, err)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["${HOME}"]}}}`,
		`{"mcpServers": {"r": {"url": "https://h/mcp", "type": "sse", "headers": {"A": "${T:-d}"}}}}`,
		`{"mcpServers": {"a": {"comand": "x"}}}`,
		`{"mcpServers": []}`, `{`, `null`, `{"mcpServers": {"": {}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		cfg, err := ParseConfig("fuzz.json", []byte(data), env(map[string]string{"HOME": "/h"}))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range cfg.Servers {
			if strings.TrimSpace(s.Name) == "" || (s.Command == "") == (s.URL == "") {
				t.Fatalf("accepted a server without exactly one of command and url: %+v", s)
			}
		}
	})
}
