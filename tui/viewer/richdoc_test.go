package viewer

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// TestToolResultWhoseSpillFailedShowsWhyNotAnEmptyFile: an image the
// spill store could not save is drawn as not shown, with the reason, not
// as an attachment with no file behind it.
func TestToolResultWhoseSpillFailedShowsWhyNotAnEmptyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe"))
	raw := []byte(`{"content":[{"type":"image","data":"` + png + `","mimeType":"image/png"}]}`)
	out, _, err := render.BoundToolResult(render.NewSpillStore(filepath.Join(file, "spill")), "demo", raw)
	if err != nil {
		t.Fatal(err)
	}
	d := toolDoc(loadEnv{ctx: context.Background(), th: testTheme()}, Request{server: "demo"}, out)
	var lines []string
	for _, l := range d.lines {
		lines = append(lines, l.plain)
	}
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "[1] image · not shown") || !strings.Contains(text, "could not spill") || len(d.atts) != 0 {
		t.Errorf("the failed spill is drawn as:\n%s\n(%d attachments)", text, len(d.atts))
	}
	if !strings.Contains(d.note, "1 of them could not be shown") {
		t.Errorf("the coverage note does not say an item was not shown: %s", d.note)
	}
}

// spilledToolDoc is the document of raw, a tool result, bounded with a
// spill store of its own that the fake runtime holds.
func spilledToolDoc(t *testing.T, raw []byte) *document {
	t.Helper()
	store := render.NewSpillStore(filepath.Join(t.TempDir(), "spill"))
	out, _, err := render.BoundToolResult(store, "demo", raw)
	if err != nil {
		t.Fatal(err)
	}
	env := loadEnv{ctx: context.Background(), rt: spillRuntime{newFakeRuntime(), store}, th: testTheme(), displayPath: func(p string) string { return p }}
	return toolDoc(env, Request{server: "demo"}, out)
}

// spillRuntime is the fake runtime with a spill store of its own.
type spillRuntime struct {
	*fakeRuntime
	store *render.SpillStore
}

func (s spillRuntime) HoldsSpill(path string) bool { return s.store.Holds(path) }

