package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

var itemSamples = []string{
	`{"name":"echo","title":"Echo","description":"Echo a message","inputSchema":{"type":"object","properties":{"m":{"type":"string"}}},"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"optional"}}`,
	`{"uri":"demo://x","name":"x","mimeType":"text/plain","size":12,"annotations":{"audience":["user"],"priority":0.5}}`,
	`{"uriTemplate":"demo://t/{id}","name":"t","description":"caf\u00e9 \"quoted\""}`,
	`{"name":"p","arguments":[{"name":"a","required":true},{"name":"b"}]}`,
	`{"NAME":"upper","Title":"T","MimeType":"a/b","Size":null,"inputSchema":null}`,
	`{"name":"dup","name":"second"}`,
	`{"name":42}`, `{"size":"12"}`, `{"size":1.5}`, `{"size":99999999999999999999}`, `{"arguments":{}}`,
	`{"execution":[]}`, `{"title":true}`, `{}`, `{"extra":{"deep":[1,2,3]},"name":"n"}`,
}

func TestItemsReadAsEncodingJSONReadsThem(t *testing.T) {
	for _, s := range itemSamples {
		var want, got rawItem
		werr := json.Unmarshal([]byte(s), &want)
		gerr := got.read([]byte(s))
		if (werr == nil) != (gerr == nil) || werr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", s, got, gerr, want, werr)
		}
	}
}

func FuzzItemReadAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range itemSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got rawItem
		if json.Unmarshal(b, &want) != nil || b[0] != '{' {
			return
		}
		if err := got.read(b); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, %v; want %+v", b, got, err, want)
		}
	})
}
