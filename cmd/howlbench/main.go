// Command howlbench measures howl against its peers, side by side, in one
// run: each comparison runs a warm-up, then alternates its subjects for
// several counted runs, and reports median, min and max per subject and the
// median of the pairwise ratios against howl, because on a shared, noisy
// machine only ratios taken in the same run mean anything.
//
//	go run ./cmd/howlbench            # every comparison, 5 counted runs
//	go run ./cmd/howlbench --quick    # one run each (CI: keeps the harness alive)
//	go run ./cmd/howlbench --json     # machine-readable
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
	peers  string // .ci/interop/node_modules
	bench  string // .ci/bench (with node_modules)
	node   string // node on PATH
	runs   int
	warmup int
	tmp    string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("howlbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 5, "counted runs per subject (at least 5 for the report)")
	quick := fs.Bool("quick", false, "one run each, no warm-up: checks the harness, not the numbers")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
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
	rep := report{Machine: machine(), Runs: e.runs, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	for _, c := range comparisons() {
		if len(want) > 0 && !want[c.name] {
			continue
		}
		fmt.Fprintf(stderr, "howlbench: %s ...\n", c.name)
		res := c.run(context.Background(), e)
		rep.Results = append(rep.Results, res)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
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
	e := &env{repo: repo, tmp: tmp, howl: howlBin}
	if e.howl == "" {
		e.howl = filepath.Join(tmp, "howl")
		build := exec.Command("go", "build", "-o", e.howl, "./cmd/howl")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building howl: %v\n%s", err, out)
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
