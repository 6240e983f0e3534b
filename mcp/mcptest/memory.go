package mcptest

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// PeakMemory samples the heap's live objects and the goroutine stacks
// every 2 ms until End: the tests and benchmarks that bound what a big or
// endless answer costs read their peak from it.
type PeakMemory struct {
	// Base is what was live when the watch began, after a collection: a
	// peak above it is what the work in between held.
	Base uint64
	stop chan struct{}
	done chan struct{}
	peak uint64
	gors int
	over func() // called once when the sum passes limit
}

// WatchMemory starts a watch; over, when not nil, is called once when
// the sum passes limit (to stop a flood rather than fill the machine).
func WatchMemory(limit uint64, over func()) *PeakMemory {
	runtime.GC()
	p := &PeakMemory{stop: make(chan struct{}), done: make(chan struct{}), over: over}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(samples)
	p.Base = samples[0].Value.Uint64() + samples[1].Value.Uint64()
	go func() { // ends at End
		defer close(p.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			if sum := samples[0].Value.Uint64() + samples[1].Value.Uint64(); sum > p.peak {
				p.peak = sum
				if sum > limit && p.over != nil {
					p.over()
					p.over = nil
				}
			}
			p.gors = max(p.gors, runtime.NumGoroutine())
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// End stops the sampling and returns the peak bytes and goroutines.
func (p *PeakMemory) End() (uint64, int) {
	close(p.stop)
	<-p.done
	return p.peak, p.gors
}

// Held is End's peak above Base: what the work watched held at most.
func (p *PeakMemory) Held() uint64 {
	peak, _ := p.End()
	return peak - min(peak, p.Base)
}