// A spill pointer a server wrote into its own result (a path of its
// choosing, here a file that starts like a PNG) is not opened: it is an
// error in its place, with no attachment, whether it stands as an item's
// spill beside an image howl spilled (which stays an attachment) or as
// an embedded resource in a result howl passes through as it came.
func TestAToolResultsOwnSpillPointerIsNotOpened(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte("\x89PNG\r\n\x1a\nnot an image, a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	forged := `{"spilled":true,"path":` + strconv.Quote(secret) + `,"uri":"u","mime_type":"image/png","size_bytes":30,"sha256":"x"}`
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe"))
	store := render.NewSpillStore(filepath.Join(t.TempDir(), "spill"))
	env := loadEnv{ctx: context.Background(), rt: spillRuntime{newFakeRuntime(), store}, th: testTheme(), displayPath: func(p string) string { return p }}
	for _, c := range []struct {
		name, raw string
		atts      int
	}{
		{"an item's spill beside a spilled image", `{"content":[{"type":"image","data":"` + png + `","mimeType":"image/png"},{"type":"image","spill":` + forged + `}]}`, 1},
		{"an embedded resource", `{"content":[{"type":"resource","resource":` + forged + `}]}`, 0},
	} {
		out, _, err := render.BoundToolResult(store, "demo", []byte(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		d := toolDoc(env, Request{server: "demo"}, out)
		var lines []string
		for _, l := range d.lines {
			lines = append(lines, l.plain)
		}
		text := strings.Join(lines, "\n")
		if len(d.atts) != c.atts || c.atts > 0 && !store.Holds(d.atts[0].spill.Path) {
			t.Errorf("%s: %d attachments, want %d (the image howl spilled):\n%s", c.name, len(d.atts), c.atts, text)
		}
		if !strings.Contains(text, "howl's spill directory does not hold it") {
			t.Errorf("%s: nothing says the pointer is not howl's:\n%s", c.name, text)
		}
	}
}

// Every line of a tool result's document is sanitized in both its forms:
// the styled one drawn, and the plain one that a search draws in its
// place when a hit falls on the line. An embedded resource's own "error"
// member (passed through as the server sent it) was kept raw in plain,
// so searching for a word of it wrote an OSC 52 to the terminal.
func TestEveryLineOfAHostileToolResultIsSanitizedPlainAndStyled(t *testing.T) {
	const osc = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u009b31m"
	qb, _ := json.Marshal(osc)
	q := string(qb)
	raw := []byte(`{"content":[` +
		`{"type":"resource","resource":{"uri":` + q + `,"text":"hi","error":` + q + `}},` +
		`{"type":"text","text":` + q + `},` +
		`{"type":"resource_link","uri":` + q + `,"name":` + q + `,"mimeType":` + q + `},` +
		`{"type":` + q + `,"spill":{"error":` + q + `}}` +
		`],"structuredContent":{"k":` + q + `},"isError":true}`)
	d := spilledToolDoc(t, raw)
	if len(d.lines) < 10 {
		t.Fatalf("the document has %d lines; the test's items did not all render", len(d.lines))
	}
	for i, l := range d.lines {
		if strings.ContainsAny(l.plain, "\x1b\x07\u009b") {
			t.Errorf("line %d's plain text keeps a control: %q", i, l.plain)
		}
		if strings.Contains(l.styled, "\x1b]") || strings.Contains(l.styled, "\x1b[2J") || strings.ContainsAny(l.styled, "\x07\u009b") {
			t.Errorf("line %d's styled text keeps a server's escape: %q", i, l.styled)
		}
	}
}

// A text item of JSON nested thousands deep is shown at about its own
// size: indented, each of its 3,000 leaves would start 600 bytes in (and
// 120 KB of such JSON would indent to 1.2 GB, more than howl can hold).
func TestDeeplyNestedJSONTextIsNotIndentedIntoGigabytes(t *testing.T) {
	const depth = 300
	deep := strings.Repeat("[", depth) + strings.TrimSuffix(strings.Repeat("0,", 3000), ",") + strings.Repeat("]", depth)
	item, _ := json.Marshal(deep)
	out, _, err := render.BoundToolResult(render.NewSpillStore(filepath.Join(t.TempDir(), "spill")), "demo", []byte(`{"content":[{"type":"text","text":`+string(item)+`}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := toolDoc(loadEnv{ctx: context.Background(), th: testTheme()}, Request{server: "demo"}, out)
	total, compact := 0, false
	for _, l := range d.lines {
		total += len(l.plain)
		compact = compact || strings.Contains(l.plain, "0,0,0")
	}
	if total > 16*len(deep) || !compact {
		t.Errorf("%d bytes of JSON became %d bytes of lines (shown on one line: %v)", len(deep), total, compact)
	}
}

// imagesResult is a tool result of n copies of a blank w x h PNG (a few
// KB each on the wire however many pixels it has), bounded and spilled.
func imagesResult(t *testing.T, n, w, h int) (loadEnv, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	item := `{"type":"image","data":"` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `","mimeType":"image/png"}`
	raw := []byte(`{"content":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`)
	store := render.NewSpillStore(filepath.Join(t.TempDir(), "spill"))
	out, _, err := render.BoundToolResult(store, "demo", raw)
	if err != nil {
		t.Fatal(err)
	}
	return loadEnv{ctx: context.Background(), rt: spillRuntime{newFakeRuntime(), store}, th: testTheme(), displayPath: func(p string) string { return p }}, out
}

// pictures counts the inline pictures of a document (runs of lines drawn
// over blank plain text) and the notes saying why an image has none.
func pictures(d *document) (drawn int, notes []string) {
	inPicture := false
	for _, l := range d.lines {
		picture := strings.TrimSpace(l.plain) == "" && strings.TrimSpace(l.styled) != ""
		if picture && !inPicture {
			drawn++
		}
		inPicture = picture
		if strings.HasPrefix(l.plain, "no picture here") {
			notes = append(notes, l.plain)
		}
	}
	return drawn, notes
}

// Each image of a tool result was decoded to draw inline, so a result of
// hundreds of small-on-the-wire images took minutes to open. Only the
// first MaxInlineImages are drawn; the others say why they are not.
func TestAToolResultDrawsAtMostMaxInlineImagesPictures(t *testing.T) {
	env, out := imagesResult(t, 20, 1000, 1000)
	d := toolDoc(env, Request{server: "demo"}, out)
	drawn, notes := pictures(d)
	if drawn != MaxInlineImages || len(notes) != 20-MaxInlineImages || len(d.atts) != 20 {
		t.Fatalf("%d pictures drawn, %d notes, %d attachments; want %d, %d, 20", drawn, len(notes), len(d.atts), MaxInlineImages, 20-MaxInlineImages)
	}
	if !strings.Contains(notes[0], "MaxInlineImages") {
		t.Errorf("the note does not name the bound: %s", notes[0])
	}
}

// An image over MaxInlineImagePixels is not decoded to draw inline (its
// header says its size); the image viewer still opens it.
func TestAnImageOverMaxInlineImagePixelsIsNotDrawnInline(t *testing.T) {
	env, out := imagesResult(t, 20, 3000, 3000)
	d := toolDoc(env, Request{server: "demo"}, out)
	drawn, notes := pictures(d)
	if drawn != 0 || len(notes) != 20 {
		t.Fatalf("%d pictures drawn, %d notes; want none drawn and 20 notes", drawn, len(notes))
	}
	if !strings.Contains(notes[0], "3000×3000, over MaxInlineImagePixels (4000000)") {
		t.Errorf("the note does not say the size and the bound: %s", notes[0])
	}
}

// A load that is cancelled (esc, or another request) stops drawing
// pictures: its document is dropped unseen.
func TestACancelledLoadDrawsNoPictures(t *testing.T) {
	env, out := imagesResult(t, 3, 100, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env.ctx = ctx
	if drawn, _ := pictures(toolDoc(env, Request{server: "demo"}, out)); drawn != 0 {
		t.Errorf("%d pictures drawn for a cancelled load", drawn)
	}
}

// An image in a tool result is drawn inline, as wide as its picture: the
// lines were as wide as their plain text, which was empty, so a wrapped
// document (every rich one) cut the picture to nothing.
func TestAnInlinePictureIsAsWideAsItIsDrawn(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"content":[{"type":"image","data":"` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `","mimeType":"image/png"}]}`)
	d := spilledToolDoc(t, raw)
	pictures := 0
	for _, l := range d.lines {
		if strings.Contains(l.styled, "▀") {
			pictures++
			if l.width == 0 || l.width != common.WidthOf(l.styled) {
				t.Errorf("a picture line %d cells wide is drawn in %d", common.WidthOf(l.styled), l.width)
			}
		}
	}
	if pictures == 0 {
		t.Error("the image has no picture inline")
	}
}
