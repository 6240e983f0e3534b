package viewer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // GIF spills are drawn too
	_ "image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxImagePixels bounds the images howl decodes to draw; a larger one is
// shown as metadata and hex only.
const MaxImagePixels = 40_000_000

// imageDoc is a decoded image and its renders, one per size.
type imageDoc struct {
	img    image.Image
	w, h   int
	format string
	path   string
	mode   common.ImageMode
	// repaired: a damaged optional chunk was dropped to decode it.
	repaired bool
	// renders holds the drawn lines of the latest [cols, rows] drawn (one
	// entry at most, see handleImage); pending the sizes being drawn.
	renders map[[2]int][]string
	pending map[[2]int]bool
}

// openImage decodes an image file, refusing one over MaxImagePixels.
func openImage(path string, mode common.ImageMode) (*imageDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the image: %w", err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("not a PNG, JPEG or GIF image howl can draw (%v)", err)
	}
	if cfg.Width*cfg.Height > MaxImagePixels {
		return nil, fmt.Errorf("the image is %d×%d, over MaxImagePixels (%d): open the file in an image viewer", cfg.Width, cfg.Height, MaxImagePixels)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot read the image: %w", err)
	}
	// An optional chunk with a bad checksum (server-everything's tiny
	// image has a damaged colour profile) fails Go's decoder whole
	// although the pixels are intact: drop it and draw the image.
	data, repaired := render.RepairPNG(data)
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the %s image does not decode (%v)", format, err)
	}
	return &imageDoc{img: img, w: cfg.Width, h: cfg.Height, format: strings.ToUpper(format), path: path, mode: mode,
		repaired: repaired, renders: map[[2]int][]string{}, pending: map[[2]int]bool{}}, nil
}

// imageSize reads an image's size from its header, without decoding it.
func imageSize(path string) (w, h int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	return cfg.Width, cfg.Height, err
}

// fitImage sizes a w x h pixel image to at most cols x rows cells, keeping
// its aspect ratio for cells twice as tall as wide (one cell is 1 x 2
// pixels in half-blocks). Small images grow up to 4 times.
func fitImage(w, h, cols, rows int) (int, int) {
	if w <= 0 || h <= 0 || cols <= 0 || rows <= 0 {
		return 0, 0
	}
	s := min(float64(cols)/float64(w), float64(2*rows)/float64(h), 4)
	c := max(int(float64(w)*s+0.5), 1)
	r := max(int(float64(h)*s/2+0.5), 1)
	return min(c, cols), min(r, rows)
}

// imageRenderedMsg carries an image drawn at one size.
type imageRenderedMsg struct {
	size  [2]int
	lines []string
}

// renderImageCmd draws an image at cols x rows off the update path. An
// image a graphics protocol cannot carry within MaxGraphicsPayloadBytes is
// drawn in half-blocks.
func renderImageCmd(docID common.RequestID, img image.Image, mode common.ImageMode, cols, rows int, th *theme.Theme) tea.Cmd {
	return common.Deliver(common.OwnerViewer, docID, func() tea.Msg {
		var lines []string
		switch mode {
		case common.ImageKitty:
			lines = kittyLines(img, uint32(docID)&0xFFFFFF|1, cols, rows)
		case common.ImageITerm2:
			lines = iterm2Lines(img, cols, rows)
		}
		if lines == nil {
			lines = renderImageCells(img, cols, rows, th)
		}
		return imageRenderedMsg{size: [2]int{cols, rows}, lines: lines}
	})
}

// renderImageCells draws an image in character cells: half-blocks (the
// upper half is one pixel, the lower half the next) in colour, or, when the
// theme has no colours (NO_COLOR), a luminance ramp of ASCII characters.
func renderImageCells(img image.Image, cols, rows int, th *theme.Theme) []string {
	if th.NoColor {
		return asciiImage(img, cols, rows)
	}
	b := img.Bounds()
	out := make([]string, rows)
	ascii := th.Profile == termenv.Ascii
	for y := 0; y < rows; y++ {
		var sb strings.Builder
		for x := 0; x < cols; x++ {
			top := sample(img, b, x, 2*y, cols, rows*2)
			bot := sample(img, b, x, 2*y+1, cols, rows*2)
			switch {
			case top.A < 128 && bot.A < 128:
				sb.WriteString(" ")
			case ascii:
				sb.WriteString("▀")
			case bot.A < 128:
				sb.WriteString(sgr(th.Profile, top, false) + "▀" + common.Reset)
			case top.A < 128:
				sb.WriteString(sgr(th.Profile, bot, false) + "▄" + common.Reset)
			default:
				sb.WriteString(sgr(th.Profile, top, false) + sgr(th.Profile, bot, true) + "▀" + common.Reset)
			}
		}
		out[y] = sb.String()
	}
	return out
}

// asciiRamp orders characters from light to heavy.
const asciiRamp = " .:-=+*#%@"

