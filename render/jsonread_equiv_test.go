package render

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"testing"
)

// BoundToolResult reads a result without encoding/json's decoders; these
// check that what it reads is what they read, on the results a server can
// send. The references are the code it replaced.

// decoderMembers is how objectMembers read an object with a json.Decoder.
func decoderMembers(raw []byte) (members []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		members = append(members, member{key: key, value: v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return members, true
}

type presenceRef bool

func (p *presenceRef) UnmarshalJSON(b []byte) error {
	*p = presenceRef(string(b) != "null")
	return nil
}

// unmarshalBinary is how anyBinary judged an item: encoding/json into a
// struct of the fields that mean binary.
func unmarshalBinary(raw []byte) bool {
	var it struct {
		Type     string
		Data     presenceRef `json:"data"`
		Blob     presenceRef `json:"blob"`
		Resource struct {
			Blob presenceRef `json:"blob"`
		} `json:"resource"`
	}
	_ = json.Unmarshal(raw, &it)
	return it.Type == "image" || it.Type == "audio" || bool(it.Data) || bool(it.Blob) || bool(it.Resource.Blob)
}

var jsonReadSeeds = []string{
	`{}`, ` { "a" : 1 , "b":[1, {"c":null}] } `, `{"a":1,}`, `{"a":1}{}`, `{"a":1} x`, `[1]`, `"s"`, `null`, ``, `{`,
	`{"k\u00e9y":"v","k\u00e9y":2}`, `{"\ud800":1}`, "{\"a\xff\":\"b\xfe\"}", `{"a":"\'"}`, `{"a":01}`, `{"a":1e}`,
	`{"type":"image"}`, `{"TYPE":"audio"}`, `{"Type":"image","type":5}`, `{"type":"im\u0061ge"}`, `{"type":null}`,
	`{"data":null}`, `{"DATA":""}`, `{"data":1,"data":null}`, `{"blob":false}`, `{"bloB":null}`,
	`{"resource":{"blob":"x"}}`, `{"resource":{"blob":"x"},"resource":{"text":"y"}}`, `{"resource":{"blob":"x"},"resource":{"BLOB":null}}`,
	`{"resource":"blob"}`, `{"resource":null}`, `{"resource":[{"blob":1}]}`, `{"reſource":{"blob":1}}`, `{"type":"text","text":"x"}`,
	`{"text":"a\"b\\c\/d\b\f\n\r\t\u0000\u00e9\u20ac\ud83d\ude00\ud800\udc00\ud800x\udc00\ud800\ud800"}`,
	"{\"text\":\"\xe6\x97\xa5\xff\xc3\xa9\xe6\x97\"}", `{"text":"\u12"}`, `{"text":"abc\`,
}

// FuzzObjectMembersMatchDecoder: objectMembers reads what a json.Decoder
// read, as subslices instead of copies; itemBinary judges an item as
// encoding/json's decode of it did.
func FuzzObjectMembersMatchDecoder(f *testing.F) {
	for _, s := range jsonReadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := objectMembers(raw)
		want, wantOK := decoderMembers(raw)
		if !ok {
			got = nil // not read when not an object
		}
		if ok != wantOK || len(got) != len(want) {
			t.Fatalf("%q: got %v %q, the decoder %v %q", raw, ok, got, wantOK, want)
		}
		for i := range got {
			if got[i].key != want[i].key || !bytes.Equal(got[i].value, want[i].value) {
				t.Fatalf("%q: member %d is %q:%s, the decoder's %q:%s", raw, i, got[i].key, got[i].value, want[i].key, want[i].value)
			}
		}
		if json.Valid(raw) {
			if got, want := itemBinary(raw), unmarshalBinary(raw); got != want {
				t.Fatalf("%q: itemBinary %v, encoding/json %v", raw, got, want)
			}
		}
	})
}

// FuzzStringPrefixMatchesUnmarshal: a string's prefix and length are those
// of encoding/json's decoding of it, and StringBytes is that decoding.
func FuzzStringPrefixMatchesUnmarshal(f *testing.F) {
	for _, s := range jsonReadSeeds {
		f.Add([]byte(s), 3)
	}
	f.Add([]byte(`"\n\n\n\n\n\n"`), 2)
	f.Add([]byte("\"\xff\xff\xff\xff\""), 4)
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		// Only what a scanner validated reaches it: a string value.
		if m, ok := objectMembers(raw); ok && len(m) > 0 && m[0].value[0] == '"' {
			raw = m[0].value
		}
		var want string
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || json.Unmarshal(raw, &want) != nil {
			return
		}
		limit = max(limit, 0) % (len(raw) + 8)
		head, total, err := stringPrefix(raw, limit)
		if err != nil || total != len(want) || len(head) < min(total, limit) || len(head) > limit+4 && len(head) != total || string(head) != want[:len(head)] {
			t.Fatalf("%q limit %d: got %q (%d bytes of %d) %v, encoding/json %q", raw, limit, head, len(head), total, err, want)
		}
		if b, err := StringBytes(raw); err != nil || string(b) != want {
			t.Fatalf("%q: StringBytes %q %v, encoding/json %q", raw, b, err, want)
		}
		if _, total, _ := stringPrefix(raw, math.MaxInt); total != len(want) {
			t.Fatalf("%q: total %d, want %d", raw, total, len(want))
		}
	})
}
