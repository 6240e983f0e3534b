package viewer

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// twoTone is a w x h image, red on top, blue below.
func twoTone(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{255, 0, 0, 255}
			if y >= h/2 {
				c = color.NRGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestHalfBlocksCarryTheTopPixelInForegroundAndTheBottomInBackground(t *testing.T) {
	th := theme.New(theme.Options{Dark: true, Profile: termenv.TrueColor})
	lines := renderImageCells(twoTone(2, 4), 2, 2, th)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	red, blue := "38;2;255;0;0", "48;2;0;0;255"
	if !strings.Contains(lines[0], red) || strings.Contains(lines[0], "0;0;255") {
		t.Errorf("top row should be red on red: %q", lines[0])
	}
	if !strings.Contains(lines[1], "38;2;0;0;255") || !strings.Contains(lines[1], blue) {
		t.Errorf("bottom row should be blue: %q", lines[1])
	}
	if n := strings.Count(lines[0], "▀"); n != 2 {
		t.Errorf("%d half-blocks in a 2-cell row", n)
	}
}

func TestNoColorImagesUseAnASCIIRamp(t *testing.T) {
	th := theme.New(theme.Options{NoColor: true, Profile: termenv.ANSI})
	lines := renderImageCells(twoTone(4, 4), 4, 2, th)
	for _, l := range lines {
		if strings.Contains(l, "\x1b[") || strings.Contains(l, "▀") {
			t.Fatalf("NO_COLOR image drew colour or blocks: %q", l)
		}
	}
}

func TestFitImageKeepsTheAspectRatio(t *testing.T) {
	cases := []struct{ w, h, cols, rows, wc, wr int }{
		{64, 64, 78, 31, 62, 31},     // height-bound: 31 rows of 2 px
		{64, 64, 200, 100, 200, 100}, // grows up to 4x
		{1000, 100, 80, 30, 80, 4},
		{10, 10, 0, 10, 0, 0},
	}
	for _, c := range cases {
		if gc, gr := fitImage(c.w, c.h, c.cols, c.rows); gc != c.wc || gr != c.wr {
			t.Errorf("fitImage(%d,%d,%d,%d) = %d,%d; want %d,%d", c.w, c.h, c.cols, c.rows, gc, gr, c.wc, c.wr)
		}
	}
}

func TestKittyLinesTransmitOnceAndPlaceholdEveryCell(t *testing.T) {
	lines := kittyLines(twoTone(4, 4), 0x0A0B0C, 3, 2)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	if !strings.HasPrefix(lines[0], "\x1b_Ga=t,f=100,t=d,i=658188,q=2,m=0;") || !strings.Contains(lines[0], "\x1b_Ga=p,U=1,i=658188,c=3,r=2,q=2\x1b\\") {
		t.Errorf("first line lacks the transmission and placement: %q", lines[0][:80])
	}
	if strings.Contains(lines[1], "\x1b_G") {
		t.Error("the image is transmitted on more than one line")
	}
	for i, l := range lines {
		if n := strings.Count(l, string(kittyPlaceholder)); n != 3 {
			t.Errorf("line %d has %d placeholders", i, n)
		}
		if !strings.Contains(l, "\x1b[38;2;10;11;12m") {
			t.Errorf("line %d does not carry the image id as its colour", i)
		}
		if !strings.Contains(l, string(kittyPlaceholder)+string(kittyDiacritics[i])+string(kittyDiacritics[0])) {
			t.Errorf("line %d's first cell does not encode row %d, column 0", i, i)
		}
	}
}

func TestITerm2LinesDrawFromTheLastRowAndSealRepaints(t *testing.T) {
	lines := iterm2Lines(twoTone(4, 4), 3, 2)
	if len(lines) != 2 || lines[0] != "   " || !strings.HasPrefix(lines[1], "\x1b7\x1b[1A\x1b]1337;File=inline=1;") {
		t.Fatalf("lines %q", lines)
	}
	frame := []string{"a", "b" + lines[0], "c" + lines[1]}
	sealed := common.ITerm2Seal(append([]string(nil), frame...))
	frame2 := []string{"a", "B" + lines[0], "c" + lines[1]}
	sealed2 := common.ITerm2Seal(append([]string(nil), frame2...))
	if sealed[2] == sealed2[2] {
		t.Error("the picture's line did not change when a line it covers did")
	}
}

func TestDetectImageMode(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		env  func(string) string
		want common.ImageMode
	}{
		{env(), common.ImageHalfBlocks},
		{env("TERM", "xterm-kitty"), common.ImageKitty},
		{env("TERM", "xterm-kitty", "TMUX", "/tmp/tmux"), common.ImageHalfBlocks},
		{env("TERM_PROGRAM", "iTerm.app"), common.ImageITerm2},
		{env("TERM_PROGRAM", "iTerm.app", "HOWL_IMAGES", "halfblocks"), common.ImageHalfBlocks},
		{env("HOWL_IMAGES", "kitty", "TMUX", "x"), common.ImageKitty},
	}
	for i, c := range cases {
		if got := common.DetectImageMode(c.env); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}

func TestOpenImageRefusesNonImagesWithAReason(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.png")
	os.WriteFile(bad, []byte("not a png"), 0o600)
	if _, err := openImage(bad, common.ImageHalfBlocks); err == nil || !strings.Contains(err.Error(), "not a PNG, JPEG or GIF") {
		t.Fatalf("err %v", err)
	}
	var buf bytes.Buffer
	png.Encode(&buf, twoTone(8, 6))
	good := filepath.Join(dir, "y.png")
	os.WriteFile(good, buf.Bytes(), 0o600)
	img, err := openImage(good, common.ImageHalfBlocks)
	if err != nil || img.w != 8 || img.h != 6 || img.format != "PNG" {
		t.Fatalf("img %+v, err %v", img, err)
	}
}

// server-everything's get-tiny-image is a PNG whose optional colour
// profile (iCCP) has a wrong checksum, which Go's decoder rejects whole
// ("png: invalid format: invalid checksum"). The viewer draws it anyway,
// and says the damaged chunk was skipped.
func TestServerEverythingsTinyImageIsDrawn(t *testing.T) {
	path := filepath.Join("testdata", "everything-tiny-image.png")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err == nil || !strings.Contains(err.Error(), "invalid checksum") {
		t.Fatalf("the fixture must be the PNG Go's decoder rejects, got %v", err)
	}
	img, err := openImage(path, common.ImageHalfBlocks)
	if err != nil {
		t.Fatalf("the tiny image must draw: %v", err)
	}
	if img.w != 20 || img.h != 20 || !img.repaired {
		t.Fatalf("the image is %dx%d (repaired %v), want 20x20 with its damaged chunk dropped", img.w, img.h, img.repaired)
	}
	if lines := renderImageCells(img.img, 20, 10, testTheme()); len(lines) != 10 || strings.TrimSpace(strings.Join(lines, "")) == "" {
		t.Fatalf("nothing drawn: %q", lines)
	}
}

// noise is a w x h opaque image of random pixels: PNG cannot compress it,
// so its encoded size is about 3 bytes a pixel.
func noise(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rand.New(rand.NewSource(1)).Read(img.Pix)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

// A graphics protocol carries the image in a line of every frame, so it
// is scaled to the cells it fills before it is encoded: a 2000x2000 image
// in 20x10 cells was sent whole, 16 MB of base64 a frame.
func TestGraphicsProtocolsSendTheImageScaledToItsCells(t *testing.T) {
	img := noise(2000, 2000)
	for name, lines := range map[string][]string{
		"kitty":  kittyLines(img, 1, 20, 10),
		"iTerm2": iterm2Lines(img, 20, 10),
	} {
		if len(lines) != 10 {
			t.Fatalf("%s: %d lines, want 10", name, len(lines))
		}
		if n := len(strings.Join(lines, "")); n > 1<<20 {
			t.Errorf("%s: the picture's lines carry %d bytes, want under 1 MiB", name, n)
		}
	}
	_, payload, _ := strings.Cut(iterm2Lines(img, 20, 10)[9], "preserveAspectRatio=1:")
	payload, _, _ = strings.Cut(payload, "\a")
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("the iTerm2 payload is not base64: %v", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width > 20*graphicsCellW || cfg.Height > 10*graphicsCellH {
		t.Errorf("the image sent is %dx%d (%v), want at most %dx%d", cfg.Width, cfg.Height, err, 20*graphicsCellW, 10*graphicsCellH)
	}
}

// A render can be megabytes of image: the viewer keeps the one for the
// pane's size, not one for every size it was drawn at.
func TestAnImageKeepsOnlyTheRenderOfTheLatestSize(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, twoTone(64, 64)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := newBench(t, 80, 30)
	b.v.com.Images = common.ImageKitty
	b.run(b.v.Request(Request{kind: reqSpill, spill: &render.SpillResult{Spilled: true, Path: path, MimeType: "image/png", SizeBytes: int64(buf.Len())}}, "opening"))
	b.run(b.v.SetSize(60, 20))
	d := b.v.doc
	if d == nil || d.img == nil {
		t.Fatal("the image did not open")
	}
	if len(d.img.renders) != 1 {
		t.Errorf("%d renders kept after drawing at two sizes, want 1", len(d.img.renders))
	}
	if !strings.Contains(b.view(), string(kittyPlaceholder)) {
		t.Errorf("the image is not drawn at the new size:\n%s", b.view())
	}
}