func asciiImage(img image.Image, cols, rows int) []string {
	b := img.Bounds()
	out := make([]string, rows)
	for y := 0; y < rows; y++ {
		var sb strings.Builder
		for x := 0; x < cols; x++ {
			c := sample(img, b, x, y, cols, rows)
			if c.A < 128 {
				sb.WriteByte(' ')
				continue
			}
			lum := (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000
			sb.WriteByte(asciiRamp[lum*(len(asciiRamp)-1)/255])
		}
		out[y] = sb.String()
	}
	return out
}

// sample averages the source pixels that fall in cell (x, y) of a cols x
// rows grid laid over bounds b. A cell wider or taller than sampleGrid
// pixels is read at sampleGrid evenly spread columns or rows, not whole:
// a 6000x6000 image drawn in a few thousand cells would otherwise cost 36
// million reads through img.At (1 to 2 s), and scaling it down for a
// graphics protocol as many. Colours are averaged premultiplied, so the
// colour of transparent pixels does not bleed into their neighbours.
func sample(img image.Image, b image.Rectangle, x, y, cols, rows int) color.NRGBA {
	x0 := b.Min.X + x*b.Dx()/cols
	x1 := min(max(b.Min.X+(x+1)*b.Dx()/cols, x0+1), b.Max.X)
	y0 := b.Min.Y + y*b.Dy()/rows
	y1 := min(max(b.Min.Y+(y+1)*b.Dy()/rows, y0+1), b.Max.Y)
	nx, ny := min(x1-x0, sampleGrid), min(y1-y0, sampleGrid)
	var r, g, bl, a, n uint64
	for j := 0; j < ny; j++ {
		py := y0 + (2*j+1)*(y1-y0)/(2*ny)
		for i := 0; i < nx; i++ {
			px := x0 + (2*i+1)*(x1-x0)/(2*nx)
			cr, cg, cb, ca := img.At(px, py).RGBA()
			r += uint64(cr)
			g += uint64(cg)
			bl += uint64(cb)
			a += uint64(ca)
			n++
		}
	}
	if n == 0 || a == 0 {
		return color.NRGBA{}
	}
	// Un-premultiply: the sums share n, so it cancels out of r/a.
	return color.NRGBA{uint8(r * 0xff / a), uint8(g * 0xff / a), uint8(bl * 0xff / a), uint8(a / n >> 8)}
}

// sampleGrid bounds the pixels sample reads per cell to sampleGrid x
// sampleGrid.
const sampleGrid = 8

// sgr is the colour sequence of c as foreground or background under p.
func sgr(p termenv.Profile, c color.NRGBA, bg bool) string {
	seq := p.Color(fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)).Sequence(bg)
	if seq == "" {
		return ""
	}
	return "\x1b[" + seq + "m"
}

// kittyDiacritics encode row and column numbers of kitty's Unicode
// placeholders (the first entries of kitty's rowcolumn-diacritics table;
// entry i encodes the number i).
var kittyDiacritics = []rune{
	0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A,
	0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365,
	0x0366, 0x0367, 0x0368, 0x0369, 0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F,
	0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597,
	0x0598, 0x0599, 0x059C, 0x059D, 0x059E, 0x059F, 0x05A0, 0x05A1, 0x05A8, 0x05A9,
	0x05AB, 0x05AC, 0x05AF, 0x05C4, 0x0610, 0x0611, 0x0612, 0x0613, 0x0614, 0x0615,
	0x0616, 0x0617, 0x0657, 0x0658, 0x0659, 0x065A, 0x065B, 0x065D, 0x065E, 0x06D6,
	0x06D7, 0x06D8, 0x06D9, 0x06DA, 0x06DB, 0x06DC, 0x06DF, 0x06E0, 0x06E1, 0x06E2,
	0x06E4, 0x06E7, 0x06E8, 0x06EB, 0x06EC, 0x0730, 0x0732, 0x0733, 0x0735, 0x0736,
	0x073A, 0x073D, 0x073F, 0x0740, 0x0741, 0x0743, 0x0745, 0x0747, 0x0749, 0x074A,
}

// kittyPlaceholder is the cell character of a kitty Unicode placeholder.
const kittyPlaceholder = '\U0010EEEE'

