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
	"github.com/howl-mcp/howl/render"
)

// runTimeout bounds every measured process: a hung peer fails its run, it
// does not hang the benchmark.
const runTimeout = 2 * time.Minute

func comparisons() []comparison {
	return []comparison{
		coldStart("cold-start-everything", "Cold start to a full catalog: server-everything 2026.8.31 (whole process)",
			"@modelcontextprotocol/server-everything",
			"howl's time above the floor at most one third of the SDK script's time above the floor", true),
		coldStart("cold-start-everything-2025", "Cold start to a full catalog: server-everything 2025.11.25, which never exits on stdin EOF",
			"server-everything-2025", "howl at least 2x faster than the SDK script, whole process", false),
		coldStartDemo(),
		throughput(1), throughput(8),
		catalogScale(),
		bigRead("big-read-blob", "Reading a 50 MiB blob resource (read and spilled / written out)", "demo://big/blob-50m"),
		bigRead("big-read-text", "Reading a 20 MiB text resource (howl: the first page, bounded; SDK: the whole text written out)", "demo://big/text-20m"),
		contextEconomy(),
		functionShapes(),
		uiFrames(),
	}
}

// measure runs a command to completion and reports its wall time and peak RSS.
func measure(ctx context.Context, dir string, env []string, name string, args ...string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = nil
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, firstLine(stderr.String()))
	}
	return sample{seconds: took.Seconds(), rssMB: peakRSSMB(cmd.ProcessState)}, nil
}

