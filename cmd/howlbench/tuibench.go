package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The TUI filter timing: howl's TUI runs in tmux on the demo with 120,000
// items; keys are sent with tmux send-keys and the screen read with
// capture-pane as fast as it answers (a few ms a read on this machine, so
// every time here is an upper bound by that much). Each key is timed to
// its echo (the filter line shows it) and to its results (the Resources
// tab's count changes: on the generated resources the keys of "12345"
// match 40,952 -> 3,970 -> 488 -> 38 -> 1), then Esc to the list without
// a filter.
// Then "s", which every generated resource matches (100,000 rows), and
// Esc again; then "s" and Esc at once, while its run is in flight. howl draws at most 120 frames a second (tui.FramesPerSecond),
// so an echo waits up to 8.3 ms for its frame on top of the work. The
// floor beside them is the same loop over cat: what sending a key and
// reading the screen cost by themselves.

// tuiTiming is one session's measurements, in seconds.
type tuiTiming struct {
	floor         []float64 // a key sent to cat, to its echo: the harness's own latency
	first         float64   // "1": a full run over 120,000 items
	later         []float64 // "2".."5": each narrowing the last
	echo          []float64 // every typed key's echo
	clear, allHit float64   // Esc after "12345"; "s" (100,000 rows)
	clearAll      float64   // Esc after "s"
	clearInFlight float64   // Esc sent once "s" echoed, its run not yet shown
}

func tuiFilter() comparison {
	var lines []string
	return comparison{name: "tui-filter", title: fmt.Sprintf("TUI filter at 120,000 items (demo --scale %d), timed in tmux from each key to the screen", bigScale),
		goal:   "results on screen within 50 ms of each key, each key's echo within 16 ms, clearing never blocks",
		regime: "both cold is moot: one TUI session a run, the catalog loaded before the first key",
		prepare: func(e *env) ([]subject, []string, func()) {
			lines = nil
			tmux, err := exec.LookPath("tmux")
			if err != nil {
				return nil, []string{"tmux is not installed: the TUI filter timing needs it"}, nil
			}
			cfg := e.writeConfig("tui", e.howl, "demo-server", "--scale", fmt.Sprint(bigScale))
			var runs []tuiTiming
			var errs []string
			for r := 0; r < max(e.runs, 1); r++ {
				t, err := tuiSession(tmux, e, cfg, r)
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				runs = append(runs, t)
			}
			if len(runs) == 0 {
				return nil, append([]string{"every TUI session failed"}, errs...), nil
			}
			lines = tuiNotes(runs)
			return nil, errs, nil
		},
		notes: func([]Row) []string { return lines },
	}
}

func tuiNotes(runs []tuiTiming) []string {
	var first, later, echo, clear, all, clearAll, inFlight, floor []float64
	for _, t := range runs {
		floor = append(floor, t.floor...)
		inFlight = append(inFlight, t.clearInFlight)
		first = append(first, t.first)
		later = append(later, t.later...)
		echo = append(echo, t.echo...)
		clear = append(clear, t.clear)
		all = append(all, t.allHit)
		clearAll = append(clearAll, t.clearAll)
	}
	ms := func(xs []float64) string {
		m, _, hi := stats(xs)
		return fmt.Sprintf("median %.0f ms, max %.0f ms", m*1000, hi*1000)
	}
	results := append(append(append([]float64{}, first...), later...), all...)
	_, _, worst := stats(results)
	_, _, worstEcho := stats(echo)
	_, _, worstClear := stats(append(append(clear, clearAll...), inFlight...))
	return []string{
		fmt.Sprintf("floor: a key sent to cat in tmux, to its echo on screen (send-keys and capture-pane themselves): %s", ms(floor)),
		fmt.Sprintf("results of the first key (a run over 120,000): %s", ms(first)),
		fmt.Sprintf("results of each later key (narrowing the last run): %s", ms(later)),
		fmt.Sprintf("results of \"s\" (100,000 rows): %s", ms(all)),
		fmt.Sprintf("echo of a key: %s", ms(echo)) + met(worstEcho <= 0.016, " (goal <= 16 ms)"),
		fmt.Sprintf("clear (Esc): %s after \"12345\", %s after \"s\", %s sent once \"s\" echoed (its run in flight)", ms(clear), ms(clearAll), ms(inFlight)) + met(worstClear <= 0.050, " (goal: never blocks; <= 50 ms)"),
		fmt.Sprintf("%d sessions; every result within 50 ms", len(runs)) + met(worst <= 0.050, ""),
	}
}

var resourcesCount = regexp.MustCompile(`Resources (\d+)(/\d+)?`)

