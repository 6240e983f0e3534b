package main

import (
	"context"
	"strings"
	"testing"
)

// TestSlowPeerRunsOnceAndSaysSo pins the once subject: measured in the
// first round only, no warm-up, and its row counts the one run.
func TestSlowPeerRunsOnceAndSaysSo(t *testing.T) {
	var howl, peer int
	c := comparison{name: "c", title: "t", regime: cold,
		prepare: func(*env) ([]subject, []string, func()) {
			return []subject{
				{name: "howl", role: roleHowl, run: func(context.Context) (sample, error) { howl++; return sample{seconds: 1}, nil }},
				{name: "peer", role: rolePeer, once: true, run: func(context.Context) (sample, error) { peer++; return sample{seconds: 2}, nil }},
			}, nil, nil
		}}
	res := c.run(context.Background(), &env{runs: 5, warmup: 1})
	if howl != 6 || peer != 1 {
		t.Fatalf("howl ran %d times (want 6: a warm-up and 5), the once peer %d (want 1)", howl, peer)
	}
	if res.Rows[0].Runs != 5 || res.Rows[1].Runs != 1 {
		t.Fatalf("rows count %d and %d runs, want 5 and 1", res.Rows[0].Runs, res.Rows[1].Runs)
	}
	if res.Rows[1].Ratio == nil || *res.Rows[1].Ratio != 2 {
		t.Fatalf("the once peer's ratio is %v, want 2 (its one run against howl's same round)", res.Rows[1].Ratio)
	}
}

// TestMarkdownSetsFloorAndPeerBesideHowl pins the README table's shape: one
// line a comparison, its regime named, howl, floor and peer in their own
// columns with client and server memory apart.
func TestMarkdownSetsFloorAndPeerBesideHowl(t *testing.T) {
	client, server := 50.0, 300.0
	r := report{Runs: 5, Machine: "m", Date: "d", Results: []Result{{
		Name: "big-read", Title: "Read a blob", Regime: cold, Notes: []string{"goal: met"},
		Rows: []Row{
			{Subject: "howl read", Role: roleHowl, Median: 2, Unit: "s", PeakMB: &client, ServerPeakMB: &server},
			{Subject: "floor", Role: roleFloor, Median: 1, Unit: "s"},
			{Subject: "SDK", Role: rolePeer, Median: 9, Unit: "s"},
		}}}}
	var b strings.Builder
	r.markdown(&b)
	var line string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "| Read a blob") {
			line = l
		}
	}
	cells := strings.Split(line, " | ")
	if len(cells) != 5 {
		t.Fatalf("want 5 cells in the comparison's line, got %d: %q\n%s", len(cells), line, b.String())
	}
	for i, want := range []string{"(both cold)", "howl read: 2.00 s (client 50 MB, server 300 MB)", "floor: 1.00 s", "SDK: 9.00 s", "goal: met"} {
		if !strings.Contains(cells[i], want) {
			t.Errorf("cell %d is %q, want it to hold %q", i, cells[i], want)
		}
	}
}

// A spread's percentiles are nearest-rank over the sample, in ms: of ten
// keys the p90 is the ninth slowest, so one slow key shows in the max
// only, and two show in the p90 too. Of 200 keys the p99 is the third
// slowest, and a max over the goal says how many keys passed it.
func TestSpreadReportsNearestRankPercentiles(t *testing.T) {
	ms := func(xs ...float64) []float64 {
		for i := range xs {
			xs[i] /= 1000
		}
		return xs
	}
	one := spreadOf(ms(5, 1, 2, 3, 4, 6, 7, 8, 9, 100))
	if one.p50 != 5 || one.p90 != 9 || one.max != 100 || one.n != 10 {
		t.Errorf("one slow key of ten: %+v, want p50 5, p90 9, max 100", one)
	}
	if two := spreadOf(ms(1, 2, 3, 4, 5, 6, 7, 8, 90, 100)); two.p90 != 90 {
		t.Errorf("two slow keys of ten: p90 %v, want 90", two.p90)
	}
	if got := within(one, spread{max: 42}, 16, "every echo"); got != " (goal every echo <= 16 ms: p90 met, max NOT met, 1 of 10 over; the floor's own max is 42 ms)" {
		t.Errorf("the verdict reads %q", got)
	}
	keys := make([]float64, 200)
	for i := range keys {
		keys[i] = float64(i%10 + 1)
	}
	keys[199], keys[198], keys[197] = 300, 200, 17
	wide := spreadOf(ms(keys...))
	if wide.p99 != 17 || wide.max != 300 || wide.over(16) != 3 || wide.over(300) != 0 {
		t.Errorf("200 keys, three over 16 ms: p99 %v, max %v, over 16 %d, over 300 %d; want 17, 300, 3, 0", wide.p99, wide.max, wide.over(16), wide.over(300))
	}
	if got := within(wide, spread{max: 7}, 500, "every echo"); got != " (goal every echo <= 500 ms: p90 met, max met)" {
		t.Errorf("a max within the goal reads %q", got)
	}
}
