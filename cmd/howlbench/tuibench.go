package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The TUI filter timing: howl's TUI runs in tmux on the demo with 120,000
// items; keys are sent with tmux send-keys and the screen read with
// capture-pane, both through one tmux client in control mode
// (tmuxControl), which reads the screen again each time the pane writes
// (a fraction of a ms a read, so every time here is an upper bound by
// that much). Each key is timed to
// its echo (the filter line shows it) and to its results (the Resources
// tab's count changes: on the generated resources the keys of "12345"
// match 40,952 -> 3,970 -> 488 -> 38 -> 1), then Esc to the list without
// a filter.
// Then "s", which every generated resource matches (100,000 rows), and
// Esc again; then "s" and Esc at once, while its run is in flight. A
// session does that tuiRounds times. howl writes each frame as its view
// is made (tui/frames.go), so an echo is the work and the terminal.
//
// The floor is the same loop over cat, in a second window of the same tmux
// session, timed right after each of howl's keys: what sending a key and
// reading the screen cost by themselves on the machine as busy as it was
// then. On a shared 2-core machine that cost has tails of its own (tmux
// and capture-pane wait for a core like everything else), so each figure
// is reported as p50 / p90 / max with the floor's beside it: a tail that
// the floor shows too is the machine's, not howl's.

// tuiRounds is how many times a session types its keys.
const tuiRounds = 3

// tuiTiming is one session's measurements, in seconds.
type tuiTiming struct {
	floor         []float64 // a key sent to cat, to its echo: the harness's own latency
	first         []float64 // "1": a full run over 120,000 items
	later         []float64 // "2".."5": each narrowing the last
	echo          []float64 // every typed key's echo
	clear, allHit []float64 // Esc after "12345"; "s" (100,000 rows)
	clearAll      []float64 // Esc after "s"
	clearInFlight []float64 // Esc sent once "s" echoed, its run not yet shown
	// echoOver is each echo less the floor sample taken right after it:
	// what of the echo was howl's beyond what tmux costs at that moment.
	echoOver []float64
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

// spread is a sample's p50, p90, p99 and max in ms, and its size. ms is
// the sample itself, sorted, so a verdict can count the keys over a goal.
type spread struct {
	p50, p90, p99, max float64
	n                  int
	ms                 []float64
}

func spreadOf(xs []float64) spread {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = x * 1000
	}
	sort.Float64s(v)
	if len(v) == 0 {
		return spread{math.NaN(), math.NaN(), math.NaN(), math.NaN(), 0, nil}
	}
	at := func(q float64) float64 { return v[int(math.Ceil(q*float64(len(v))))-1] }
	return spread{at(0.5), at(0.9), at(0.99), v[len(v)-1], len(v), v}
}

func (s spread) String() string {
	return fmt.Sprintf("p50 %.0f, p90 %.0f, p99 %.0f, max %.0f ms (n=%d)", s.p50, s.p90, s.p99, s.max, s.n)
}

// over is how many of the sample took longer than goalMs.
func (s spread) over(goalMs float64) int {
	return len(s.ms) - sort.Search(len(s.ms), func(i int) bool { return s.ms[i] > goalMs })
}

// within is a goal's verdict on s, by its p90 and by its max. A max over
// the goal says how many keys passed it and the floor's own max beside:
// the tail the machine alone shows.
func within(s, floor spread, goalMs float64, what string) string {
	verdict := func(x float64) string {
		if x <= goalMs {
			return "met"
		}
		return "NOT met"
	}
	out := fmt.Sprintf(" (goal %s <= %.0f ms: p90 %s, max %s", what, goalMs, verdict(s.p90), verdict(s.max))
	if s.max > goalMs {
		out += fmt.Sprintf(", %d of %d over; the floor's own max is %.0f ms", s.over(goalMs), s.n, floor.max)
	}
	return out + ")"
}