// floor spawns a server, does one initialize round trip and kills it: no
// client can beat it.
func floor(ctx context.Context, name string, args ...string) (sample, error) {
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

// writeConfig writes a one-server howl config and returns its path.
func (e *env) writeConfig(name, command string, args ...string) string {
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": command, "args": args}}})
	p := filepath.Join(e.tmp, name+".json")
	_ = os.WriteFile(p, b, 0o644)
	return p
}

// howlEnv isolates howl's cache (spills, learned eras, logs) per comparison.
func (e *env) howlEnv(tag string) []string {
	return []string{"HOWL_CACHE_DIR=" + filepath.Join(e.tmp, "cache-"+tag)}
}

func coldStart(name, title, pkg, goal string, withInspector bool) comparison {
	return comparison{name: name, title: title, goal: goal,
		prepare: func(e *env) ([]subject, []string, func()) {
			script, ok := e.peerScript(pkg)
			if !ok {
				return nil, []string{pkg + ": not installed (run: cd .ci/interop && npm ci)"}, nil
			}
			cfg := e.writeConfig("everything", "node", script, "stdio")
			subs := []subject{
				{"howl ls --json", func(ctx context.Context) (sample, error) {
					return measure(ctx, e.tmp, e.howlEnv(name), e.howl, "--config", cfg, "ls", "--json")
				}},
				{"floor (spawn, initialize, kill)", func(ctx context.Context) (sample, error) { return floor(ctx, "node", script, "stdio") }},
			}
			var skipped []string
			if e.sdkReady() {
				subs = append(subs, subject{"TypeScript SDK script", func(ctx context.Context) (sample, error) {
					return measure(ctx, e.bench, nil, "node", "sdk-client.mjs", "list", "node", script, "stdio")
				}})
			} else {
				skipped = append(skipped, sdkMissing)
			}
			if withInspector {
				build := filepath.Join(e.peers, "@modelcontextprotocol", "inspector-cli", "build")
				if _, err := os.Stat(filepath.Join(build, "cli.js")); err == nil {
					// Run from its build dir: inspector-cli 1.0.3 finds its own
					// package.json relative to the working directory.
					subs = append(subs, subject{"inspector-cli (resources/list only: one kind, one page per process)", func(ctx context.Context) (sample, error) {
						return measure(ctx, build, nil, "node", "index.js", "node", script, "stdio", "--method", "resources/list")
					}})
				} else {
					skipped = append(skipped, "@modelcontextprotocol/inspector-cli: not installed")
				}
			}
			return subs, skipped, nil
		},
		notes: func(rows []Row) []string {
			var howl, fl, sdk float64 = math.NaN(), math.NaN(), math.NaN()
			for _, r := range rows {
				switch {
				case strings.HasPrefix(r.Subject, "howl"):
					howl = r.Median
				case strings.HasPrefix(r.Subject, "floor"):
					fl = r.Median
				case strings.HasPrefix(r.Subject, "TypeScript"):
					sdk = r.Median
				}
			}
			if math.IsNaN(howl) || math.IsNaN(fl) || math.IsNaN(sdk) {
				return nil
			}
			above := fmt.Sprintf("above the floor: howl %.0f ms, SDK script %.0f ms: howl/SDK = %.2f", (howl-fl)*1000, (sdk-fl)*1000, (howl-fl)/(sdk-fl))
			whole := fmt.Sprintf("whole process: SDK script / howl = %.2fx", sdk/howl)
			if withInspector { // the current server: the goal is above the floor
				return []string{above + met((howl-fl)/(sdk-fl) <= 1.0/3, " (goal <= 0.33)"), whole}
			}
			return []string{above, whole + met(sdk/howl >= 2, " (goal >= 2x)")}
		},
	}
}

func coldStartDemo() comparison {
	return comparison{name: "cold-start-demo", title: "Cold start to a full catalog: howl's embedded demo server (no config)",
		goal: "the whole `howl ls --json` under 100 ms",
		prepare: func(e *env) ([]subject, []string, func()) {
			home := filepath.Join(e.tmp, "home")
			_ = os.MkdirAll(home, 0o755)
			env := append(e.howlEnv("demo"), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "HOWL_CONFIG=")
			return []subject{
				{"howl ls --json", func(ctx context.Context) (sample, error) { return measure(ctx, home, env, e.howl, "ls", "--json") }},
				{"floor (spawn howl demo-server, initialize, kill)", func(ctx context.Context) (sample, error) {
					return floor(ctx, e.howl, "demo-server")
				}},
			}, nil, nil
		},
	}
}

// throughput compares calls per second of 2,000 echo calls on one stdio
// connection to howl's demo server.
func throughput(inflight int) comparison {
	const calls = 2000
	name := fmt.Sprintf("throughput-%d", inflight)
	return comparison{name: name, byValue: true, valueUnit: "calls/s",
		title: fmt.Sprintf("Request throughput: %d tools/call echo requests, %d in flight, one stdio connection (howl demo-server)", calls, inflight),
		goal:  "howl at least as fast as the TypeScript SDK client",
		prepare: func(e *env) ([]subject, []string, func()) {
			cfg := &mcp.Config{Servers: []mcp.ServerConfig{{Name: "demo", Transport: mcp.TransportStdio, Command: e.howl, Args: []string{"demo-server"}, Era: mcp.EraLegacy}}} // as howl configures its demo
			rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{CacheDir: filepath.Join(e.tmp, "cache-rt"), Spill: render.NewSpillStore(filepath.Join(e.tmp, "spill"))})
			_ = rt.Start()
			_ = rt.Wait(context.Background())
			subs := []subject{{"howl runtime (mcp_invoke_demo: schema check, call, bounding)", func(ctx context.Context) (sample, error) {
				return howlCalls(ctx, rt, calls, inflight)
			}}}
			var skipped []string
			if e.sdkReady() {
				subs = append(subs, subject{"TypeScript SDK client", func(ctx context.Context) (sample, error) {
					ctx, cancel := context.WithTimeout(ctx, runTimeout)
					defer cancel()
					cmd := exec.CommandContext(ctx, "node", "sdk-client.mjs", "calls", fmt.Sprint(calls), fmt.Sprint(inflight), e.howl, "demo-server")
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

func catalogScale() comparison {
	sizes := []int{1000, 10000, 100000}
	return comparison{name: "catalog-scale", title: "Catalog scale: howl demo-server --scale N (N resources, N/10 tools and prompts, pages of 100)",
		goal: "time and memory to list everything and to search grow linearly or better in N",
		prepare: func(e *env) ([]subject, []string, func()) {
			var subs []subject
			for _, n := range sizes {
				cfg := e.writeConfig(fmt.Sprintf("scale%d", n), e.howl, "demo-server", "--scale", fmt.Sprint(n))
				name := fmt.Sprintf("scale%d", n)
				subs = append(subs,
					subject{fmt.Sprintf("howl ls --json, N=%d", n), func(ctx context.Context) (sample, error) {
						return measure(ctx, e.tmp, e.howlEnv("scale"), e.howl, "--config", cfg, "ls", "--json")
					}},
					subject{fmt.Sprintf("howl search (list + rank), N=%d", n), func(ctx context.Context) (sample, error) {
						return measure(ctx, e.tmp, e.howlEnv("scale"), e.howl, "--config", cfg, "search", name, "note retry", "--json")
					}})
			}
			return subs, nil, nil
		},
		notes: func(rows []Row) []string {
			var out []string
			for _, kind := range []string{"howl ls", "howl search"} {
				var xs, ys, ms []float64
				for i, r := range rows {
					if strings.HasPrefix(r.Subject, kind) && !math.IsNaN(r.Median) {
						xs = append(xs, math.Log(float64(sizes[i/2])))
						ys = append(ys, math.Log(r.Median))
						if r.PeakMB != nil {
							ms = append(ms, math.Log(*r.PeakMB))
						}
					}
				}
				if len(xs) >= 2 {
					line := fmt.Sprintf("%s: time grows as N^%.2f", kind, slope(xs, ys))
					if len(ms) == len(xs) {
						line += fmt.Sprintf(", peak RSS as N^%.2f", slope(xs, ms))
					}
					out = append(out, line+" (fitted over N = 1,000 to 100,000; 1.00 is linear)")
				}
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

func bigRead(name, title, uri string) comparison {
	return comparison{name: name, title: title, goal: "report time and peak RSS of each client process",
		prepare: func(e *env) ([]subject, []string, func()) {
			cfg := e.writeConfig("big", e.howl, "demo-server", "--big")
			subs := []subject{{"howl read --json", func(ctx context.Context) (sample, error) {
				return measure(ctx, e.tmp, e.howlEnv(name), e.howl, "--config", cfg, "read", "big", uri, "--json")
			}}}
			var skipped []string
			if e.sdkReady() {
				out := filepath.Join(e.tmp, name+".out")
				subs = append(subs, subject{"TypeScript SDK client (read, write out)", func(ctx context.Context) (sample, error) {
					return measure(ctx, e.bench, nil, "node", "sdk-client.mjs", "read", uri, out, e.howl, "demo-server", "--big")
				}})
			} else {
				skipped = append(skipped, sdkMissing)
			}
			return subs, skipped, nil
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
