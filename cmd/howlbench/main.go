// Command howlbench measures howl against its peers, side by side, in one
// run: each comparison runs a warm-up, then alternates its subjects for
// several counted runs, and reports median, min and max per subject and the
// median of the pairwise ratios against howl, because on a shared, noisy
// machine only ratios taken in the same run mean anything.
//
//	go run ./cmd/howlbench            # every comparison, 5 counted runs
//	go run ./cmd/howlbench --quick    # one run each (CI: keeps the harness alive)
//	go run ./cmd/howlbench --json     # machine-readable
//	go run ./cmd/howlbench --markdown # the README's table
//	go run ./cmd/howlbench --markdown --save-json r.json  # and the whole report
//	go run ./cmd/howlbench --howl OLD # another howl binary (a "before" run)
//
// Each comparison says whether its subjects run cold (a fresh process and
// server each run) or warm (one connection, warmed up), the same for all
// of them; the session row's clients are cold on a warm connection. A client's peak RSS is its own: servers run under detach, so
// their memory is reported apart (Linux). Floors (cmd/howlbench/floor)
// do the least the work takes, on the same server.
//
// Peers come from .ci/interop (npm ci) and the TypeScript SDK scripts from
// .ci/bench (npm ci); a comparison whose peer is missing is skipped, and
// the report says so.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env is what the comparisons need to find.
type env struct {
	repo   string // the howl repository root
	howl   string // a howl binary built from it
	floor  string // cmd/howlbench/floor, built
	detach string // cmd/howlbench/detach, built ("" when servers' memory cannot be told apart)
	peers  string // .ci/interop/node_modules
	bench  string // .ci/bench (with node_modules)
	node   string // node on PATH
	runs   int
	warmup int
	tmp    string
	// cwd is where howl runs: not above its configs, which would make them
	// a project's (untrusted) configs.
	cwd string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("howlbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 5, "counted runs per subject (at least 5 for the report)")
	quick := fs.Bool("quick", false, "one run each, no warm-up: checks the harness, not the numbers")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
	asMarkdown := fs.Bool("markdown", false, "print the README's table (one line a comparison) instead of tables")
	saveJSON := fs.String("save-json", "", "also write the JSON report to this file (one run, both forms)")
	only := fs.String("only", "", "comma-separated comparison names to run (default: all)")
	howlBin := fs.String("howl", "", "howl binary to measure (default: build ./cmd/howl)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	e, err := setup(*howlBin)
	if err != nil {
		fmt.Fprintln(stderr, "howlbench:", err)
		return 1
	}
	defer os.RemoveAll(e.tmp)
	e.runs, e.warmup = *runs, 1
	if *quick {
		e.runs, e.warmup = 1, 0
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	rep := report{Machine: machine(), Runs: e.runs, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), LoadBefore: loadAverage()}
	for _, c := range comparisons() {
		if len(want) > 0 && !want[c.name] {
			continue
		}
		fmt.Fprintf(stderr, "howlbench: %s ...\n", c.name)
		res := c.run(context.Background(), e)
		rep.Results = append(rep.Results, res)
	}
	rep.LoadAfter = loadAverage()
	if *saveJSON != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*saveJSON, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "howlbench:", err)
			return 1
		}
	}
	switch {
	case *asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	case *asMarkdown:
		rep.markdown(stdout)
	default:
		rep.print(stdout)
	}
	return 0
}

// setup finds the repository, the peers and node, and builds howl.
func setup(howlBin string) (*env, error) {
	repo, err := repoRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "howlbench-")
	if err != nil {
		return nil, err
	}
	e := &env{repo: repo, tmp: tmp, howl: howlBin, cwd: filepath.Join(tmp, "cwd")}
	if err := os.MkdirAll(e.cwd, 0o755); err != nil {
		return nil, err
	}
	build := func(out, pkg string) error {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = repo
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	if e.howl == "" {
		e.howl = filepath.Join(tmp, "howl")
		if err := build(e.howl, "./cmd/howl"); err != nil {
			return nil, err
		}
	}
	e.floor = filepath.Join(tmp, "floor")
	if err := build(e.floor, "./cmd/howlbench/floor"); err != nil {
		return nil, err
	}
	if becomeSubreaper() {
		e.detach = filepath.Join(tmp, "detach")
		if err := build(e.detach, "./cmd/howlbench/detach"); err != nil {
			return nil, err
		}
	}
	e.peers = os.Getenv("HOWL_INTEROP_DIR")
	if e.peers == "" {
		e.peers = filepath.Join(repo, ".ci", "interop", "node_modules")
	}
	e.bench = filepath.Join(repo, ".ci", "bench")
	e.node, _ = exec.LookPath("node")
	return e, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "cmd", "howl")); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("run howlbench inside the howl repository (no go.mod with cmd/howl above %s)", dir)
		}
	}
}

func machine() string {
	host, _ := os.Hostname()
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores (%s), %s, %s", runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version(), host)
}

// loadAverage is the machine's load over the last minute, from
// /proc/loadavg ("" where there is none): a shared machine's other work
// moves both sides of a pair, and the report says how busy it was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Fields(string(b) + " ")[0]
}
