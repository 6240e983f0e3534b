package common

import (
	"context"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// A key reaches the update loop through two goroutines: bubbletea's input
// reader reads it from the terminal and hands it over a channel to the
// loop. The hand-over puts the loop in line on the reader's own processor
// (Go's P), and the reader goes straight back to its blocking read of the
// terminal, holding that P. When every other P runs a filter worker, no
// idle P steals the loop from that line: it waits until the runtime's
// monitor has seen the read hold the P for one whole tick of its own and
// hands the P on, and that tick stretches to 10 ms while nothing else
// needs the monitor. Measured at 120,000 items, Esc sent
// while a filter run was in flight waited 7-40 ms before its update
// began (0.1 ms for other keys).
//
// So the TUI keeps one P more than the runtime would pick, and CPU-bound
// work (the catalog filter) uses no more workers than the runtime's own
// pick: one P is idle while they run, and it takes the loop at once.
// BenchmarkKeyDuringFilterRun (tui/catalog) measures the hand-over with
// and without the spare P.

// spare is how many Ps KeepSpareProc added, while it holds.
var spare atomic.Int32

// KeepSpareProc raises GOMAXPROCS by one for the update loop until restore
// is called (the runtime does not follow a change of the CPU limit
// meanwhile). A GOMAXPROCS the person set in the environment is theirs:
// it is left alone.
func KeepSpareProc() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	was := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(was + 1)
	spare.Add(1)
	return func() {
		spare.Add(-1)
		// Setting GOMAXPROCS turned off the runtime's own updates of it
		// (a container's CPU limit changing): the default turns them
		// back on, and a value set by a caller before (go test -cpu)
		// comes back as it was.
		runtime.SetDefaultGOMAXPROCS()
		if runtime.GOMAXPROCS(0) != was {
			runtime.GOMAXPROCS(was)
		}
	}
}

// Workers is how many goroutines CPU-bound work off the update path
// (the catalog filter) may keep busy at once: every P but the spare one.
func Workers() int {
	return max(1, runtime.GOMAXPROCS(0)-int(spare.Load()))
}

// RunChunks calls work(c) for every chunk c of [0, chunks) on at most
// Workers goroutines, which claim the chunks in turn until they are done
// or ctx ends, and returns when the goroutines have. newWork gives each
// goroutine its own work function (for state it reuses from chunk to
// chunk). Between chunks a goroutine yields: two workers fill two cores,
// and the key that supersedes their run, its echo and its frame would
// wait for the scheduler to preempt one (10 ms a step). A key still on
// its way from the input reader needs an idle P instead: Workers leaves
// the TUI's spare one.
func RunChunks(ctx context.Context, chunks int, newWork func() func(c int)) {
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for range min(Workers(), max(chunks, 1)) {
		work := newWork()
		wg.Go(func() {
			for {
				c := int(claimed.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					return
				}
				work(c)
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
}
