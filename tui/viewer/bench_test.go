package viewer

import (
	"math/rand"
	"testing"

	"github.com/howl-mcp/howl/render"
)

// BenchmarkViewHex50MiB draws the viewer's frame of the hex view of a 50 MiB file,
// scrolled to its middle.
func BenchmarkViewHex50MiB(b *testing.B) {
	head := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(head)
	path := writeFile(b, 50<<20, head)
	h := newBench(b, 80, 38)
	sp := &render.SpillResult{Spilled: true, Path: path, MimeType: "application/octet-stream", SizeBytes: 50 << 20, SHA256: "n/a"}
	h.run(h.v.Request(Request{kind: reqSpill, spill: sp}, "opening"))
	h.run(h.v.Scroll(int(h.v.doc.hex.rows(16) / 2)))
	if _, ok := h.v.doc.hex.row(int64(h.v.doc.top), hexBytesPerRow(h.v.innerW())); !ok {
		b.Fatal("the rows on screen are not loaded")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.v.Render(0)
	}
}
