package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// runTimeout bounds every measured process: a hung peer fails its run, it
// does not hang the benchmark.
const runTimeout = 2 * time.Minute

// The regimes: whether each side starts from nothing or runs warm. Every
// comparison is one or the other for all its subjects.
const (
	cold = "both cold: a fresh process (and server) each run"
	warm = "both warm: one open connection, warmed up before the timed calls"
)

// The demo's scale: --scale N serves N resources and N/10 tools and
// prompts, 1.2 N items with the demo's own.
const bigScale = 100_000

func comparisons() []comparison {
	return []comparison{
		coldStart("cold-start-everything", "Cold start to a full catalog: server-everything 2026.8.31 (whole process)",
			"@modelcontextprotocol/server-everything",
			"howl's time above the floor at most one third of the SDK script's time above the floor", true),
		coldStart("cold-start-everything-2025", "Cold start to a full catalog: server-everything 2025.11.25, which never exits on stdin EOF",
			"server-everything-2025", "howl at least 2x faster than the SDK script, whole process", false),
		startupVersion(),
		coldStartDemo(),
		oneItem("one-read", "read", "Read one small resource", "read", "s", demo.WelcomeURI),
		oneItem("one-call", "call", "Call echo (first page of tools)", "call", "s", demo.EchoTool, "message=hi"),
		oneItem("one-prompt", "prompt", "Get prompt code_review (first page of prompts)", "prompt", "s", demo.CodeReviewPrompt, "language=go"),
		oneItem("one-prompt-last", "prompt", "Get prompt greeting (last page of 10,000 prompts)", "prompt", "s", demo.GreetingPrompt),
		throughput(1), throughput(8),
		sessionCall(),
		catalogScale(),
		bigRead("big-read-blob", "Read a 50 MiB blob resource (howl: read and spilled; floor: streamed to a file; SDK: read, written out)", demo.BigBlobURI, 0),
		bigRead("big-read-text", "Read a 20 MiB text resource, both showing its first page of 51,200 bytes", demo.BigTextURI, render.DefaultMaxBytes),
		tuiFilter(),
		contextEconomy(),
		functionShapes(),
		uiFrames(),
	}
}