// kittyLines draws an image with kitty's graphics protocol in Unicode
// placeholder mode: the first line carries the image (transmitted as PNG,
// quietly) and a virtual placement of cols x rows cells; every line is
// ordinary text, placeholder cells whose foreground colour is the image id,
// so bubbletea's renderer moves and clips them like any other text. It is
// nil when the image does not fit MaxGraphicsPayloadBytes.
func kittyLines(img image.Image, id uint32, cols, rows int) []string {
	rows = min(rows, len(kittyDiacritics))
	cols = min(cols, len(kittyDiacritics))
	payload, _, ok := graphicsPayload(img, cols, rows)
	if !ok {
		return nil
	}
	var head strings.Builder
	const chunk = 4096
	for i := 0; i < len(payload); i += chunk {
		end := min(i+chunk, len(payload))
		more := 0
		if end < len(payload) {
			more = 1
		}
		if i == 0 {
			fmt.Fprintf(&head, "\x1b_Ga=t,f=100,t=d,i=%d,q=2,m=%d;%s\x1b\\", id, more, payload[i:end])
		} else {
			fmt.Fprintf(&head, "\x1b_Gm=%d;%s\x1b\\", more, payload[i:end])
		}
	}
	fmt.Fprintf(&head, "\x1b_Ga=p,U=1,i=%d,c=%d,r=%d,q=2\x1b\\", id, cols, rows)
	fg := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", (id>>16)&0xFF, (id>>8)&0xFF, id&0xFF)
	out := make([]string, rows)
	for r := 0; r < rows; r++ {
		var sb strings.Builder
		if r == 0 {
			sb.WriteString(head.String())
		}
		sb.WriteString(fg)
		for c := 0; c < cols; c++ {
			sb.WriteRune(kittyPlaceholder)
			if c == 0 {
				sb.WriteRune(kittyDiacritics[r])
				sb.WriteRune(kittyDiacritics[0])
			}
		}
		sb.WriteString("\x1b[39m")
		out[r] = sb.String()
	}
	return out
}

// iterm2Lines draws an image with iTerm2's inline-image protocol. Blank
// cells are laid out for the picture; the last line carries the image, sent
// with the cursor moved up to the picture's first row and restored after,
// so it is drawn after the cells it covers. Lines above it are written
// before it on every repaint; the root view makes the last line change
// whenever any line of the picture does (see iterm2Seal), so a repaint that
// cleared part of the picture also draws it again. It is nil when the
// image does not fit MaxGraphicsPayloadBytes.
func iterm2Lines(img image.Image, cols, rows int) []string {
	payload, size, ok := graphicsPayload(img, cols, rows)
	if !ok {
		return nil
	}
	blank := strings.Repeat(" ", cols)
	out := make([]string, rows)
	for i := range out {
		out[i] = blank
	}
	up := ""
	if rows > 1 {
		up = fmt.Sprintf("\x1b[%dA", rows-1)
	}
	out[rows-1] = "\x1b7" + up + fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1:%s\a", size, cols, rows, payload) + "\x1b8" + common.ITerm2SealMark + blank
	return out
}

// An image drawn with a graphics protocol is carried in its first or last
// line, so every frame pads, measures, boxes and compares that line: its
// payload is what each frame costs. The image is scaled down to what the
// cells can show before it is encoded (the full 40 M pixels of
// MaxImagePixels were once sent, a 6000x6000 photo as tens of MB a frame).
// Terminals do not tell howl their cell size; graphicsCellW x graphicsCellH
// pixels is generous (a cell is about 8 x 16 px, 16 x 32 on a HiDPI
// screen), so the terminal only ever scales the picture down.
const (
	graphicsCellW = 16
	graphicsCellH = 32
	// MaxGraphicsSide bounds the long side, in pixels, of an image sent
	// with a graphics protocol.
	MaxGraphicsSide = 2048
	// MaxGraphicsPayloadBytes bounds the base64 PNG of an image sent with a
	// graphics protocol. A larger one is sent at half the size, then at a
	// quarter, then drawn in half-blocks.
	MaxGraphicsPayloadBytes = 4 << 20
)

// graphicsPayload is img scaled down to cols x rows cells, as base64 PNG,
// and the PNG's size in bytes; ok is false when it does not fit
// MaxGraphicsPayloadBytes even at a quarter of that size (noise does not
// compress).
func graphicsPayload(img image.Image, cols, rows int) (payload string, size int, ok bool) {
	maxW := min(cols*graphicsCellW, MaxGraphicsSide)
	maxH := min(rows*graphicsCellH, MaxGraphicsSide)
	for try := 0; try < 3; try++ {
		img = downscale(img, maxW>>try, maxH>>try)
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return "", 0, false
		}
		if base64.StdEncoding.EncodedLen(buf.Len()) <= MaxGraphicsPayloadBytes {
			return base64.StdEncoding.EncodeToString(buf.Bytes()), buf.Len(), true
		}
	}
	return "", 0, false
}

// downscale is img fitted within maxW x maxH pixels, keeping its aspect
// ratio, each pixel the average of its box of the source (see sample); an
// image that already fits is returned as it is, never enlarged.
func downscale(img image.Image, maxW, maxH int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	maxW, maxH = max(maxW, 1), max(maxH, 1)
	if w <= maxW && h <= maxH {
		return img
	}
	s := min(float64(maxW)/float64(w), float64(maxH)/float64(h))
	dw, dh := max(int(float64(w)*s), 1), max(int(float64(h)*s), 1)
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			c := sample(img, b, x, y, dw, dh)
			i := dst.PixOffset(x, y)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = c.R, c.G, c.B, c.A
		}
	}
	return dst
}
