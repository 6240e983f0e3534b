package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateToolResults = flag.Bool("update-tool-results", false, "rewrite testdata/toolresults.golden.json from the current BoundToolResult")

// shapedToolResults are results of the shapes servers send, within the
// bounds and over them in each way BoundToolResult handles.
func shapedToolResults() []struct{ name, raw string } {
	long := strings.Repeat("log line é 日本 \"quoted\"\t\\ <tag> & more\n", 12000) // 460 KB of text, escapes and all
	img := b64(pngBytes)
	items := strings.Repeat(`{"type":"text","text":"`+strings.Repeat("y", 60_000)+`"},`, 5)
	return []struct{ name, raw string }{
		{"text", `{"content":[{"type":"text","text":"hello <b> & \u00e9\n"}],"isError":false}`},
		{"several-items", `{ "content" : [ {"type":"text","text":"a"}, {"type":"resource_link","uri":"file:///x","name":"x"},
			{"type":"resource","resource":{"uri":"u","text":"embedded"}}, {"type":"widget","x":[1,2]} ], "_meta": {"k":"v"} }`},
		{"image", `{"content":[{"type":"text","text":"chart:"},{"type":"image","data":"` + img + `","mimeType":"image/png","annotations":{"audience":["user"]}}],"isError":false}`},
		{"audio-that-is-text", `{"content":[{"type":"audio","data":"` + b64([]byte("plain words, not audio")) + `","mimeType":"audio/wav"}]}`},
		{"embedded-blob", `{"content":[{"type":"resource","resource":{"uri":"file:///p.png","mimeType":"image/png","blob":"` + img + `"}}]}`},
		{"structured", `{"content":[{"type":"image","data":"` + img + `","mimeType":"image/png"}],"structuredContent":{"b":1,"a":[1,2,"` + strings.Repeat("z", 300) + `"]}}`},
		{"structured-over", `{"content":[{"type":"text","text":"ok"}],"structuredContent":{"rows":[` + strings.Repeat(`{"k": "v" , "n" : 1},`, 20000) + `null]}}`},
		{"text-over", `{"content":[{"type":"text","text":` + mustJSON(long) + `}],"isError":true}`},
		{"text-over-surrogates", `{"content":[{"type":"text","text":"` + strings.Repeat(`\ud83d\ude00 \ud800 x\udc00`, 20000) + "\xff\"}]}"},
		{"items-share-the-ceiling", `{"content":[` + items + `{"type":"text","text":"last"}]}`},
		{"meta-clamped", `{"content":[{"type":"text","text":"` + strings.Repeat("t", MaxResponseBytes) + `","_meta":{"note":"` + strings.Repeat("m", 5000) + `"}}],"_meta":{"` + strings.Repeat("k", 5000) + `":"v"},"extra":"` + strings.Repeat("e", 5000) + `"}`},
		{"case-and-duplicates", `{"content":[{"Type":"image","DATA":null,"data":"` + img + `"},{"type":"text","type":"text","text":"x","text":"y"}],"content":[{"type":"image","data":null,"Blob":"` + img + `"}]}`},
		{"text-with-base64", `{"content":[{"type":"text","text":"t","data":"` + img + `"}]}`},
		{"content-not-array", `{"content":{"type":"text","text":"` + strings.Repeat("c", MaxResponseBytes) + `"}}`},
		{"content-null", `{"content":null,"other":"` + strings.Repeat("o", MaxResponseBytes) + `"}`},
		{"items-not-objects", `{"content":[1,"x",null,[],{"type":"text","text":"` + strings.Repeat("w", MaxResponseBytes) + `"}]}`},
		{"howl-coverage-sent", `{"howl_coverage":{"note":"mine"},"content":[{"type":"image","data":"` + img + `"}]}`},
	}
}

// goldenResult is a result as the golden file keeps it: its hash, and its
// start to show what changed.
type goldenResult struct {
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	Head   string `json:"head"`
}

func goldenOf(out []byte) goldenResult {
	sum := sha256.Sum256(out)
	return goldenResult{hex.EncodeToString(sum[:]), len(out), string(out[:min(len(out), 1500)])}
}

// spillPaths are the spill files' paths in a result once its spill
// directory reads $SPILL: the rest of each, JSON-escaped.
var spillPaths = regexp.MustCompile(`\$SPILL(\\\\[^"\\;]+)+`)

// spillPathsAsSlashes is out with the spill directory root read $SPILL
// and the separators after it read "/", as the golden file (written on
// Linux) has them: on Windows a path is C:\...\srv\<hash>.png, its
// backslashes escaped in the JSON.
func spillPathsAsSlashes(out []byte, root string) []byte {
	esc, _ := json.Marshal(root)
	out = bytes.ReplaceAll(out, esc[1:len(esc)-1], []byte("$SPILL"))
	return spillPaths.ReplaceAllFunc(out, func(m []byte) []byte { return bytes.ReplaceAll(m, []byte(`\\`), []byte("/")) })
}

// TestToolResultsReadAsBefore: BoundToolResult gives, byte for byte, what
// it gave before it read results without encoding/json's decoders
// (testdata/toolresults.golden.json, written by that code).
func TestToolResultsReadAsBefore(t *testing.T) {
	root := t.TempDir()
	store := NewSpillStore(root)
	got := map[string]goldenResult{}
	for _, c := range shapedToolResults() {
		out, _, err := BoundToolResult(store, "srv", []byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got[c.name] = goldenOf(spillPathsAsSlashes(out, root))
	}
	golden := filepath.Join("testdata", "toolresults.golden.json")
	if *updateToolResults {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]goldenResult
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Errorf("%d results, the golden file has %d", len(got), len(want))
	}
	for name, w := range want {
		if g := got[name]; g != w {
			t.Errorf("%s: the result changed (%d bytes, was %d):\n got  %.600s\n want %.600s", name, g.Bytes, w.Bytes, g.Head, w.Head)
		}
	}
}
