package catalog

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/tui/common"
)

// BenchmarkKeyDuringFilterRun times a key's hand-over from an input
// reader to the update loop while filter runs over 120,000 items keep the
// workers busy, the way bubbletea hands a key over: a goroutine blocked
// in a read of a pipe (a blocking system call, as the terminal read is)
// sends what it read on a channel to a goroutine waiting on it, then
// reads again. "spare" is the TUI as it runs (common.KeepSpareProc);
// "none" is without the spare P, where the loop waits for the runtime to
// take the reader's P back (up to 10-20 ms). Reported: the hand-over's
// p50, p99 and max, in µs.
func BenchmarkKeyDuringFilterRun(b *testing.B) {
	if os.Getenv("GOMAXPROCS") != "" {
		b.Skip("GOMAXPROCS is set in the environment: KeepSpareProc leaves it alone, so the two cases would be the same")
	}
	c := filterBench(b).c
	for _, spare := range []bool{false, true} {
		name := "none"
		if spare {
			name = "spare"
		}
		b.Run(name, func(b *testing.B) {
			if spare {
				defer common.KeepSpareProc()()
			}
			r, w, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			r.Fd() // blocking reads: the reader holds its P in the system call
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Add(3)
			go func() { // filter runs, back to back
				defer wg.Done()
				for ctx.Err() == nil {
					filterCmd(ctx, filterJob{id: 1, version: c.version, query: "s", all: c.all, spans: c.spans})()
				}
			}()
			read := make(chan time.Time)
			go func() { // the input reader
				defer wg.Done()
				defer close(read)
				buf := make([]byte, 1)
				for {
					if _, err := r.Read(buf); err != nil {
						return
					}
					read <- time.Now()
				}
			}()
			took := make(chan time.Duration)
			go func() { // the update loop
				defer wg.Done()
				defer close(took)
				for t := range read {
					took <- time.Since(t)
				}
			}()
			var hops []time.Duration
			for b.Loop() {
				time.Sleep(5 * time.Millisecond) // keys come at typing pace
				if _, err := w.Write([]byte{'k'}); err != nil {
					b.Fatal(err)
				}
				hops = append(hops, <-took)
			}
			stop()
			w.Close()
			for range took {
			}
			wg.Wait()
			r.Close()
			slices.Sort(hops)
			at := func(q float64) float64 { return float64(hops[int(q*float64(len(hops)-1))].Microseconds()) }
			b.ReportMetric(at(0.5), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(at(1), "max-µs")
		})
	}
}
