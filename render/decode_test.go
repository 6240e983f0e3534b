package render

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeReadRoundTripsEveryItemKind(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	contents := []json.RawMessage{
		json.RawMessage(`{"uri":"a://t","mimeType":"text/plain","text":"hello"}`),
		json.RawMessage(`{"uri":"a://b","mimeType":"image/png","blob":"iVBORw0KGgr/AAAA"}`),
		json.RawMessage(`{"uri":"a://x"}`),
	}
	for _, cs := range [][]json.RawMessage{contents, contents[:1], contents[1:2]} {
		res, err := ReadContents(store, "s", cs, PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wire, _ := Marshal(res)
		back, err := DecodeRead(wire)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Marshal(back)
		if string(again) != string(wire) || !reflect.DeepEqual(back.Items, res.Items) {
			t.Errorf("round trip changed the read:\n%s\n%s", wire, again)
		}
	}
	if _, err := DecodeRead([]byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("err = %v", err)
	}
}
