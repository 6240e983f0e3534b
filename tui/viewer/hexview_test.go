package viewer

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/tui/common"
)

func TestHexRowShowsOffsetBytesAndASCII(t *testing.T) {
	c := newHexCells(testTheme().Styles)
	row := c.renderRow(0x10, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), true, 16, 8)
	want := "00000010  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  │.PNG........IHDR│"
	if row != want {
		t.Fatalf("row\n%q\nwant\n%q", row, want)
	}
	if w := common.WidthOf(row); w != hexRowWidth(16, 8) {
		t.Errorf("row width %d, hexRowWidth says %d", w, hexRowWidth(16, 8))
	}
	short := c.renderRow(0, []byte("ab"), true, 8, 8)
	if !strings.HasSuffix(short, "│ab      │") || common.WidthOf(short) != hexRowWidth(8, 8) {
		t.Errorf("short row %q", short)
	}
	if missing := c.renderRow(0, nil, false, 8, 8); !strings.Contains(missing, "·· ··") {
		t.Errorf("a row not read yet should show placeholders: %q", missing)
	}
}

func TestHexSourceReadsOnlyTheBlocksAroundTheWindow(t *testing.T) {
	path := writeFile(t, 50<<20, []byte("head"))
	hs, err := openHex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.file.Close()
	if hs.rows(16) != (50<<20)/16 {
		t.Fatalf("rows %d", hs.rows(16))
	}
	mid := hs.rows(16) / 2
	idx := hs.want(mid, mid+40, 16)
	if len(idx) != 1 {
		t.Fatalf("40 rows of 16 bytes need one block, asked for %v", idx)
	}
	if again := hs.want(mid, mid+40, 16); len(again) != 0 {
		t.Fatalf("pending blocks asked for again: %v", again)
	}
	msg := readBlocksCmd(1, hs.file, hs.size, idx)().(common.Result).Msg.(hexBlocksMsg)
	hs.store(msg.blocks)
	if _, ok := hs.row(mid, 16); !ok {
		t.Fatal("the row is not loaded after its block was read")
	}
	if _, ok := hs.row(0, 16); ok {
		t.Fatal("a row far from the window was loaded")
	}
}

func TestHexBytesPerRowFitsTheWidth(t *testing.T) {
	for _, c := range []struct{ w, bpr int }{{78, 16}, {77, 8}, {45, 8}, {44, 4}} {
		if got := hexBytesPerRow(c.w); got != c.bpr {
			t.Errorf("width %d: %d bytes per row, want %d", c.w, got, c.bpr)
		}
	}
}
