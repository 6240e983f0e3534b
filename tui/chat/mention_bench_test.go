package chat

import (
	"fmt"
	"testing"
	"time"

	"github.com/howl-mcp/howl/tui/common"
)

// BenchmarkMentionRank100k is the @ popup's ranking over 100,000 items,
// off the update path: one key (the first after @ searches every item),
// and a burst of five keys, each key's ranking started as the program
// starts a command (in a goroutine of its own), typed gapMs apart, until
// the last key's answer is shown. cpu-ms/op is the process's CPU time
// per op: with the rankings of superseded keys run to their end, five
// rankings' worth; cancelled, about one.
func BenchmarkMentionRank100k(b *testing.B) {
	items := mentionItems(100_000)
	c := &Completer{com: testCommon()}
	// measure runs op b.N times, reporting CPU per op beside the time.
	measure := func(b *testing.B, op func()) {
		b.ReportAllocs()
		n := 0
		cpu0, ok := cpuTime()
		for b.Loop() {
			op()
			n++
		}
		if cpu1, ok1 := cpuTime(); ok && ok1 && n > 0 {
			b.ReportMetric(float64(cpu1-cpu0)/float64(n)/1e6, "cpu-ms/op")
		}
	}
	b.Run("key", func(b *testing.B) {
		measure(b, func() {
			c.ShowMentions("read @", 5, items)
			r := c.Refilter("read @0")().(common.Result)
			c.HandleNarrowed(r.ID, r.Msg.(MentionsNarrowed), "read @0")
			if !c.IsOpen() {
				b.Fatal("the popup closed")
			}
		})
	})
	words := []string{"0", "00", "005", "0051", "00512"}
	for _, gap := range []time.Duration{0, 10 * time.Millisecond} {
		b.Run(fmt.Sprintf("burst5-gap%dms", gap.Milliseconds()), func(b *testing.B) {
			measure(b, func() {
				c.ShowMentions("read @", 5, items)
				answers := make(chan common.Result, len(words))
				var line string
				for i, w := range words {
					if i > 0 {
						time.Sleep(gap) // the person types the next key
					}
					line = "read @" + w
					cmd := c.Refilter(line)
					go func() { answers <- cmd().(common.Result) }()
				}
				for range words {
					if r := <-answers; r.Msg != nil {
						c.HandleNarrowed(r.ID, r.Msg.(MentionsNarrowed), line)
					}
				}
				if !c.IsOpen() || len(c.items) == len(items) {
					b.Fatalf("the last key's ranking is not shown (%d items)", len(c.items))
				}
			})
		})
	}
}
