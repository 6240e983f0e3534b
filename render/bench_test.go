package render

import (
	"crypto/rand"
	"fmt"
	mrand "math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// syntheticLog returns about size bytes of log lines, 1 in 25 an ERROR.
func syntheticLog(size int) string {
	rng := mrand.New(mrand.NewSource(7))
	levels := []string{"INFO ", "DEBUG", "WARN ", "INFO ", "INFO "}
	var b strings.Builder
	b.Grow(size + 200)
	for i := 0; b.Len() < size; i++ {
		level := levels[rng.Intn(len(levels))]
		msg := fmt.Sprintf("request id=%d path=/api/v1/items/%d status=200 duration=%dms", rng.Intn(1e6), rng.Intn(1000), rng.Intn(900))
		if rng.Intn(25) == 0 {
			level, msg = "ERROR", fmt.Sprintf("upstream timeout after %dms talking to db-%d; retrying", rng.Intn(5000), rng.Intn(9))
		}
		fmt.Fprintf(&b, "2026-08-24T12:%02d:%02d.%03dZ %s %s\n", i/3600%60, i/60%60, i%1000, level, msg)
	}
	return b.String()
}

func BenchmarkPatternFilter2MiBLog(b *testing.B) {
	log := syntheticLog(2 << 20)
	for _, pattern := range []string{"ERROR", `ERROR .*timeout`, `(?i)error`, `duration=8\d\dms`, `ERROR|WARN`, `\d{4}ms`} {
		b.Run(pattern, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PageText("u", "", log, PageOptions{Pattern: pattern}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPageTextWithoutPattern(b *testing.B) {
	for _, size := range []int{1 << 20, 100 << 20} {
		line := "2026-08-24 INFO 日本語 request handled 👍\n"
		text := strings.Repeat(line, size/len(line)+1)[:size]
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				PageText("u", "", text, PageOptions{Offset: size / 2})
			}
		})
	}
}

// peakHeap runs fn while sampling the heap, and returns fn's duration and
// the largest HeapAlloc seen above the heap in use before fn started.
func peakHeap(fn func()) (time.Duration, uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	start := time.Now()
	fn()
	elapsed := time.Since(start)
	close(done)
	wg.Wait()
	return elapsed, peak - base
}

func randomBase64(b testing.TB, size int) string {
	data := make([]byte, size)
	rand.Read(data)
	return b64(data)
}

func BenchmarkSpill50MiBBlob(b *testing.B) {
	enc := randomBase64(b, MaxDecodedBlob)
	dir := b.TempDir()
	var worst uint64
	for i := 0; b.Loop(); i++ {
		root := filepath.Join(dir, fmt.Sprint(i))
		_, extra := peakHeap(func() {
			if _, err := RenderBlob(NewSpillStore(root), "bench", "u", "image/png", enc, PageOptions{}); err != nil {
				b.Fatal(err)
			}
		})
		worst = max(worst, extra)
		b.StopTimer()
		os.RemoveAll(root)
		b.StartTimer()
	}
	b.SetBytes(MaxDecodedBlob)
	b.ReportMetric(float64(worst)/(1<<20), "peak-extra-heap-MiB")
	b.ReportMetric(float64(worst)/MaxDecodedBlob, "peak-extra-heap/decoded")
}

func TestSpillOf50MiBBlobKeepsHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("spills 50 MiB")
	}
	enc := randomBase64(t, MaxDecodedBlob)
	store := NewSpillStore(t.TempDir())
	elapsed, extra := peakHeap(func() {
		if _, err := RenderBlob(store, "s", "u", "image/png", enc, PageOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("50 MiB spill: %v, peak heap beyond the base64 input %.2f MiB", elapsed, float64(extra)/(1<<20))
	// The budget is 2x the decoded size; streaming keeps it to buffers, so
	// hold it to an eighth: decoding into memory would break this.
	if extra > MaxDecodedBlob/8 {
		t.Errorf("peak heap beyond the input is %d bytes; the decode must stream", extra)
	}
}

func BenchmarkSanitize(b *testing.B) {
	safe := syntheticLog(64 << 10)
	dirty := strings.ReplaceAll(safe, "ERROR", "\x1b[31mERROR\x1b[0m")
	for name, s := range map[string]string{"safe": safe, "with-escapes": dirty} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				Sanitize(s)
			}
		})
	}
}