func tuiNotes(runs []tuiTiming) []string {
	var first, later, echo, echoOver, clear, all, clearAll, inFlight, floor []float64
	for _, t := range runs {
		floor = append(floor, t.floor...)
		echoOver = append(echoOver, t.echoOver...)
		inFlight = append(inFlight, t.clearInFlight...)
		first = append(first, t.first...)
		later = append(later, t.later...)
		echo = append(echo, t.echo...)
		clear = append(clear, t.clear...)
		all = append(all, t.allHit...)
		clearAll = append(clearAll, t.clearAll...)
	}
	fl := spreadOf(floor)
	results := spreadOf(append(append(append([]float64{}, first...), later...), all...))
	clears := spreadOf(append(append(append([]float64{}, clear...), clearAll...), inFlight...))
	return []string{
		fmt.Sprintf("floor: a key sent to cat in a second window of the same tmux session, to its echo on screen, timed right after each of howl's keys (send-keys and capture-pane themselves, on the machine as busy as it was): %s", fl),
		fmt.Sprintf("results of the first key (a run over 120,000): %s", spreadOf(first)),
		fmt.Sprintf("results of each later key (narrowing the last run): %s", spreadOf(later)),
		fmt.Sprintf("results of \"s\" (100,000 rows): %s", spreadOf(all)),
		fmt.Sprintf("echo of a key: %s", spreadOf(echo)) + within(spreadOf(echo), fl, 16, "every echo") +
			fmt.Sprintf("; each echo less the floor sample taken right after it (tmux's own cost at that moment): %s", spreadOf(echoOver)),
		fmt.Sprintf("clear (Esc): after \"12345\" %s; after \"s\" %s; sent once \"s\" echoed (its run in flight) %s", spreadOf(clear), spreadOf(clearAll), spreadOf(inFlight)) +
			within(clears, fl, 50, "never blocks,"),
		fmt.Sprintf("%d sessions of %d rounds; results of every key: %s", len(runs), tuiRounds, results) + within(results, fl, 50, "every result"),
	}
}

var resourcesCount = regexp.MustCompile(`Resources (\d+)(/\d+)?`)

// tmuxServer is a tmux server of the bench's own (its own socket), so a
// session never meets one that another session's end is shutting down.
type tmuxServer struct{ tmux, socket string }

func (s tmuxServer) run(args ...string) ([]byte, error) {
	return exec.Command(s.tmux, append([]string{"-L", s.socket}, args...)...).CombinedOutput()
}

// newPane runs one of tmux's commands that makes a pane (new-session,
// new-window) and returns the new pane's id.
func (s tmuxServer) newPane(args ...string) (string, error) {
	out, err := s.run(append(append([]string{args[0]}, "-P", "-F", "#{pane_id}"), args[1:]...)...)
	id := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(id, "%") {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
	}
	return id, nil
}

// readUntil reads the pane's screen until ok says it shows what is
// waited for, reading again each time the pane writes, and returns the
// last screen read and whether ok took it before limit.
func readUntil(ctl *tmuxControl, pane string, limit time.Duration, ok func(string) bool) (string, bool) {
	deadline := time.Now().Add(limit)
	for {
		s := ctl.screen(pane)
		if ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		ctl.waitOutput(pane, 5*time.Millisecond)
	}
}

// catFloor times keys sent to cat to their echo on screen: what sending a
// key and reading the screen cost by themselves, in the same loop the
// session times howl with.
type catFloor struct {
	ctl   *tmuxControl
	pane  string
	typed string
	n     int
}

// sample types one key and times its echo: the last line with text on
// the screen reads what was typed since the last Enter.
func (f *catFloor) sample() (float64, error) {
	f.n++
	if len(f.typed) >= 40 {
		f.ctl.send(f.pane, "Enter") // cat prints the line back; typing starts a new one
		f.typed = ""
	}
	f.typed += string(rune('a' + f.n%26))
	f.ctl.forget(f.pane)
	t0 := time.Now()
	f.ctl.send(f.pane, "-l", f.typed[len(f.typed)-1:])
	_, ok := readUntil(f.ctl, f.pane, 10*time.Second, func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
		return strings.TrimSpace(lines[len(lines)-1]) == f.typed
	})
	if !ok {
		return 0, fmt.Errorf("tmux floor: cat did not echo %q within 10 s", f.typed)
	}
	return time.Since(t0).Seconds(), nil
}