// floorInit spawns a server, does one initialize round trip and kills it:
// no client can beat it.
func floorInit(ctx context.Context, name string, args ...string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, name, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}`)
	line, err := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil || !strings.Contains(line, `"result"`) {
		return sample{}, fmt.Errorf("floor: no initialize answer (%v): %s", err, firstLine(line))
	}
	return sample{seconds: time.Since(start).Seconds()}, nil
}

func (e *env) peerScript(pkg string) (string, bool) {
	p := filepath.Join(e.peers, pkg, "dist", "index.js")
	_, err := os.Stat(p)
	return p, err == nil && e.node != ""
}

func (e *env) sdkReady() bool {
	_, err := os.Stat(filepath.Join(e.bench, "node_modules", "@modelcontextprotocol", "sdk"))
	return err == nil && e.node != ""
}

const sdkMissing = "TypeScript SDK script: .ci/bench is not installed (run: cd .ci/bench && npm ci)"

// writeConfig writes a config of one server, named as the file, and
// returns its path.
func (e *env) writeConfig(name, command string, args ...string) string {
	return e.writeServerConfig(name, name, command, args...)
}

func (e *env) writeServerConfig(file, server, command string, args ...string) string {
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{"command": command, "args": args}}})
	p := filepath.Join(e.tmp, file+".json")
	_ = os.WriteFile(p, b, 0o644)
	return p
}

// demoConfig writes a config (file.json) with one server running howl
// demo-server with args under detach (its memory reported apart), and
// returns it and the pid file.
func (e *env) demoConfig(file, server string, args ...string) (cfg, pidfile string) {
	pidfile = filepath.Join(e.tmp, file+".pid")
	cmd, argv := e.detached(pidfile, e.howl, append([]string{"demo-server"}, args...)...)
	return e.writeServerConfig(file, server, cmd, argv...), pidfile
}

// howlEnv isolates howl's cache (spills, learned eras, logs) per comparison.
func (e *env) howlEnv(tag string) []string {
	return []string{"HOWL_CACHE_DIR=" + filepath.Join(e.tmp, "cache-"+tag)}
}

// howlRun runs howl with a config, as a subject.
func (e *env) howlRun(tag, cfg, pidfile string, args ...string) func(context.Context) (sample, error) {
	return func(ctx context.Context) (sample, error) {
		return measure(ctx, proc{dir: e.cwd, env: e.howlEnv(tag), name: e.howl, args: append([]string{"--config", cfg}, args...), pidfile: pidfile})
	}
}

func coldStart(name, title, pkg, goal string, withInspector bool) comparison {
	return comparison{name: name, title: title, goal: goal, regime: cold,
		prepare: func(e *env) ([]subject, []string, func()) {
			script, ok := e.peerScript(pkg)
			if !ok {
				return nil, []string{pkg + ": not installed (run: cd .ci/interop && npm ci)"}, nil
			}
			pid := filepath.Join(e.tmp, name+".pid")
			server, serverArgs := e.detached(pid, "node", script, "stdio")
			cfg := e.writeConfig(name, server, serverArgs...)
			subs := []subject{
				{name: "howl ls --json", role: roleHowl, run: e.howlRun(name, cfg, pid, "ls", "--json")},
				{name: "floor (spawn, initialize, kill)", role: roleFloor, run: func(ctx context.Context) (sample, error) { return floorInit(ctx, "node", script, "stdio") }},
			}
			var skipped []string
			if e.sdkReady() {
				subs = append(subs, subject{name: "TypeScript SDK script", role: rolePeer, run: func(ctx context.Context) (sample, error) {
					return measure(ctx, proc{dir: e.bench, name: "node", args: append([]string{"sdk-client.mjs", "list", server}, serverArgs...), pidfile: pid})
				}})
			} else {
				skipped = append(skipped, sdkMissing)
			}
			if withInspector {
				build := filepath.Join(e.peers, "@modelcontextprotocol", "inspector-cli", "build")
				if _, err := os.Stat(filepath.Join(build, "cli.js")); err == nil {
					// Run from its build dir: inspector-cli 1.0.3 finds its own
					// package.json relative to the working directory.
					subs = append(subs, subject{name: "inspector-cli (resources/list only: one kind, one page per process)", role: rolePeer, run: func(ctx context.Context) (sample, error) {
						return measure(ctx, proc{dir: build, name: "node", args: append(append([]string{"index.js", server}, serverArgs...), "--method", "resources/list"), pidfile: pid})
					}})
				} else {
					skipped = append(skipped, "@modelcontextprotocol/inspector-cli: not installed")
				}
			}
			return subs, skipped, nil
		},
		notes: func(rows []Row) []string {
			howl, fl, sdk := rowOf(rows, "howl"), rowOf(rows, "floor"), rowOf(rows, "TypeScript")
			if howl == nil || fl == nil || sdk == nil || math.IsNaN(howl.Median+fl.Median+sdk.Median) {
				return nil
			}
			above := fmt.Sprintf("above the floor: howl %.0f ms, SDK script %.0f ms: howl/SDK = %.2f", (howl.Median-fl.Median)*1000, (sdk.Median-fl.Median)*1000, (howl.Median-fl.Median)/(sdk.Median-fl.Median))
			whole := fmt.Sprintf("whole process: SDK script / howl = %.2fx", sdk.Median/howl.Median)
			split := fmt.Sprintf("answer, then shutdown: howl %s + %s, SDK script %s + %s (the answer is the last byte written; the rest is closing the server)",
				fmtVal(howl.Work, "s"), fmtVal(howl.Median-howl.Work, "s"), fmtVal(sdk.Work, "s"), fmtVal(sdk.Median-sdk.Work, "s"))
			if withInspector { // the current server: the goal is above the floor
				return []string{above + met((howl.Median-fl.Median)/(sdk.Median-fl.Median) <= 1.0/3, " (goal <= 0.33)"), whole, split}
			}
			return []string{above, whole + met(sdk.Median/howl.Median >= 2, " (goal >= 2x)"), split,
				fmt.Sprintf("the answer alone: SDK script / howl = %.2fx", sdk.Work/howl.Work)}
		},
	}
}

// startupVersion is howl's start-up against a Go program's.
func startupVersion() comparison {
	return comparison{name: "startup-version", title: "Start-up: howl --version against a Go program that prints a line",
		goal: "howl --version within 20 ms", regime: cold,
		prepare: func(e *env) ([]subject, []string, func()) {
			return []subject{
				{name: "howl --version", role: roleHowl, run: func(ctx context.Context) (sample, error) {
					return measure(ctx, proc{dir: e.tmp, name: e.howl, args: []string{"--version"}})
				}},
				{name: "floor (a Go program printing a line)", role: roleFloor, run: func(ctx context.Context) (sample, error) {
					return measure(ctx, proc{dir: e.tmp, name: e.floor, args: []string{"version"}})
				}},
			}, nil, nil
		},
		notes: func(rows []Row) []string {
			if h := rowOf(rows, "howl"); h != nil {
				return []string{fmt.Sprintf("howl --version %s", fmtVal(h.Median, "s")) + met(h.Median <= 0.020, " (goal <= 20 ms)")}
			}
			return nil
		},
	}
}

func coldStartDemo() comparison {
	return comparison{name: "cold-start-demo", title: "Cold start to a full catalog: howl's embedded demo server (no config)",
		goal: "the whole `howl ls --json` within 40 ms, or half the time before", regime: cold,
		prepare: func(e *env) ([]subject, []string, func()) {
			home := filepath.Join(e.tmp, "home")
			_ = os.MkdirAll(home, 0o755)
			env := append(e.howlEnv("demo"), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "HOWL_CONFIG=")
			return []subject{
				{name: "howl ls --json", role: roleHowl, run: func(ctx context.Context) (sample, error) {
					return measure(ctx, proc{dir: home, env: env, name: e.howl, args: []string{"ls", "--json"}})
				}},
				{name: "floor (spawn howl demo-server, initialize, kill)", role: roleFloor, run: func(ctx context.Context) (sample, error) {
					return floorInit(ctx, e.howl, "demo-server")
				}},
			}, nil, nil
		},
		notes: func(rows []Row) []string {
			if h := rowOf(rows, "howl"); h != nil {
				return []string{fmt.Sprintf("howl ls --json on the demo %s", fmtVal(h.Median, "s")) + met(h.Median <= 0.040, " (goal <= 40 ms)")}
			}
			return nil
		},
	}
}

// oneItem compares one verb on one item of the plain demo (the
// reference) and of the demo with 120,000 items.
func oneItem(name, verb, title string, args ...string) comparison {
	return comparison{name: name, title: title + ": the demo with 120,000 items against the plain demo",
		goal: "at most 1.2x the plain demo: one item does not list the catalog", regime: cold,
		prepare: func(e *env) ([]subject, []string, func()) {
			plain, plainPid := e.demoConfig(name+"-plain", "s")
			big, bigPid := e.demoConfig(name+"-big", "s", "--scale", fmt.Sprint(bigScale))
			argv := append(append([]string{}, args...), "--json")
			return []subject{
				{name: fmt.Sprintf("howl %s, plain demo", verb), role: roleRef, run: e.howlRun(name, plain, plainPid, argv...)},
				{name: fmt.Sprintf("howl %s, demo --scale %d", verb, bigScale), role: roleHowl, run: e.howlRun(name, big, bigPid, argv...)},
			}, nil, nil
		},
		notes: func(rows []Row) []string {
			if len(rows) == 2 && rows[1].Ratio != nil {
				return []string{fmt.Sprintf("120,000 items / plain demo = %.2fx", *rows[1].Ratio) + met(*rows[1].Ratio <= 1.2, " (goal <= 1.2x)")}
			}
			return nil
		},
	}
}

// throughput compares calls per second of 2,000 echo calls on one stdio
// connection to howl's demo server, both sides warm.
func throughput(inflight int) comparison {
	const calls = 2000
	name := fmt.Sprintf("throughput-%d", inflight)
	return comparison{name: name, byValue: true, valueUnit: "calls/s", regime: warm,
		title: fmt.Sprintf("Request throughput: %d tools/call echo requests, %d in flight, one stdio connection (howl demo-server)", calls, inflight),
		goal:  "howl at least as fast as the TypeScript SDK client",
		prepare: func(e *env) ([]subject, []string, func()) {
			cfg := &mcp.Config{Servers: []mcp.ServerConfig{{Name: "demo", Transport: mcp.TransportStdio, Command: e.howl, Args: []string{"demo-server"}, Era: mcp.EraLegacy}}} // as howl configures its demo
			rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{CacheDir: filepath.Join(e.tmp, "cache-rt"), Spill: render.NewSpillStore(filepath.Join(e.tmp, "spill"))})
			_ = rt.Start()
			_ = rt.Wait(context.Background())
			subs := []subject{{name: "howl runtime (mcp_invoke_demo: schema check, call, bounding)", role: roleHowl, run: func(ctx context.Context) (sample, error) {
				return howlCalls(ctx, rt, calls, inflight)
			}}}
			var skipped []string
			if e.sdkReady() {
				subs = append(subs, subject{name: "TypeScript SDK client", role: rolePeer, run: func(ctx context.Context) (sample, error) {
					ctx, cancel := context.WithTimeout(ctx, runTimeout)
					defer cancel()
					// Warm as howl's runtime is: the same number of calls first, untimed.
					cmd := exec.CommandContext(ctx, "node", "sdk-client.mjs", "calls", fmt.Sprint(calls), fmt.Sprint(inflight), fmt.Sprint(calls), e.howl, "demo-server")
					cmd.Dir = e.bench
					out, err := cmd.Output()
					if err != nil {
						return sample{}, fmt.Errorf("sdk calls: %v", err)
					}
					var r struct {
						Seconds float64 `json:"seconds"`
						Rate    float64 `json:"calls_per_second"`
					}
					if err := json.Unmarshal(out, &r); err != nil {
						return sample{}, fmt.Errorf("sdk calls: %v: %s", err, out)
					}
					return sample{seconds: r.Seconds, value: r.Rate}, nil
				}})
			} else {
				skipped = append(skipped, sdkMissing)
			}
			return subs, skipped, func() { rt.Close() }
		},
	}
}

func howlCalls(ctx context.Context, rt *mcp.Runtime, calls, inflight int) (sample, error) {
	args := json.RawMessage(`{"tool":"echo","arguments":{"message":"hello"}}`)
	var mu sync.Mutex
	next := 0
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < inflight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= calls || firstErr != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				if _, err := rt.CallMeta(ctx, "mcp_invoke_demo", args); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if firstErr != nil {
		return sample{}, firstErr
	}
	return sample{seconds: secs, value: float64(calls) / secs}, nil
}

// scaleSizes are the catalog sizes of catalogScale: --scale N is 1.2 N items.
var scaleSizes = []int{10_000, 30_000, bigScale}

func catalogScale() comparison {
	return comparison{name: "catalog-scale", regime: cold,
		title: "Catalog scale: howl demo-server --scale N (N resources, N/10 tools and prompts, pages of 100); floor: each page decoded once, items printed",
		goal:  "at N = 100,000: ls --json within 1.5x the floor's time and 2x its client memory; search's own work (search - ls) within 1.5 s",
		prepare: func(e *env) ([]subject, []string, func()) {
			var subs []subject
			for _, n := range scaleSizes {
				name := fmt.Sprintf("scale%d", n)
				cfg, pid := e.demoConfig(name, name, "--scale", fmt.Sprint(n))
				subs = append(subs,
					subject{name: fmt.Sprintf("howl ls --json, N=%d", n), role: roleHowl, run: e.howlRun("scale", cfg, pid, "ls", "--json")},
					subject{name: fmt.Sprintf("floor (list every page, print), N=%d", n), role: roleFloor, run: func(ctx context.Context) (sample, error) {
						cmd, argv := e.detached(pid, e.howl, "demo-server", "--scale", fmt.Sprint(n))
						return measure(ctx, proc{dir: e.tmp, name: e.floor, args: append([]string{"list", cmd}, argv...), pidfile: pid})
					}},
					subject{name: fmt.Sprintf("howl search (list + rank), N=%d", n), role: roleHowl, run: e.howlRun("scale", cfg, pid, "search", name, "note retry", "--json")})
			}
			return subs, nil, nil
		},
		notes: func(rows []Row) []string {
			var out []string
			at := func(kind string, n int) *Row { return rowOf(rows, fmt.Sprintf("%s, N=%d", kind, n)) }
			for _, kind := range []string{"howl ls --json", "floor (list every page, print)", "howl search (list + rank)"} {
				var xs, ys, ms []float64
				for _, n := range scaleSizes {
					if r := at(kind, n); r != nil && !math.IsNaN(r.Median) {
						xs = append(xs, math.Log(float64(n)))
						ys = append(ys, math.Log(r.Median))
						if r.PeakMB != nil {
							ms = append(ms, math.Log(*r.PeakMB))
						}
					}
				}
				lo, hi := at(kind, scaleSizes[0]), at(kind, bigScale)
				if len(xs) < 2 || lo == nil || hi == nil {
					continue
				}
				items := 1.2 * float64(bigScale-scaleSizes[0])
				line := fmt.Sprintf("%s: time grows as N^%.2f, %.1f µs an item", kind, slope(xs, ys), (hi.Median-lo.Median)/items*1e6)
				if len(ms) == len(xs) && hi.PeakMB != nil && lo.PeakMB != nil {
					line += fmt.Sprintf("; client peak RSS as N^%.2f, %.0f bytes an item", slope(xs, ms), (*hi.PeakMB-*lo.PeakMB)*(1<<20)/items)
				}
				out = append(out, line+fmt.Sprintf(" (fitted over N = %d to %d; the per-item cost is the difference of the two ends)", scaleSizes[0], bigScale))
			}
			ls, fl, search := at("howl ls --json", bigScale), at("floor (list every page, print)", bigScale), at("howl search (list + rank)", bigScale)
			if ls != nil && fl != nil && !math.IsNaN(ls.Median+fl.Median) {
				t := ls.Median / fl.Median
				line := fmt.Sprintf("N=%d: ls --json / floor = %.2fx in time", bigScale, t) + met(t <= 1.5, " (goal <= 1.5x)")
				if ls.PeakMB != nil && fl.PeakMB != nil {
					m := *ls.PeakMB / *fl.PeakMB
					line += fmt.Sprintf("; %.2fx in client peak RSS (%.0f MB against %.0f MB)", m, *ls.PeakMB, *fl.PeakMB) + met(m <= 2, " (goal <= 2x)")
				}
				out = append(out, line)
			}
			if ls != nil && search != nil && !math.IsNaN(ls.Median+search.Median) {
				own := search.Median - ls.Median
				line := fmt.Sprintf("N=%d: search %s, of which beyond the listing (index and ranking) %s", bigScale, fmtVal(search.Median, "s"), fmtVal(own, "s"))
				if own < 0 {
					// Two noisy medians: the difference says nothing.
					line = fmt.Sprintf("N=%d: search %s, below ls --json's %s: its own work is within this run's noise (BenchmarkSearch100k measures it)", bigScale, fmtVal(search.Median, "s"), fmtVal(ls.Median, "s"))
				} else {
					line += met(own <= 1.5, " (goal <= 1.5 s)")
				}
				out = append(out, line)
			}
			return out
		},
	}
}

func met(ok bool, goal string) string {
	if ok {
		return goal + ": met"
	}
	return goal + ": NOT met"
}

// slope is the least-squares slope of ys on xs.
func slope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	return num / den
}

// base64Size is the base64 length of n bytes.
func base64Size(n int) float64 { return float64((n + 2) / 3 * 4) }

// bigRead reads a big resource: with page > 0 both sides keep its first
// page of text; with 0, the blob is decoded and written out (the floor
// streams it without holding the answer).
func bigRead(name, title, uri string, page int) comparison {
	goal := "report time and peak RSS of each client, its server's apart"
	if page == 0 {
		goal = "howl's client peak RSS within 2x the blob's base64 size, and its time within 2x the streaming floor's"
	}
	return comparison{name: name, title: title, goal: goal, regime: cold,
		prepare: func(e *env) ([]subject, []string, func()) {
			cfg, pid := e.demoConfig(name, name, "--big")
			subs := []subject{{name: "howl read --json", role: roleHowl, run: e.howlRun(name, cfg, pid, "read", name, uri, "--json")}}
			out := filepath.Join(e.tmp, name+".out")
			if page == 0 {
				subs = append(subs, subject{name: "floor (stream the base64 to a file)", role: roleFloor, run: func(ctx context.Context) (sample, error) {
					cmd, argv := e.detached(pid, e.howl, "demo-server", "--big")
					return measure(ctx, proc{dir: e.tmp, name: e.floor, args: append([]string{"read", uri, out, cmd}, argv...), pidfile: pid})
				}})
			}
			var skipped []string
			if e.sdkReady() {
				sdk := subject{name: "TypeScript SDK client (read, write out)", role: rolePeer, run: func(ctx context.Context) (sample, error) {
					cmd, argv := e.detached(pid, e.howl, "demo-server", "--big")
					return measure(ctx, proc{dir: e.bench, name: "node", args: append([]string{"sdk-client.mjs", "read", uri, out, fmt.Sprint(page), cmd}, argv...), pidfile: pid})
				}}
				if page == 0 {
					// The SDK's read buffer is quadratic in a line's length:
					// a minute or more a run, so once.
					sdk.name, sdk.once = "TypeScript SDK client (read, write out; one run)", true
				}
				subs = append(subs, sdk)
			} else {
				skipped = append(skipped, sdkMissing)
			}
			return subs, skipped, nil
		},
		notes: func(rows []Row) []string {
			howl, fl := rowOf(rows, "howl"), rowOf(rows, "floor")
			if page != 0 || howl == nil || fl == nil || howl.PeakMB == nil || math.IsNaN(howl.Median+fl.Median) {
				return nil
			}
			b64 := base64Size(demo.BigBlobSize) / (1 << 20)
			return []string{
				fmt.Sprintf("howl's client peak %.0f MB = %.2fx the %.1f MiB of base64", *howl.PeakMB, *howl.PeakMB/b64, b64) + met(*howl.PeakMB <= 2*b64, " (goal <= 2x)"),
				fmt.Sprintf("howl / streaming floor = %.2fx in time", howl.Median/fl.Median) + met(howl.Median <= 2*fl.Median, " (goal <= 2x)"),
			}
		},
	}
}

// contextEconomy is not timed: it reports declaration bytes per server.
func contextEconomy() comparison {
	var lines []string
	return comparison{name: "context-economy", title: "Context economy: declaration bytes per server, howl's meta-functions vs one declaration per tool",
		prepare: func(e *env) ([]subject, []string, func()) {
			lines = nil
			servers := []mcp.ServerConfig{
				{Name: "demo", Transport: mcp.TransportStdio, Command: e.howl, Args: []string{"demo-server"}},
				{Name: "demo-scale-1000", Transport: mcp.TransportStdio, Command: e.howl, Args: []string{"demo-server", "--scale", "1000"}},
				{Name: "demo-scale-10000", Transport: mcp.TransportStdio, Command: e.howl, Args: []string{"demo-server", "--scale", "10000"}},
			}
			var skipped []string
			add := func(name, pkg string, args ...string) {
				if s, ok := e.peerScript(pkg); ok {
					servers = append(servers, mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: "node", Args: append([]string{s}, args...),
						Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(e.tmp, "memory.jsonl")}})
				} else {
					skipped = append(skipped, pkg+": not installed")
				}
			}
			add("everything", "@modelcontextprotocol/server-everything", "stdio")
			add("everything-2025", "server-everything-2025", "stdio")
			add("filesystem", "@modelcontextprotocol/server-filesystem", e.tmp)
			add("memory", "@modelcontextprotocol/server-memory")
			rt := mcp.NewRuntime(&mcp.Config{Servers: servers}, mcp.RuntimeOptions{CacheDir: filepath.Join(e.tmp, "cache-economy")})
			defer rt.Close()
			_ = rt.Start()
			_ = rt.Wait(context.Background())
			lines = append(lines, "server | tools | howl functions | howl bytes | one-per-tool bytes | ratio")
			for _, f := range rt.ServerFeatures() {
				cat, err := rt.Catalog(context.Background(), f.Name, false)
				if err != nil {
					continue
				}
				ec := mcp.ContextEconomy(f, cat)
				lines = append(lines, fmt.Sprintf("%s | %d | %d | %d | %d | %.1fx", ec.Server, ec.Tools, ec.MetaFunctions, ec.MetaBytes, ec.PerToolBytes, ec.Ratio))
			}
			return nil, skipped, nil
		},
		notes: func([]Row) []string { return lines },
	}
}

// uiFrames collects the TUI's View() benchmarks.
func uiFrames() comparison {
	var lines []string
	return comparison{name: "ui-frames", title: "UI frame cost: the TUI's View() benchmarks (budget 5 ms a frame)",
		prepare: func(e *env) ([]subject, []string, func()) {
			lines = nil
			if _, err := os.Stat(filepath.Join(e.repo, "tui")); err != nil {
				return nil, []string{"no tui package yet"}, nil
			}
			cmd := exec.Command("go", "test", "-run", "^$", "-bench", "View", "-benchtime", "100x", "./tui/...")
			cmd.Dir = e.repo
			out, err := cmd.CombinedOutput()
			re := regexp.MustCompile(`^(Benchmark\S+)\s+\d+\s+([\d.]+) ns/op`)
			for _, l := range strings.Split(string(out), "\n") {
				if m := re.FindStringSubmatch(l); m != nil {
					var ns float64
					fmt.Sscan(m[2], &ns)
					lines = append(lines, fmt.Sprintf("%s: %.2f ms a frame", m[1], ns/1e6))
				}
			}
			if len(lines) == 0 {
				return nil, []string{fmt.Sprintf("no View benchmarks ran in ./tui (%v)", err)}, nil
			}
			return nil, nil, nil
		},
		notes: func([]Row) []string { return lines },
	}
}
