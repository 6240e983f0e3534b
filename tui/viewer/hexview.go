package viewer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// The hex view reads a spill file in blocks, only around the rows on
// screen, so a 50 MiB file opens at once and scrolling stays cheap.
const (
	hexBlockSize = 4096
	// hexMaxBlocks bounds the block cache (1 MiB).
	hexMaxBlocks = 256
)

// hexSource is an open spill file and the blocks of it read so far. The
// viewer owns it and closes it (in a command) when the document goes.
type hexSource struct {
	path    string
	size    int64
	file    *os.File
	blocks  map[int64][]byte
	order   []int64
	pending map[int64]bool
	err     string
}

// openHex opens a file for the hex view. Only its size is read here.
func openHex(path string) (*hexSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the spill file for the hex view: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot stat the spill file %s: %w", path, err)
	}
	return &hexSource{path: path, size: fi.Size(), file: f, blocks: map[int64][]byte{}, pending: map[int64]bool{}}, nil
}

// hexBlocksMsg carries blocks read for one document.
type hexBlocksMsg struct {
	blocks map[int64][]byte
	err    error
}

// readBlocksCmd reads the given blocks with ReadAt, off the update path.
func readBlocksCmd(docID common.RequestID, f io.ReaderAt, size int64, idx []int64) tea.Cmd {
	return common.Deliver(common.OwnerViewer, docID, func() tea.Msg {
		msg := hexBlocksMsg{blocks: map[int64][]byte{}}
		for _, i := range idx {
			off := i * hexBlockSize
			n := min(int64(hexBlockSize), size-off)
			if n <= 0 {
				continue
			}
			buf := make([]byte, n)
			got, err := f.ReadAt(buf, off)
			if err != nil && !errors.Is(err, io.EOF) {
				msg.err = fmt.Errorf("reading the spill file at offset %d: %w", off, err)
				break
			}
			msg.blocks[i] = buf[:got]
		}
		return msg
	})
}

// closeFileCmd closes a file the viewer no longer shows.
func closeFileCmd(f io.Closer) tea.Cmd {
	if f == nil {
		return nil
	}
	return func() tea.Msg {
		_ = f.Close()
		return nil
	}
}

// hexRowWidth is the width of a row of bpr bytes with an offset of
// digits: offset, two spaces, the bytes (a gap every 8), two spaces, and
// the ASCII column between bars.
func hexRowWidth(bpr, digits int) int {
	return digits + 2 + bpr*3 - 1 + max(bpr/8-1, 0) + 2 + bpr + 2
}

// hexBytesPerRow is how many bytes a row shows at width w: 16, 8 or 4.
func hexBytesPerRow(w int) int {
	for _, bpr := range []int{16, 8} {
		if hexRowWidth(bpr, 8) <= w {
			return bpr
		}
	}
	return 4
}

// rows is how many rows the file takes at bpr bytes per row.
func (h *hexSource) rows(bpr int) int64 {
	return (h.size + int64(bpr) - 1) / int64(bpr)
}

// want returns the blocks covering rows [from, to) that are neither
// loaded nor being read, and marks them pending.
func (h *hexSource) want(from, to int64, bpr int) []int64 {
	from = max(from, 0)
	to = min(to, h.rows(bpr))
	if to <= from {
		return nil
	}
	first := from * int64(bpr) / hexBlockSize
	last := (to*int64(bpr) - 1) / hexBlockSize
	var out []int64
	for b := first; b <= last; b++ {
		if _, ok := h.blocks[b]; ok || h.pending[b] {
			continue
		}
		h.pending[b] = true
		out = append(out, b)
	}
	return out
}

// store keeps read blocks, evicting the oldest past hexMaxBlocks.
func (h *hexSource) store(blocks map[int64][]byte) {
	for i, b := range blocks {
		delete(h.pending, i)
		if _, ok := h.blocks[i]; !ok {
			h.order = append(h.order, i)
		}
		h.blocks[i] = b
	}
	for len(h.order) > hexMaxBlocks {
		delete(h.blocks, h.order[0])
		h.order = h.order[1:]
	}
}

// row returns the bytes of row r, and false when they are not loaded yet.
func (h *hexSource) row(r int64, bpr int) ([]byte, bool) {
	off := r * int64(bpr)
	if off >= h.size {
		return nil, true
	}
	n := min(int64(bpr), h.size-off)
	blk, ok := h.blocks[off/hexBlockSize]
	if !ok {
		return nil, false
	}
	start := off % hexBlockSize
	if start+n > int64(len(blk)) {
		return nil, false
	}
	return blk[start : start+n], true
}

// hexCells are the styled hex and ASCII cells of every byte value, built
// once per theme so a row is a concatenation, not 32 style renders.
type hexCells struct {
	hex, ascii [256]string
	offset     lipgloss.Style
	sep        string
	missing    string
}

func newHexCells(st *theme.Styles) *hexCells {
	c := &hexCells{offset: st.Hex.Offset, sep: st.Hex.Separator.Render("│"), missing: st.Hex.Dot.Render("··")}
	for b := 0; b < 256; b++ {
		style, ch := st.Hex.High, "."
		switch {
		case b == 0:
			style = st.Hex.Zero
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			style = st.Hex.Space
		case b < 0x20 || b == 0x7f:
			style = st.Hex.Control
		case b < 0x7f:
			style, ch = st.Hex.Printable, string(rune(b))
		}
		c.hex[b] = style.Render(fmt.Sprintf("%02x", b))
		if ch == "." {
			c.ascii[b] = st.Hex.Dot.Render(".")
		} else {
			c.ascii[b] = style.Render(ch)
		}
	}
	return c
}

// renderRow draws one row: offset, the bytes in hex (a gap every 8), and
// the ASCII column. digits is the offset's width.
func (c *hexCells) renderRow(off int64, data []byte, loaded bool, bpr, digits int) string {
	var b strings.Builder
	b.WriteString(c.offset.Render(fmt.Sprintf("%0*x", digits, off)))
	b.WriteString("  ")
	for i := 0; i < bpr; i++ {
		if i > 0 {
			b.WriteByte(' ')
			if i%8 == 0 {
				b.WriteByte(' ')
			}
		}
		switch {
		case !loaded:
			b.WriteString(c.missing)
		case i < len(data):
			b.WriteString(c.hex[data[i]])
		default:
			b.WriteString("  ")
		}
	}
	b.WriteString("  ")
	b.WriteString(c.sep)
	for i := 0; i < bpr; i++ {
		switch {
		case !loaded:
			b.WriteByte(' ')
		case i < len(data):
			b.WriteString(c.ascii[data[i]])
		default:
			b.WriteByte(' ')
		}
	}
	b.WriteString(c.sep)
	return b.String()
}

// offsetDigits is how many hex digits the largest offset of size needs
// (at least 8).
func offsetDigits(size int64) int {
	d := 8
	for v := size >> 32; v > 0; v >>= 4 {
		d++
	}
	return d
}
