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

// subject is one thing being measured in a comparison.
type subject struct {
	name string
	role role
	run  func(ctx context.Context) (sample, error)
	// once: measured in the first round only, without a warm-up, for a
	// peer too slow to repeat (the report says it ran once).
	once bool
}

// role says what a subject is to howl in the report's table.
type role string

const (
	roleHowl  role = "howl"
	roleFloor role = "floor" // the least the work costs
	rolePeer  role = "peer"  // what a user would otherwise pick
	roleRef   role = "ref"   // howl on a reference workload
)

// comparison is a set of subjects measured in alternation. The first
// subject is the reference the ratios are taken against.
type comparison struct {
	name, title, goal string
	// regime says whether every subject runs cold or warm (cold, warm).
	regime string
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
	Role    role    `json:"role,omitempty"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Unit    string  `json:"unit"`
	// Ratio is the median of the per-run ratios subject/reference (time) or
	// reference/subject (value), so above 1 means the reference (howl) is better.
	Ratio *float64 `json:"ratio_vs_first,omitempty"`
	// PeakMB is the client process's own peak RSS (the most of its runs);
	// ServerPeakMB its server's, measured apart (see detach).
	PeakMB       *float64 `json:"peak_rss_mb,omitempty"`
	ServerPeakMB *float64 `json:"server_peak_rss_mb,omitempty"`
	// Work is the median time to the last byte written (the answer);
	// Median - Work is the shutdown.
	Work   float64  `json:"answer_seconds,omitempty"`
	Runs   int      `json:"runs"`
	Errors []string `json:"errors,omitempty"`
}

// Result is one comparison's outcome.
type Result struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Goal    string   `json:"goal,omitempty"`
	Regime  string   `json:"regime,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	Rows    []Row    `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
}

type report struct {
	Machine string `json:"machine"`
	Date    string `json:"date"`
	// LoadBefore and LoadAfter are the 1-minute load average at the start
	// and the end of the run ("" when unknown).
	LoadBefore string   `json:"load_before,omitempty"`
	LoadAfter  string   `json:"load_after,omitempty"`
	Runs       int      `json:"runs"`
	Results    []Result `json:"results"`
}

// run measures the comparison: a warm-up of each subject, then e.runs
// rounds, the order rotating each round so no subject always goes first.
func (c comparison) run(ctx context.Context, e *env) Result {
	res := Result{Name: c.name, Title: c.title, Goal: c.goal, Regime: c.regime}
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
			if !s.once {
				_, _ = s.run(ctx)
			}
		}
	}
	for r := 0; r < e.runs; r++ {
		for k := range subjects {
			i := (k + r) % len(subjects)
			if subjects[i].once && r > 0 {
				continue
			}
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
		row := Row{Subject: s.name, Role: s.role, Runs: len(samples[i]), Errors: errs[i], Unit: "s"}
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
		row.PeakMB = peakOf(samples[i], func(s sample) float64 { return s.rssMB })
		row.ServerPeakMB = peakOf(samples[i], func(s sample) float64 { return s.serverMB })
		var work []float64
		for _, sm := range samples[i] {
			if sm.work > 0 {
				work = append(work, sm.work)
			}
		}
		if len(work) > 0 {
			row.Work, _, _ = stats(work)
		}
		res.Rows = append(res.Rows, row)
	}
	if c.notes != nil {
		res.Notes = c.notes(res.Rows)
	}
	return res
}

// peakOf is the largest of a measure over the runs, nil when never known.
func peakOf(ss []sample, f func(sample) float64) *float64 {
	var v []float64
	for _, s := range ss {
		if x := f(s); x > 0 {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil
	}
	_, _, peak := stats(v)
	return &peak
}

// rowOf is the first row whose subject starts with prefix, or nil.
func rowOf(rows []Row, prefix string) *Row {
	for i := range rows {
		if strings.HasPrefix(rows[i].Subject, prefix) {
			return &rows[i]
		}
	}
	return nil
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
	fmt.Fprintf(w, "howlbench on %s, %s, %d counted runs per subject (after a warm-up), subjects alternating%s\n", r.Machine, r.Date, r.Runs, r.load())
	for _, res := range r.Results {
		fmt.Fprintf(w, "\n## %s\n", res.Title)
		if res.Goal != "" {
			fmt.Fprintf(w, "goal: %s\n", res.Goal)
		}
		if res.Regime != "" {
			fmt.Fprintf(w, "%s\n", res.Regime)
		}
		for _, s := range res.Skipped {
			fmt.Fprintf(w, "SKIPPED: %s\n", s)
		}
		if len(res.Rows) > 0 {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "subject\tmedian\tmin\tmax\tratio vs first\tclient peak RSS\tserver peak RSS\terrors")
			for _, row := range res.Rows {
				ratio := "-"
				if row.Ratio != nil {
					ratio = fmt.Sprintf("%.2fx", *row.Ratio)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", row.Subject, fmtVal(row.Median, row.Unit), fmtVal(row.Min, row.Unit), fmtVal(row.Max, row.Unit), ratio, fmtMB(row.PeakMB), fmtMB(row.ServerPeakMB), len(row.Errors))
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

func fmtMB(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f MB", *v)
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

// load says how busy the machine was, when known.
func (r report) load() string {
	if r.LoadBefore == "" {
		return ""
	}
	return fmt.Sprintf("; load average %s at the start, %s at the end", r.LoadBefore, r.LoadAfter)
}
