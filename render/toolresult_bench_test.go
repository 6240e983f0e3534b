package render

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/mcptest"
)

// bigToolResults are raw CallToolResults of about size bytes, each over
// the bounds in its own way.
func bigToolResults(size int) []struct{ name, raw string } {
	plain := strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", size/32)
	escaped := strings.Repeat(`line of log text\twith a tab\n`, size/30)
	item := `{"type":"text","text":"` + strings.Repeat("x", 64<<10) + `"}`
	items := strings.Repeat(item+",", size>>16-1) + item
	return []struct{ name, raw string }{
		{"text", `{"content":[{"type":"text","text":"` + plain + `"}],"isError":false}`},
		{"text-escaped", `{"content":[{"type":"text","text":"` + escaped + `"}]}`},
		{fmt.Sprintf("items-%d", size>>16), `{"content":[` + items + `]}`},
		{"structured", `{"content":[{"type":"text","text":"ok"}],"structuredContent":{"rows":["` + plain + `"]}}`},
	}
}

// BenchmarkBoundToolResult64MiB bounds a 64 MiB raw result (the answer as
// the transport hands it over); peak-MiB is the most heap live during the
// call above what was live before it, the input excluded.
func BenchmarkBoundToolResult64MiB(b *testing.B) {
	store := NewSpillStore(b.TempDir())
	for _, c := range bigToolResults(64 << 20) {
		raw := []byte(c.raw)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				h := mcptest.WatchMemory(math.MaxUint64, nil)
				out, bounded, err := BoundToolResult(store, "srv", raw)
				peak = max(peak, h.Held())
				if err != nil || !bounded || len(out) > 2*MaxResponseBytes {
					b.Fatalf("%.300s %v %v", out, bounded, err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}

// Bounding a long text reads it where it lies: what is allocated is the
// page shown (rendered at a few sizes while the layout fits it), not the
// text (a 64 MiB text cost 808 MB, twelve copies), with or without escapes.
func TestBoundingALongTextCopiesOnlyThePageShown(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	for _, c := range bigToolResults(16 << 20)[:2] {
		raw := []byte(c.raw)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, bounded, err := BoundToolResult(store, "srv", raw)
		runtime.ReadMemStats(&after)
		if err != nil || !bounded || !strings.Contains(string(out), "text sliced: showing bytes 0-") {
			t.Fatalf("%s: %.300s %v %v", c.name, out, bounded, err)
		}
		// About 4 MB here (8 MB with -race), whatever the text's size.
		if n := after.TotalAlloc - before.TotalAlloc; n > 64*MaxSliceBytes {
			t.Errorf("%s: bounding %d bytes allocated %d, over 64 pages (%d)", c.name, len(raw), n, 64*MaxSliceBytes)
		}
	}
}
