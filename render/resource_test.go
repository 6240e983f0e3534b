package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func raws(items ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, s := range items {
		out[i] = json.RawMessage(s)
	}
	return out
}

func textItem(uri, text string) string {
	b, _ := json.Marshal(map[string]string{"uri": uri, "mimeType": "text/plain", "text": text})
	return string(b)
}

func TestReadOfOneItemSerializesAsThatItem(t *testing.T) {
	r, err := ReadContents(nil, "s", raws(textItem("file:///a", "hello")), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := marshal(t, r)
	want := `{"uri":"file:///a","mime_type":"text/plain","truncated":false,"total_bytes":5,"next_offset":null,"note":"showing bytes 0-5 of 5 (complete)","text":"hello"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if r.ItemsTotal != 1 || r.ItemsShown != 1 {
		t.Errorf("counts %d/%d", r.ItemsShown, r.ItemsTotal)
	}
	if v := marshal(t, struct{ R ReadResult }{*r}); string(v) != `{"R":`+want+`}` {
		t.Errorf("a ReadResult value must serialize the same: %s", v)
	}
}

func TestReadDecidesEachItemByFieldPresenceAndIsolatesBadItems(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	r, err := ReadContents(store, "s", raws(
		textItem("file:///ok", "fine"),
		`{"uri":"u:both","text":"t","blob":"AAAA"}`,
		`{"uri":"u:neither","mimeType":"text/plain"}`,
		`["not","an","object"]`,
		`{"uri":"u:num","text":42}`,
		`{"uri":"u:bin","mimeType":"image/png","blob":"`+b64(pngBytes)+`"}`,
		`{"uri":"u:null-blob","text":"t","blob":null}`,
		`{"uri":"u:badb64","blob":"@@@@"}`,
	), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.ItemsTotal != 8 || r.ItemsShown != 8 {
		t.Fatalf("shown %d of %d", r.ItemsShown, r.ItemsTotal)
	}
	wantErr := map[int]string{
		1: `content item 1 (uri "u:both") has both "text" and "blob"`,
		2: `content item 2 (uri "u:neither") has neither "text" nor "blob"`,
		3: `content item 3 is not a JSON object (got an array)`,
		4: `content item 4 field "text" is a number, not a string`,
		7: `blob "u:badb64" is not valid base64`,
	}
	for i, it := range r.Items {
		e, isErr := it.(*ItemError)
		if want, ok := wantErr[i]; ok {
			if !isErr || !strings.HasPrefix(e.Message, want) || e.Index != i {
				t.Errorf("item %d: got %#v, want error %q", i, it, want)
			}
			continue
		}
		if isErr {
			t.Errorf("item %d: unexpected error %s", i, e.Message)
		}
	}
	if _, ok := r.Items[5].(*SpillResult); !ok {
		t.Errorf("item 5 is %T, want a spill", r.Items[5])
	}
	if tr, ok := r.Items[6].(*TextResult); !ok || tr.Text != "t" {
		t.Errorf("a null blob must count as absent: %#v", r.Items[6])
	}
	if e := r.Items[1].(*ItemError); e.Code != CodeInvalidContent || e.URI != "u:both" {
		t.Errorf("structured error fields: %+v", e)
	}
	b := marshal(t, r)
	if keys := keysInOrder(t, b); strings.Join(keys, ",") != "items_total,items_shown,note,items" {
		t.Errorf("envelope order %v", keys)
	}
}

func TestReadOfManyItemsStaysUnderTheResponseCeiling(t *testing.T) {
	var items []string
	for i := range 7 {
		items = append(items, textItem(fmt.Sprintf("file:///%d", i), strings.Repeat("x", 60000)))
	}
	r, err := ReadContents(nil, "s", raws(items...), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := marshal(t, r)
	if len(b) > MaxResponseBytes {
		t.Errorf("response is %d bytes, over %d", len(b), MaxResponseBytes)
	}
	omitted := 7 - r.ItemsShown
	want := fmt.Sprintf("%d of 7 items omitted: response ceiling 204800 bytes", omitted)
	if omitted == 0 || !strings.HasPrefix(r.Note, want) {
		t.Fatalf("note %q, want prefix %q", r.Note, want)
	}
	marker, ok := r.Items[len(r.Items)-1].(*OmittedItems)
	if !ok || marker.Omitted != omitted {
		t.Errorf("last item %#v, want the omission marker", r.Items[len(r.Items)-1])
	}
	if i := strings.Index(string(b), want); i < 0 || i > 100 {
		t.Errorf("the omission statement is at byte %d, want it leading the response", i)
	}
}

func TestReadShrinksTextSoSpillMetadataIsNotPushedOut(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	r, err := ReadContents(store, "s", raws(
		textItem("file:///big", strings.Repeat("y", 300000)),
		`{"uri":"u:img","mimeType":"image/png","blob":"`+b64(pngBytes)+`"}`,
	), PageOptions{MaxBytes: MaxSliceBytes})
	if err != nil {
		t.Fatal(err)
	}
	if r.ItemsShown != 2 {
		t.Fatalf("shown %d of 2: %s", r.ItemsShown, r.Note)
	}
	tr := r.Items[0].(*TextResult)
	if len(tr.Text) >= MaxSliceBytes || tr.NextOffset == nil || *tr.NextOffset != len(tr.Text) ||
		!strings.Contains(tr.Note, "to fit the response ceiling of 204800 bytes") {
		t.Errorf("text len %d, next %v, note %q", len(tr.Text), tr.NextOffset, tr.Note)
	}
	if n := len(marshal(t, r)); n > MaxResponseBytes {
		t.Errorf("response %d bytes", n)
	}
}

func TestReadCeilingCountsJSONEscaping(t *testing.T) {
	// Each control byte serializes as 6 bytes (\u0001); the page must shrink
	// until the serialized response fits.
	text := strings.Repeat("\x01", 300000)
	r, err := ReadContents(nil, "s", raws(textItem("u", text)), PageOptions{MaxBytes: MaxSliceBytes})
	if err != nil {
		t.Fatal(err)
	}
	b := marshal(t, r)
	if len(b) > MaxResponseBytes || len(b) < MaxResponseBytes/2 {
		t.Errorf("response is %d bytes; want it filled close to, but within, %d", len(b), MaxResponseBytes)
	}
	if tr := r.Items[0].(*TextResult); tr.NextOffset == nil || *tr.NextOffset != len(tr.Text) {
		t.Errorf("the shortened page must continue where it stopped")
	}
}

func TestReadRejectsInvalidOptionsForTheWholeRead(t *testing.T) {
	_, err := ReadContents(nil, "s", raws(textItem("u", "x")), PageOptions{Pattern: "("})
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Code != CodeInvalidPattern {
		t.Errorf("got %v", err)
	}
}

func TestReadOfNoItemsSaysSo(t *testing.T) {
	r, _ := ReadContents(nil, "s", nil, PageOptions{})
	if b := marshal(t, r); string(b) != `{"items_total":0,"items_shown":0,"note":"the server returned no content items","items":[]}` {
		t.Errorf("got %s", b)
	}
}

func TestReadClampsServerMetadataStrings(t *testing.T) {
	long := "file:///" + strings.Repeat("é", 5000)
	r, _ := ReadContents(nil, "s", raws(textItem(long, "x")), PageOptions{})
	tr := r.Items[0].(*TextResult)
	if len(tr.URI) > MaxMetaString || !strings.Contains(tr.URI, "…[clamped: showing ") || !strings.Contains(tr.URI, fmt.Sprintf("of %d bytes", len(long))) {
		t.Errorf("uri of %d bytes not clamped with a marker: ...%s", len(tr.URI), tr.URI[max(0, len(tr.URI)-120):])
	}
	mustValidUTF8(t, tr.URI)
}