// tuiSession runs one TUI session and times its keys.
func tuiSession(tmux string, e *env, cfg string, n int) (tuiTiming, error) {
	var t tuiTiming
	srv := tmuxServer{tmux: tmux, socket: fmt.Sprintf("howlbench-%d-%d", os.Getpid(), n)}
	cwd := filepath.Join(e.tmp, "cwd")
	howlPane, err := srv.newPane("new-session", "-d", "-s", "howl", "-x", "120", "-y", "40", "-c", cwd,
		"env", "HOWL_CACHE_DIR="+filepath.Join(e.tmp, "cache-tui"), e.howl, "--config", cfg)
	if err != nil {
		return t, err
	}
	defer srv.run("kill-server")
	// The floor's cat is a second window of the same session: a control
	// client hears the output of its own session's panes only.
	floorPane, err := srv.newPane("new-window", "-d", "-t", "howl:", "cat")
	if err != nil {
		return t, fmt.Errorf("the floor's window: %w", err)
	}
	ctl, err := attachControl(srv, "howl", howlPane, floorPane)
	if err != nil {
		return t, err
	}
	defer ctl.close()
	floor := &catFloor{ctl: ctl, pane: floorPane}
	pairFloor := func() (float64, error) {
		s, err := floor.sample()
		t.floor = append(t.floor, s)
		return s, err
	}
	screen := func() string { return ctl.screen(howlPane) }
	send := func(keys ...string) { ctl.forget(howlPane); ctl.send(howlPane, keys...) }
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
		if s, done := readUntil(ctl, howlPane, limit, ok); !done {
			return fmt.Errorf("TUI session: no %s within %v:\n%s", what, limit, s)
		}
		return nil
	}
	if err := wait("catalog of 100,000 resources", 2*time.Minute, func(s string) bool { c, _ := count(s); return c >= bigScale }); err != nil {
		return t, err
	}
	send("2")
	// typeKey sends k and times its echo and its results.
	typeKey := func(k, typed string) (echo, results float64, err error) {
		before, wasFiltered := count(screen())
		t0 := time.Now()
		send("-l", k)
		s, done := readUntil(ctl, howlPane, 30*time.Second, func(s string) bool {
			now := time.Since(t0).Seconds()
			if echo == 0 && strings.Contains(s, "/ "+typed) {
				echo = now
			}
			if c, filtered := count(s); results == 0 && filtered && (!wasFiltered || c != before) {
				results = now
			}
			return echo != 0 && results != 0
		})
		if !done {
			return 0, 0, fmt.Errorf("TUI session: %q: no echo or results within 30 s:\n%s", typed, s)
		}
		f, err := pairFloor()
		t.echoOver = append(t.echoOver, echo-f)
		return echo, results, err
	}
	clear := func() (float64, error) {
		t0 := time.Now()
		send("Escape")
		err := wait("list without a filter", 30*time.Second, func(s string) bool { c, filtered := count(s); return c >= bigScale && !filtered })
		if err != nil {
			return 0, err
		}
		took := time.Since(t0).Seconds()
		_, err = pairFloor()
		return took, err
	}
	openFilter := func() error {
		send("/")
		return wait("filter line", 10*time.Second, func(s string) bool { return strings.Contains(s, "/ ") })
	}
	for range tuiRounds {
		if err := openFilter(); err != nil {
			return t, err
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
				t.first = append(t.first, res)
			} else {
				t.later = append(t.later, res)
			}
		}
		c, err := clear()
		if err != nil {
			return t, err
		}
		t.clear = append(t.clear, c)
		if err := openFilter(); err != nil {
			return t, err
		}
		echo, res, err := typeKey("s", "s")
		if err != nil {
			return t, err
		}
		t.echo, t.allHit = append(t.echo, echo), append(t.allHit, res)
		if c, err = clear(); err != nil {
			return t, err
		}
		t.clearAll = append(t.clearAll, c)
		// Esc on the heels of a key, once its echo shows: the run it
		// started is cancelled, and the rows from before come back (the
		// filter line gone) without waiting for it.
		if err := openFilter(); err != nil {
			return t, err
		}
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
		if err != nil {
			return t, err
		}
		t.clearInFlight = append(t.clearInFlight, time.Since(t0).Seconds())
		if _, err := pairFloor(); err != nil {
			return t, err
		}
	}
	return t, nil
}