// tmuxFloor times keys sent to cat in tmux to their echo on screen: what
// sending a key and reading the screen cost by themselves, in the same
// loop tuiSession times howl with.
func tmuxFloor(tmux string, n int) ([]float64, error) {
	name := fmt.Sprintf("howlbench-floor-%d-%d", os.Getpid(), n)
	if out, err := exec.Command(tmux, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "cat").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("tmux new-session: %v: %s", err, out)
	}
	defer exec.Command(tmux, "kill-session", "-t", name).Run()
	var out []float64
	typed := ""
	for _, k := range "12345" {
		typed += string(k)
		t0 := time.Now()
		_ = exec.Command(tmux, "send-keys", "-t", name, "-l", string(k)).Run()
		for {
			s, _ := exec.Command(tmux, "capture-pane", "-p", "-t", name).Output()
			if strings.Contains(string(s), typed) {
				break
			}
			if time.Since(t0) > 10*time.Second {
				return nil, fmt.Errorf("tmux floor: cat did not echo %q within 10 s", typed)
			}
		}
		out = append(out, time.Since(t0).Seconds())
	}
	return out, nil
}

// tuiSession runs one TUI session and times its keys.
func tuiSession(tmux string, e *env, cfg string, n int) (tuiTiming, error) {
	var t tuiTiming
	floor, err := tmuxFloor(tmux, n)
	if err != nil {
		return t, err
	}
	t.floor = floor
	name := fmt.Sprintf("howlbench-%d-%d", os.Getpid(), n)
	cwd := filepath.Join(e.tmp, "cwd")
	start := exec.Command(tmux, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", cwd,
		"env", "HOWL_CACHE_DIR="+filepath.Join(e.tmp, "cache-tui"), e.howl, "--config", cfg)
	if out, err := start.CombinedOutput(); err != nil {
		return t, fmt.Errorf("tmux new-session: %v: %s", err, out)
	}
	defer exec.Command(tmux, "kill-session", "-t", name).Run()
	screen := func() string {
		out, _ := exec.Command(tmux, "capture-pane", "-p", "-t", name).Output()
		return string(out)
	}
	send := func(keys ...string) {
		_ = exec.Command(tmux, append([]string{"send-keys", "-t", name}, keys...)...).Run()
	}
	// count is the Resources tab's count, and whether a filter is on.
	count := func(s string) (int, bool) {
		m := resourcesCount.FindStringSubmatch(s)
		if m == nil {
			return -1, false
		}
		n, _ := strconv.Atoi(m[1])
		return n, m[2] != ""
	}
	wait := func(what string, limit time.Duration, ok func(string) bool) error {
		deadline := time.Now().Add(limit)
		for time.Now().Before(deadline) {
			if ok(screen()) {
				return nil
			}
		}
		return fmt.Errorf("TUI session: no %s within %v:\n%s", what, limit, screen())
	}
	if err := wait("catalog of 100,000 resources", 2*time.Minute, func(s string) bool { c, _ := count(s); return c >= bigScale }); err != nil {
		return t, err
	}
	send("2")
	send("/")
	if err := wait("filter line", 10*time.Second, func(s string) bool { return strings.Contains(s, "/ ") }); err != nil {
		return t, err
	}
	// typeKey sends k and times its echo and its results.
	typeKey := func(k, typed string) (echo, results float64, err error) {
		before, wasFiltered := count(screen())
		t0 := time.Now()
		send("-l", k)
		deadline := t0.Add(30 * time.Second)
		for echo == 0 || results == 0 {
			if time.Now().After(deadline) {
				return 0, 0, fmt.Errorf("TUI session: %q: no echo or results within 30 s:\n%s", typed, screen())
			}
			s := screen()
			now := time.Since(t0).Seconds()
			if echo == 0 && strings.Contains(s, "/ "+typed) {
				echo = now
			}
			if c, filtered := count(s); results == 0 && filtered && (!wasFiltered || c != before) {
				results = now
			}
		}
		return echo, results, nil
	}
	clear := func() (float64, error) {
		t0 := time.Now()
		send("Escape")
		err := wait("list without a filter", 30*time.Second, func(s string) bool { c, filtered := count(s); return c >= bigScale && !filtered })
		return time.Since(t0).Seconds(), err
	}
	typed := ""
	for i, k := range "12345" {
		typed += string(k)
		echo, res, err := typeKey(string(k), typed)
		if err != nil {
			return t, err
		}
		t.echo = append(t.echo, echo)
		if i == 0 {
			t.first = res
		} else {
			t.later = append(t.later, res)
		}
	}
	if t.clear, err = clear(); err != nil {
		return t, err
	}
	send("/")
	echo, res, err := typeKey("s", "s")
	if err != nil {
		return t, err
	}
	t.echo, t.allHit = append(t.echo, echo), res
	if t.clearAll, err = clear(); err != nil {
		return t, err
	}
	// Esc on the heels of a key, once its echo shows: the run it started
	// is cancelled, and the rows from before come back (the filter line
	// gone) without waiting for it.
	send("/")
	send("-l", "s")
	if err := wait("echo of \"s\"", 30*time.Second, func(s string) bool { return strings.Contains(s, "/ s") }); err != nil {
		return t, err
	}
	t0 := time.Now()
	send("Escape")
	err = wait("list without a filter after an Esc in flight", 30*time.Second, func(s string) bool {
		c, filtered := count(s)
		return c >= bigScale && !filtered && !strings.Contains(s, "/ s")
	})
	t.clearInFlight = time.Since(t0).Seconds()
	return t, err
}
