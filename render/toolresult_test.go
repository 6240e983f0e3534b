package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func bound(t *testing.T, store *SpillStore, raw string) ([]byte, bool) {
	t.Helper()
	out, bounded, err := BoundToolResult(store, "srv", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("output is not valid JSON: %.300s", out)
	}
	return out, bounded
}

// decoded is a bounded tool result, parsed for assertions.
type decoded struct {
	Coverage          ToolCoverage                 `json:"howl_coverage"`
	Content           []map[string]json.RawMessage `json:"content"`
	StructuredContent json.RawMessage              `json:"structuredContent"`
	IsError           bool                         `json:"isError"`
	Meta              json.RawMessage              `json:"_meta"`
}

func decode(t *testing.T, out []byte) decoded {
	t.Helper()
	var d decoded
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func str(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s is not a string", raw)
	}
	return s
}

func TestToolResultWithinBoundsPassesThroughByteIdentical(t *testing.T) {
	raw := []byte(`{ "content" : [ {"type":"text","text":"<ok> & fine"}, {"type":"resource_link","uri":"file:///x","name":"x"},
		{"type":"resource","resource":{"uri":"u","text":"embedded"}} ],
		"structuredContent": {"b":1,"a":[1,2]}, "isError": false, "_meta": {"k":"v"} }`)
	out, bounded, err := BoundToolResult(NewSpillStore(t.TempDir()), "srv", raw)
	if err != nil || bounded {
		t.Fatalf("bounded=%v err=%v", bounded, err)
	}
	if &out[0] != &raw[0] || len(out) != len(raw) {
		t.Error("an in-bounds result must be returned as the same bytes")
	}
}

func TestToolResultImageIsAlwaysSpilledEvenWhenSmall(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	data := b64(pngBytes)
	out, bounded := bound(t, store, `{"content":[{"type":"text","text":"chart:"},{"type":"image","data":"`+data+`","mimeType":"image/png","annotations":{"audience":["user"]}}],"isError":false}`)
	if !bounded {
		t.Fatal("a result with an image must be bounded")
	}
	if keys := keysInOrder(t, out); keys[0] != "howl_coverage" || strings.Join(keys, ",") != "howl_coverage,content,isError" {
		t.Errorf("top-level order %v", keys)
	}
	if contains(out, data) || contains(out, data[:40]) {
		t.Error("base64 image data survived into the bounded result")
	}
	d := decode(t, out)
	if string(d.Content[0]["text"]) != `"chart:"` || d.Content[0]["howl_note"] != nil {
		t.Errorf("the small text item must pass unchanged: %v", d.Content[0])
	}
	img := d.Content[1]
	if keys := keysInOrder(t, out[strings.Index(string(out), `{"type":"image"`):][:len(mustMarshal(img))]); len(keys) < 2 || keys[0] != "type" || keys[1] != "howl_note" {
		t.Errorf("changed item must lead with type, howl_note: %v", keys)
	}
	var sp SpillResult
	if err := json.Unmarshal(img["spill"], &sp); err != nil || !sp.Spilled || sp.SHA256 != sha(pngBytes) || sp.MimeType != "image/png" {
		t.Errorf("spill = %s (%v)", img["spill"], err)
	}
	if !strings.Contains(str(t, img["howl_note"]), "spilled to "+sp.Path) || img["annotations"] == nil || img["data"] != nil {
		t.Errorf("image item %v", img)
	}
	if d.Coverage.ContentItems != 2 || d.Coverage.ItemsShown != 2 || d.Coverage.ItemsChanged != 1 || d.Coverage.OriginalBytes == 0 {
		t.Errorf("coverage %+v", d.Coverage)
	}
}

func TestToolResultLargeTextIsSlicedWithShownOfTotal(t *testing.T) {
	text := strings.Repeat("日本語", 120000) // 1080000 bytes
	out, bounded := bound(t, nil, mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}))
	if !bounded {
		t.Fatal("not bounded")
	}
	item := decode(t, out).Content[0]
	got := str(t, item["text"])
	mustValidUTF8(t, got)
	if len(got) > MaxSliceBytes || !strings.HasPrefix(text, got) {
		t.Errorf("text of %d bytes is not a prefix within %d", len(got), MaxSliceBytes)
	}
	note := str(t, item["howl_note"])
	if !strings.Contains(note, fmt.Sprintf("showing bytes 0-%d of %d; re-call the tool with narrower arguments", len(got), len(text))) {
		t.Errorf("note %q", note)
	}
	if len(out) > MaxResponseBytes+envelopeReserve {
		t.Errorf("result is %d bytes", len(out))
	}
	if i := strings.Index(string(out), `"howl_coverage"`); i != 1 {
		t.Errorf("coverage at byte %d, want it first", i)
	}
}

