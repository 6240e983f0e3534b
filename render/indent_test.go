package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// JSON of ordinary depth is indented exactly as json.Indent indents it;
// nesting deep enough to multiply its size (120 KB of brackets indent to
// 1.2 GB) comes back compacted, the same JSON on one line, at about its
// own size. Braces and commas inside strings do not count.
func TestIndentJSONIndentsOrdinaryJSONAndCompactsANestingBomb(t *testing.T) {
	for _, src := range []string{
		`{"a": [1, 2, {"b": "x,{[y"}], "c": {}, "d": []}`,
		` [ {"k":"v"} , 3 ] `,
		`"just a string"`,
	} {
		var got, want bytes.Buffer
		ind, err := IndentJSON(&got, []byte(src), "  ", "\t")
		if err != nil || !ind {
			t.Fatalf("%s: indented %v, err %v", src, ind, err)
		}
		if err := json.Indent(&want, []byte(src), "  ", "\t"); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s indents as\n%s\nwant\n%s", src, got.String(), want.String())
		}
		if n := indentedLen([]byte(src), 2, 1, 1<<30); n < want.Len() {
			t.Errorf("%s: the bound %d is under json.Indent's %d bytes", src, n, want.Len())
		}
	}

	const depth = 9999
	bomb := []byte(strings.Repeat("[", depth) + strings.TrimSuffix(strings.Repeat("0,", 50000), ",") + strings.Repeat("]", depth))
	var got bytes.Buffer
	ind, err := IndentJSON(&got, bomb, "", "  ")
	if err != nil || ind {
		t.Fatalf("the nesting bomb: indented %v, err %v", ind, err)
	}
	if got.Len() > len(bomb) || !json.Valid(got.Bytes()) {
		t.Errorf("the nesting bomb came back as %d bytes (valid %v), from %d", got.Len(), json.Valid(got.Bytes()), len(bomb))
	}

	var none bytes.Buffer
	if _, err := IndentJSON(&none, []byte(`{"a":`), "", "  "); err == nil || none.Len() != 0 {
		t.Errorf("malformed JSON: err %v, %d bytes appended", err, none.Len())
	}
}
