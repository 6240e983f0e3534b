package demo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// raw returns the bytes of one resource contents, decoding a blob.
func raw(t testing.TB, c mcp.ResourceContents) (data []byte, mime string, blob bool) {
	t.Helper()
	switch c := c.(type) {
	case mcp.TextResourceContents:
		return []byte(c.Text), c.MIMEType, false
	case mcp.BlobResourceContents:
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			t.Fatalf("%s: blob is not base64: %v", c.URI, err)
		}
		return b, c.MIMEType, true
	}
	t.Fatalf("contents of type %T", c)
	return nil, "", false
}

func TestEveryListedResourceReadsWithItsListedTypeAndSize(t *testing.T) {
	p := connectDemo(t)
	list, err := p.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if r.URI == BrokenURI {
			continue
		}
		data, mime, _ := raw(t, readResource(t, p, r.URI)[0])
		if mime != r.MIMEType {
			t.Errorf("%s: read as %q, listed as %q", r.URI, mime, r.MIMEType)
		}
		if r.Size == nil {
			t.Errorf("%s: no size listed", r.URI)
		} else if int(*r.Size) != len(data) {
			t.Errorf("%s: listed size %d, read %d bytes", r.URI, *r.Size, len(data))
		}
	}
}

func TestBrokenResourceFailsWithATeachingError(t *testing.T) {
	p := connectDemo(t)
	req := mcp.ReadResourceRequest{}
	req.Params.URI = BrokenURI
	_, err := p.ReadResource(ctxT(t), req)
	if err == nil || !strings.Contains(err.Error(), MarkdownURI) {
		t.Errorf("reading %s: err = %v, want an error that points at %s", BrokenURI, err, MarkdownURI)
	}
}

func TestAppLogIs2MiBOfRealisticLinesIdenticalAcrossServers(t *testing.T) {
	first, second := connectDemo(t), connectDemo(t)
	a, mime, blob := raw(t, readResource(t, first, LogURI)[0])
	b, _, _ := raw(t, readResource(t, second, LogURI)[0])
	if mime != "text/plain" || blob {
		t.Errorf("log served as %q (blob %v), want text/plain text", mime, blob)
	}
	if len(a) != LogSize {
		t.Errorf("log is %d bytes, want exactly %d", len(a), LogSize)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("two servers served different logs: generation is not deterministic")
	}
	for _, level := range []string{" INFO ", " DEBUG ", " WARN ", " ERROR "} {
		if n := bytes.Count(a, []byte(level)); n < 100 {
			t.Errorf("log has %d %q lines, want at least 100", n, level)
		}
	}
	if !utf8.Valid(a) || !bytes.HasSuffix(a, []byte("\n")) {
		t.Errorf("log is not newline-terminated UTF-8 text")
	}
}

func TestPNGResourceDecodesToAColourful64x64Image(t *testing.T) {
	p := connectDemo(t)
	data, mime, blob := raw(t, readResource(t, p, PNGURI)[0])
	if mime != "image/png" || !blob {
		t.Fatalf("PNG served as %q (blob %v), want an image/png blob", mime, blob)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Errorf("image is %dx%d, want 64x64", b.Dx(), b.Dy())
	}
	colours := map[color.RGBA]bool{}
	for y := 0; y < 64; y += 4 {
		for x := 0; x < 64; x += 4 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0}] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("image has %d distinct colours in a 16x16 sample, want a colourful one", len(colours))
	}
}

func TestMislabeledResourceIsABlobOfValidUTF8Text(t *testing.T) {
	p := connectDemo(t)
	data, mime, blob := raw(t, readResource(t, p, MislabeledURI)[0])
	if mime != "application/octet-stream" || !blob {
		t.Errorf("served as %q (blob %v), want an application/octet-stream blob", mime, blob)
	}
	if !utf8.Valid(data) || !strings.HasPrefix(string(data), "Release notes") {
		t.Errorf("decoded blob is not the UTF-8 release notes: %.40q", data)
	}
	bin, _, blob := raw(t, readResource(t, p, BinaryURI)[0])
	if !blob || utf8.Valid(bin) || len(bin) != BinarySize {
		t.Errorf("%s: blob %v, %d bytes, valid UTF-8 %v; want %d bytes of binary", BinaryURI, blob, len(bin), utf8.Valid(bin), BinarySize)
	}
}

func TestTextResourcesCarryTheirFormats(t *testing.T) {
	p := connectDemo(t)
	md, _, _ := raw(t, readResource(t, p, MarkdownURI)[0])
	for _, want := range []string{"\n## ", "|---", "```go\n"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("Markdown guide lacks %q (headings, a table and a Go code block)", want)
		}
	}
	js, _, _ := raw(t, readResource(t, p, JSONURI)[0])
	if !json.Valid(js) {
		t.Errorf("%s is not valid JSON", JSONURI)
	}
	esc, _, _ := raw(t, readResource(t, p, EscapesURI)[0])
	if !bytes.Contains(esc, []byte("\x1b[")) || !bytes.Contains(esc, []byte("\x1b]52;")) {
		t.Errorf("%s lacks the CSI and OSC 52 sequences it promises", EscapesURI)
	}
	uni, _, _ := raw(t, readResource(t, p, UnicodeURI)[0])
	if !utf8.Valid(uni) || utf8.RuneCount(uni) == len(uni) {
		t.Errorf("%s is not multi-byte UTF-8", UnicodeURI)
	}
	untyped := readResource(t, p, UntypedURI)[0].(mcp.TextResourceContents)
	if untyped.MIMEType != "" {
		t.Errorf("%s declares MIME type %q, want none", UntypedURI, untyped.MIMEType)
	}
}

func TestTemplatesServeLogsByDateAndUsersById(t *testing.T) {
	p := connectDemo(t)
	day, mime, _ := raw(t, readResource(t, p, "demo://logs/2025-06-03")[0])
	other, _, _ := raw(t, readResource(t, p, "demo://logs/2025-06-04")[0])
	again, _, _ := raw(t, readResource(t, p, "demo://logs/2025-06-03")[0])
	if mime != "text/plain" || !bytes.HasPrefix(day, []byte("2025-06-03T")) || !bytes.Equal(day, again) || bytes.Equal(day, other) {
		t.Errorf("daily logs: want deterministic text/plain lines dated 2025-06-03 that differ per day; got %q %.40q", mime, day)
	}
	user, mime, _ := raw(t, readResource(t, p, "demo://users/ada")[0])
	var u struct{ Name string }
	if err := json.Unmarshal(user, &u); err != nil || mime != "application/json" || u.Name != "Ada Lovelace" {
		t.Errorf("demo://users/ada: mime %q, %s (%v); want Ada Lovelace's JSON profile", mime, user, err)
	}
	for uri, hint := range map[string]string{"demo://logs/yesterday": "YYYY-MM-DD", "demo://users/nobody": "ada"} {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		if _, err := p.ReadResource(ctxT(t), req); err == nil || !strings.Contains(err.Error(), hint) {
			t.Errorf("reading %s: err = %v, want an error that mentions %q", uri, err, hint)
		}
	}
}