func mustJSON(v any) string {
	b, err := Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestToolResultOversizedStructuredContentIsReplacedByMarker(t *testing.T) {
	rows := make([]map[string]any, 20000)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": "row"}
	}
	raw := mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": "see structured"}}, "structuredContent": map[string]any{"rows": rows}})
	out, _ := bound(t, nil, raw)
	var marker struct {
		Omitted bool   `json:"howl_omitted"`
		Bytes   int    `json:"bytes"`
		Note    string `json:"note"`
	}
	d := decode(t, out)
	json.Unmarshal(d.StructuredContent, &marker)
	if !marker.Omitted || marker.Bytes <= MaxSliceBytes || !strings.Contains(marker.Note, "over the 204800-byte ceiling") {
		t.Errorf("structuredContent = %.200s", d.StructuredContent)
	}
	if !strings.Contains(d.Coverage.Note, "structuredContent omitted") {
		t.Errorf("coverage note %q does not say so", d.Coverage.Note)
	}
}

func TestToolResultStructuredContentWithinCeilingIsKeptAsIs(t *testing.T) {
	sc := `{"z":1,"a":"<&>"}`
	out, _ := bound(t, nil, `{"content":[{"type":"image","data":"`+b64([]byte("text"))+`","mimeType":"image/svg+xml"}],"structuredContent":`+sc+`}`)
	if !contains(out, `"structuredContent":`+sc) {
		t.Errorf("structuredContent changed: %s", out)
	}
}

func TestToolResultClampsServerMetadataStrings(t *testing.T) {
	longURI := "file:///" + strings.Repeat("a", 10000)
	raw := mustJSON(map[string]any{"content": []any{
		map[string]any{"type": "resource_link", "uri": longURI, "name": "n"},
		map[string]any{"type": "image", "data": b64(pngBytes), "mimeType": "image/png"},
	}, "_meta": map[string]any{"trace": strings.Repeat("t", 5000)}})
	out, _ := bound(t, NewSpillStore(t.TempDir()), raw)
	d := decode(t, out)
	uri := str(t, d.Content[0]["uri"])
	if len(uri) > MaxMetaString || !strings.Contains(uri, fmt.Sprintf("of %d bytes; metadata strings are limited to 4096]", len(longURI))) {
		t.Errorf("uri not clamped: %d bytes", len(uri))
	}
	if !strings.Contains(str(t, d.Content[0]["howl_note"]), "1 strings clamped to 4096 bytes") {
		t.Errorf("clamped item has no note: %v", d.Content[0])
	}
	var meta map[string]string
	json.Unmarshal(d.Meta, &meta)
	if len(meta["trace"]) > MaxMetaString {
		t.Errorf("_meta string not clamped")
	}
}

func TestToolResultUnknownContentTypePassesThroughClamped(t *testing.T) {
	raw := mustJSON(map[string]any{"content": []any{
		map[string]any{"type": "hologram", "frames": 3, "label": strings.Repeat("h", 5000)},
		map[string]any{"type": "text", "text": strings.Repeat("x", MaxSliceBytes+1)},
	}})
	out, _ := bound(t, nil, raw)
	d := decode(t, out)
	if len(d.Content) != 2 || str(t, d.Content[0]["type"]) != "hologram" || string(d.Content[0]["frames"]) != "3" {
		t.Fatalf("unknown item not passed through: %v", d.Content[0])
	}
	if n := len(str(t, d.Content[0]["label"])); n > MaxMetaString {
		t.Errorf("label of %d bytes not clamped", n)
	}
}

