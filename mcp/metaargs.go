package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/howl-mcp/howl/render"
)

// MetaArgs are a meta-function call's arguments as ParseMetaArgs read them.
// The permission decision and the dispatch both take them from that one
// reading, so the tool a rule judged is the tool that runs.
type MetaArgs struct {
	// Object is exactly one JSON object with distinct keys ("{}" when the
	// model sent nothing or null).
	Object json.RawMessage
	// Tool is the string under "tool": the tool mcp_invoke runs ("" when
	// there is none, or it is not a string, which dispatch refuses).
	Tool string
	// Server is the string under "server": the server a call of the shared
	// set names ("" when there is none, or it is not a string).
	Server string
}

// ParseMetaArgs reads the arguments a model sent to meta-function fn. It
// accepts exactly one JSON object and refuses, with a *CallError the
// model can act on, anything else: bytes after the object, another JSON
// value, or a key given twice. Two readers of such input can see
// different calls (encoding/json's Unmarshal fails on trailing bytes
// where a Decoder reads the first value; the last of two keys wins in one
// reader and the first in another), so howl runs none of them.
//
// Keys are compared as encoding/json matches them to struct fields,
// ignoring case ("tool" and "TOOL" are the same key).
func ParseMetaArgs(fn string, args []byte) (MetaArgs, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return MetaArgs{Object: json.RawMessage("{}")}, nil
	}
	refuse := func(format string, a ...any) error {
		return callErrorf("%s: %s; send exactly one JSON object, each key once%s; nothing was run", fn, fmt.Sprintf(format, a...), paramsOf(fn))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil {
		return MetaArgs{}, refuse("the arguments are not valid JSON (%v)", err)
	} else if tok != json.Delim('{') {
		return MetaArgs{}, refuse("the arguments must be a JSON object, not %s", jsonTokenKind(tok))
	}
	var ma MetaArgs
	seen := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return MetaArgs{}, refuse("the arguments are not valid JSON (%v)", err)
		}
		key := tok.(string) // inside an object the decoder yields only string keys
		folded := foldKey(key)
		if first, dup := seen[folded]; dup {
			as := ""
			if first != key {
				as = fmt.Sprintf(" (as %q and %q, the same key to a JSON reader)", render.Ellipsize(first, 80), render.Ellipsize(key, 80))
			}
			return MetaArgs{}, refuse("the arguments give the key %q twice%s, and JSON readers disagree on which one counts",
				render.Ellipsize(first, 80), as)
		}
		seen[folded] = key
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return MetaArgs{}, refuse("the arguments are not valid JSON (%v)", err)
		}
		switch folded {
		case "TOOL":
			_ = json.Unmarshal(v, &ma.Tool)
		case "SERVER":
			_ = json.Unmarshal(v, &ma.Server)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return MetaArgs{}, refuse("the arguments are not valid JSON (%v)", err)
	}
	if rest := bytes.TrimSpace(trimmed[dec.InputOffset():]); len(rest) > 0 {
		return MetaArgs{}, refuse("the arguments must be one JSON object alone, but %d more bytes follow it (%q)",
			len(rest), render.Ellipsize(string(rest), 40))
	}
	ma.Object = json.RawMessage(trimmed)
	return ma, nil
}

// foldKey is a key as encoding/json folds it to match a struct field:
// every rune replaced by the smallest rune of its case-folding orbit, so
// two keys fold alike exactly when bytes.EqualFold says they are equal.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				return r2
			}
			r = r2
		}
	}, key)
}

// jsonTokenKind names the JSON value a token starts, for an error.
func jsonTokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// paramsOf is "; the parameters of fn are ..." when fn names a
// meta-function, so a refusal shows what to send.
func paramsOf(fn string) string {
	m, _, ok := matchMeta(fn)
	if !ok {
		return ""
	}
	if fn == m.name() {
		return ": its parameters are server, " + paramNames(m.params)
	}
	return ": its parameters are " + paramNames(m.params)
}
