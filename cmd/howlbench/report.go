package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// sample is one measured run of a subject.
type sample struct {
	seconds float64 // wall time
	rssMB   float64 // peak RSS of the measured process, 0 if unknown
	value   float64 // a rate (calls/s) or size, for value comparisons
}

// subject is one thing being measured in a comparison.
type subject struct {
	name string
	run  func(ctx context.Context) (sample, error)
}

// comparison is a set of subjects measured in alternation. The first
// subject is the reference the ratios are taken against.
type comparison struct {
	name, title, goal string
	// byValue: compare sample.value (higher is better) instead of time.
	byValue   bool
	valueUnit string
	// prepare returns the subjects and, for each subject that cannot run
	// here, a line saying why it was skipped.
	prepare func(e *env) (subjects []subject, skipped []string, cleanup func())
	// notes derives extra lines (fitted exponents, goals met) from the rows.
	notes func(rows []Row) []string
}

// Row is one subject's summary.
type Row struct {
	Subject string  `json:"subject"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Unit    string  `json:"unit"`
	// Ratio is the median of the per-run ratios subject/reference (time) or
	// reference/subject (value), so above 1 means the reference (howl) is better.
	Ratio  *float64 `json:"ratio_vs_first,omitempty"`
	PeakMB *float64 `json:"peak_rss_mb,omitempty"`
	Runs   int      `json:"runs"`
	Errors []string `json:"errors,omitempty"`
}

// Result is one comparison's outcome.
type Result struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Goal    string   `json:"goal,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	Rows    []Row    `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
}

type report struct {
	Machine string   `json:"machine"`
	Date    string   `json:"date"`
	Runs    int      `json:"runs"`
	Results []Result `json:"results"`
}

// run measures the comparison: a warm-up of each subject, then e.runs
// rounds, the order rotating each round so no subject always goes first.
func (c comparison) run(ctx context.Context, e *env) Result {
	res := Result{Name: c.name, Title: c.title, Goal: c.goal}
	subjects, skipped, cleanup := c.prepare(e)
	if cleanup != nil {
		defer cleanup()
	}
	res.Skipped = skipped
	if len(subjects) == 0 {
		if c.notes != nil {
			res.Notes = c.notes(nil)
		}
		return res
	}
	samples := make([][]sample, len(subjects))
	errs := make([][]string, len(subjects))
	for w := 0; w < e.warmup; w++ {
		for _, s := range subjects {
			_, _ = s.run(ctx)
		}
	}
	for r := 0; r < e.runs; r++ {
		for k := range subjects {
			i := (k + r) % len(subjects)
			sm, err := subjects[i].run(ctx)
			if err != nil {
				errs[i] = append(errs[i], err.Error())
				samples[i] = append(samples[i], sample{seconds: math.NaN(), value: math.NaN()})
				continue
			}
			samples[i] = append(samples[i], sm)
		}
	}
	for i, s := range subjects {
		row := Row{Subject: s.name, Runs: e.runs, Errors: errs[i], Unit: "s"}
		vals := pick(samples[i], c.byValue)
		if c.byValue {
			row.Unit = c.valueUnit
		}
		row.Median, row.Min, row.Max = stats(vals)
		if i > 0 {
			var ratios []float64
			ref := pick(samples[0], c.byValue)
			for r := range vals {
				if r < len(ref) && !math.IsNaN(vals[r]) && !math.IsNaN(ref[r]) && ref[r] > 0 && vals[r] > 0 {
					if c.byValue {
						ratios = append(ratios, ref[r]/vals[r])
					} else {
						ratios = append(ratios, vals[r]/ref[r])
					}
				}
			}
			if len(ratios) > 0 {
				m, _, _ := stats(ratios)
				row.Ratio = &m
			}
		}
		var rss []float64
		for _, sm := range samples[i] {
			if sm.rssMB > 0 {
				rss = append(rss, sm.rssMB)
			}
		}
		if len(rss) > 0 {
			_, _, peak := stats(rss)
			row.PeakMB = &peak
		}
		res.Rows = append(res.Rows, row)
	}
	if c.notes != nil {
		res.Notes = c.notes(res.Rows)
	}
	return res
}

func pick(ss []sample, byValue bool) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.seconds
		if byValue {
			out[i] = s.value
		}
	}
	return out
}

// stats returns the median, min and max, ignoring NaN (failed runs).
func stats(xs []float64) (median, lo, hi float64) {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sort.Float64s(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return m, v[0], v[len(v)-1]
}

func (r report) print(w io.Writer) {
	fmt.Fprintf(w, "howlbench on %s, %s, %d counted runs per subject (after a warm-up), subjects alternating\n", r.Machine, r.Date, r.Runs)
	for _, res := range r.Results {
		fmt.Fprintf(w, "\n## %s\n", res.Title)
		if res.Goal != "" {
			fmt.Fprintf(w, "goal: %s\n", res.Goal)
		}
		for _, s := range res.Skipped {
			fmt.Fprintf(w, "SKIPPED: %s\n", s)
		}
		if len(res.Rows) > 0 {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "subject\tmedian\tmin\tmax\tratio vs first\tpeak RSS\terrors")
			for _, row := range res.Rows {
				ratio, peak := "-", "-"
				if row.Ratio != nil {
					ratio = fmt.Sprintf("%.2fx", *row.Ratio)
				}
				if row.PeakMB != nil {
					peak = fmt.Sprintf("%.0f MB", *row.PeakMB)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", row.Subject, fmtVal(row.Median, row.Unit), fmtVal(row.Min, row.Unit), fmtVal(row.Max, row.Unit), ratio, peak, len(row.Errors))
			}
			tw.Flush()
		}
		for _, row := range res.Rows {
			for i, e := range row.Errors {
				if i == 2 {
					fmt.Fprintf(w, "  (%d more errors from %s)\n", len(row.Errors)-2, row.Subject)
					break
				}
				fmt.Fprintf(w, "  error from %s: %s\n", row.Subject, firstLine(e))
			}
		}
		for _, n := range res.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
}

func fmtVal(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case unit == "s" && v < 1:
		return fmt.Sprintf("%.0f ms", v*1000)
	case unit == "s":
		return fmt.Sprintf("%.2f s", v)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