func TestToolResultNeverLeaksBase64(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	payloads := map[string]string{}
	for _, name := range []string{"image", "audio", "blob", "unknown", "stray", "both1", "both2", "bad"} {
		payloads[name] = b64(append([]byte(name+"\x00\xff"), pngBytes...))
	}
	payloads["bad"] = "!!!!" + payloads["bad"]
	raw := mustJSON(map[string]any{"content": []any{
		map[string]any{"type": "image", "data": payloads["image"], "mimeType": "image/png"},
		map[string]any{"type": "audio", "data": payloads["audio"], "mimeType": "audio/wav"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "r", "mimeType": "application/pdf", "blob": payloads["blob"]}},
		map[string]any{"type": "video", "data": payloads["unknown"], "mimeType": "video/mp4"},
		map[string]any{"type": "text", "text": "hi", "data": payloads["stray"]},
		map[string]any{"type": "image", "data": payloads["both1"], "blob": payloads["both2"]},
		map[string]any{"type": "image", "data": payloads["bad"]},
	}})
	out, bounded := bound(t, store, raw)
	if !bounded {
		t.Fatal("not bounded")
	}
	for name, p := range payloads {
		if contains(out, p[8:48]) {
			t.Errorf("base64 of %s survived: %s", name, out)
		}
	}
	d := decode(t, out)
	if d.Coverage.ItemsShown != 7 || d.Coverage.ItemsChanged != 7 {
		t.Errorf("coverage %+v", d.Coverage)
	}
	if !strings.Contains(str(t, d.Content[6]["howl_note"]), "data omitted: blob \"content item 6 (image)\" is not valid base64") {
		t.Errorf("undecodable data note: %s", d.Content[6]["howl_note"])
	}
	// The error stands where the spill would be, and the coverage counts it.
	spilled, _ := DecodeItem(d.Content[6]["spill"])
	if e, ok := spilled.(*ItemError); !ok || e.Code != CodeInvalidBase64 {
		t.Errorf("undecodable data: spill %s, want its ItemError", d.Content[6]["spill"])
	}
	if !strings.Contains(d.Coverage.Note, "1 of them could not be shown") {
		t.Errorf("the coverage does not count the item not shown: %s", d.Coverage.Note)
	}
	var embedded SpillResult
	if json.Unmarshal(d.Content[2]["resource"], &embedded); !embedded.Spilled || embedded.URI != "r" || !strings.HasSuffix(embedded.Path, ".pdf") {
		t.Errorf("embedded blob: %s", d.Content[2]["resource"])
	}
}

func TestToolResultEmbeddedTextResourceFollowsTextRules(t *testing.T) {
	text := strings.Repeat("line\n", 60000) // 300000 bytes
	out, _ := bound(t, nil, mustJSON(map[string]any{"content": []any{
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///log", "mimeType": "text/plain", "text": text}},
	}}))
	var tr TextResult
	if err := json.Unmarshal(decode(t, out).Content[0]["resource"], &tr); err != nil {
		t.Fatal(err)
	}
	if tr.URI != "file:///log" || tr.TotalBytes != len(text) || tr.NextOffset == nil || len(tr.Text) > MaxSliceBytes || !tr.Truncated {
		t.Errorf("embedded text: uri %q total %d next %v len %d", tr.URI, tr.TotalBytes, tr.NextOffset, len(tr.Text))
	}
}

func TestToolResultImageThatIsTextIsShownAsText(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg"><text>日本</text></svg>`
	out, _ := bound(t, NewSpillStore(t.TempDir()), `{"content":[{"type":"image","data":"`+b64([]byte(svg))+`","mimeType":"image/svg+xml"}]}`)
	item := decode(t, out).Content[0]
	if str(t, item["text"]) != svg || item["data"] != nil || !strings.Contains(str(t, item["howl_note"]), "decoded to valid UTF-8") {
		t.Errorf("item %v", item)
	}
}

func TestToolResultContentItemsShareTheCeiling(t *testing.T) {
	var content []any
	for i := range 10 {
		content = append(content, map[string]any{"type": "text", "text": strings.Repeat(fmt.Sprint(i), 100000)})
	}
	content = append(content, map[string]any{"type": "image", "data": b64(pngBytes), "mimeType": "image/png"})
	out, _ := bound(t, NewSpillStore(t.TempDir()), mustJSON(map[string]any{"content": content}))
	d := decode(t, out)
	if len(out) > MaxResponseBytes {
		t.Errorf("result is %d bytes, over %d", len(out), MaxResponseBytes)
	}
	last := d.Content[len(d.Content)-1]
	if !strings.HasPrefix(str(t, last["text"]), fmt.Sprintf("[howl] %d of 11 content items omitted: response ceiling 204800 bytes", 11-d.Coverage.ItemsShown)) {
		t.Errorf("no omission marker: %s", last["text"])
	}
	foundSpill := false
	for _, it := range d.Content {
		foundSpill = foundSpill || it["spill"] != nil
	}
	if !foundSpill {
		t.Error("large text pushed the image's spill description out")
	}
	if !strings.Contains(d.Coverage.Note, "content items omitted: response ceiling 204800 bytes") {
		t.Errorf("coverage note %q", d.Coverage.Note)
	}
}

func TestToolResultThatIsNotAnObjectIsATeachingError(t *testing.T) {
	for _, raw := range []string{`[1,2]`, `"text"`, `{"content":`, ``, `{"a":1} trailing`} {
		_, _, err := BoundToolResult(nil, "s", []byte(raw))
		var rerr *Error
		if !errors.As(err, &rerr) || rerr.Code != CodeInvalidResult || !strings.Contains(err.Error(), "a CallToolResult is an object") {
			t.Errorf("%q: got %v", raw, err)
		}
	}
}
