package render

import (
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

var jsonSamples = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e10`, `-12.25E-3`, `"x"`, `""`,
	`{"a":1,"b":[1,2,{"c":null}],"d":"e\"f\\g\u00e9\n"}`,
	` { "a" : [ ] , "b" : { } } `,
	`[[[[[]]]],{"a":{"b":{"c":[1,{"d":[]}]}}}]`,
	`{"k\u0061y":"v"}`, `{"a":"\ud83d\ude00"}`, "\"caf\xc3\xa9\"", "\"\xff\xfe\"",
	// invalid
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
	`NaN`, `nul`, `tru`, `"abc`, `"a\qb"`, `"\u12"`, "\"a\x01b\"", `{"a":1}}`, `[1]]`, `{"a":1} x`,
	`[{"a":[}]`, `{"a":{"b":1]}`, `"abcdefghijklmnopqrstuvwxyz` + "\x1f" + `"`, `"abcdefgh\`,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range jsonSamples {
		want := json.Valid([]byte(s))
		if got := ValidJSON([]byte(s)) == nil; got != want {
			t.Errorf("ValidJSON(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func TestJSONScanRefusesNestingDeeperThanEncodingJSONDoes(t *testing.T) {
	ok := strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)
	deep := "[" + ok + "]"
	if err := ValidJSON([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxJSONDepth, err)
	}
	err := ValidJSON([]byte(deep))
	if err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("%d levels: %v", MaxJSONDepth+1, err)
	}
	var v any
	if json.Unmarshal([]byte(deep), &v) == nil || json.Unmarshal([]byte(ok), &v) != nil {
		t.Error("encoding/json's depth bound is not MaxJSONDepth")
	}
	if err := ObjectMembers([]byte(`{"a":`+deep+`}`), func(string, []byte) bool { return true }); err == nil {
		t.Error("ObjectMembers took a member nested too deep")
	}
}

func TestObjectMembersAreTheMembersEncodingJSONReads(t *testing.T) {
	for _, s := range jsonSamples {
		var want map[string]json.RawMessage
		werr := json.Unmarshal([]byte(s), &want)
		got := map[string]json.RawMessage{}
		gerr := ObjectMembers([]byte(s), func(k string, v []byte) bool {
			got[k] = v
			return true
		})
		if (werr == nil) != (gerr == nil) || werr == nil && want == nil && s != "null" {
			if !(werr == nil && want == nil) { // json.Unmarshal takes null as an empty map
				t.Errorf("%q: ObjectMembers error %v, encoding/json %v", s, gerr, werr)
			}
			continue
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", s, got, want)
		}
	}
}

func TestArrayElementsAreSubslicesOfTheInput(t *testing.T) {
	raw := []byte(` [ {"a": [1, 2]}, "x", 3 , null ] `)
	var got []string
	err := ArrayElements(raw, func(e []byte) bool {
		// A subslice raw[i:] has cap(raw)-i: the same memory, not a copy.
		i := cap(raw) - cap(e)
		if i < 0 || i+len(e) > len(raw) || &raw[i] != &e[0] {
			t.Errorf("%q is not a subslice of the input", e)
		}
		got = append(got, string(e))
		return true
	})
	if err != nil || !reflect.DeepEqual(got, []string{`{"a": [1, 2]}`, `"x"`, `3`, `null`}) {
		t.Errorf("got %q, %v", got, err)
	}
	if err := ArrayElements([]byte(`null`), func([]byte) bool { t.Error("an element in null"); return true }); err != nil {
		t.Error(err)
	}
	if err := ArrayElements([]byte(`{"a":1}`), func([]byte) bool { return true }); err == nil || !strings.Contains(err.Error(), "not a JSON array") {
		t.Errorf("an object as an array: %v", err)
	}
}

func TestStringBytesCopiesOnlyWhenThereAreEscapes(t *testing.T) {
	plain := []byte(`"aGVsbG8="`)
	b, err := StringBytes(plain)
	if err != nil || string(b) != "aGVsbG8=" || &b[0] != &plain[1] {
		t.Errorf("plain: %q %v (a copy: %v)", b, err, err == nil && &b[0] != &plain[1])
	}
	b, err = StringBytes([]byte(`"aGVs\nbG8\/"`))
	if err != nil || string(b) != "aGVs\nbG8/" {
		t.Errorf("escaped: %q %v", b, err)
	}
	if _, err := StringBytes([]byte(`12`)); err == nil {
		t.Error("a number taken for a string")
	}
}

func FuzzJSONScanAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := ValidJSON(b) == nil, json.Valid(b); got != want {
			t.Fatalf("ValidJSON(%q) = %v, json.Valid %v", b, got, want)
		}
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) == nil && want != nil {
			got := map[string]json.RawMessage{}
			if err := ObjectMembers(b, func(k string, v []byte) bool { got[k] = v; return true }); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ObjectMembers(%q) = %q, %v; want %q", b, got, err, want)
			}
		}
	})
}

// bigBlobLine is a resources/read answer carrying n random bytes as base64.
func bigBlobLine(n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(1)).Read(b)
	return []byte(`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"demo://big","mimeType":"application/octet-stream","blob":"` +
		base64.StdEncoding.EncodeToString(b) + `"}]}}`)
}

// BenchmarkValidJSONBlob64MiB is the one pass the transport makes over a
// big answer; BenchmarkEncodingJSONValidBlob64MiB is what one pass of
// encoding/json costs on the same line.
func BenchmarkValidJSONBlob64MiB(b *testing.B) {
	line := bigBlobLine(48 << 20)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := ValidJSON(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONValidBlob64MiB(b *testing.B) {
	line := bigBlobLine(48 << 20)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !json.Valid(line) {
			b.Fatal("invalid")
		}
	}
}
