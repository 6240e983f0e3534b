package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func loadJSON(t *testing.T, wantCode int, args ...string) loadReport {
	t.Helper()
	out, errOut, code := howl(t, append([]string{"load", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d\nstdout %.1000s\nstderr %s", code, wantCode, out, errOut)
	}
	if !strings.HasPrefix(out, "{\n  \"coverage\":") {
		t.Errorf("coverage does not lead: %.80s", out)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// checkLoad checks a clean run's report: every call ok, the percentiles in
// order, a throughput, and the server's memory where the platform says.
func checkLoad(t *testing.T, rep loadReport, n, c int) {
	t.Helper()
	l := rep.Latency
	t.Logf("%s; latency ms %+v; %.0f calls/s; memory %+v %s", rep.Coverage, l, rep.PerSecond, rep.Memory, rep.MemoryNote)
	if rep.Calls != n || rep.OK != n || rep.Concurrency != c || rep.Errors+rep.ToolErrors != 0 {
		t.Errorf("calls %d ok %d at %d, errors %d+%d", rep.Calls, rep.OK, rep.Concurrency, rep.Errors, rep.ToolErrors)
	}
	if !(0 < l.Min && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max && l.Min <= l.Mean && l.Mean <= l.Max) || rep.PerSecond <= 0 {
		t.Errorf("latencies out of order or no throughput: %+v, %.1f/s", l, rep.PerSecond)
	}
	if runtime.GOOS == "linux" && (rep.Memory == nil || rep.Memory.Before <= 0 || rep.Memory.After <= 0 || rep.Memory.Delta != rep.Memory.After-rep.Memory.Before) {
		t.Errorf("the server's memory was not measured: %+v %s", rep.Memory, rep.MemoryNote)
	}
}

func TestLoadCallsTheDemoNTimesAndReportsPercentilesThroughputAndMemory(t *testing.T) {
	home := isolate(t)
	// The demo as a process of its own: the built-in one runs inside howl.
	exe, _ := os.Executable()
	cfg := filepath.Join(home, "demo.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"demo":{"command":"`+exe+`","args":["demo-server"]}}}`), 0o600)
	checkLoad(t, loadJSON(t, exitOK, "--config", cfg, "demo", "echo", "message=load", "--n", "60", "--concurrency", "4"), 60, 4)
	out, _, code := howl(t, "--config", cfg, "load", "demo", "echo", "message=load", "--n", "5")
	if code != exitOK || !strings.Contains(out, "latency ms: min ") || !strings.Contains(out, " · p99 ") || !strings.Contains(out, "calls/s") || !strings.Contains(out, "server memory: ") {
		t.Errorf("the text report: exit %d\n%s", code, out)
	}
}

// The built-in demo runs inside howl's process: its memory is not told
// apart, and the report says why instead of measuring howl's own.
func TestLoadOnTheBuiltInDemoSaysItsMemoryIsHowls(t *testing.T) {
	isolate(t)
	rep := loadJSON(t, exitOK, "demo", "echo", "message=load", "--n", "5")
	if rep.Memory != nil || !strings.Contains(rep.MemoryNote, "runs inside howl's own process") {
		t.Errorf("memory %+v, note %q", rep.Memory, rep.MemoryNote)
	}
}

func TestLoadCountsToolErrorsApartAndExitsOne(t *testing.T) {
	isolate(t)
	rep := loadJSON(t, exitServer, "demo", "fail", "--n", "12", "-c", "3")
	if rep.ToolErrors != 12 || rep.Errors != 0 || rep.OK != 0 || len(rep.ErrorKinds) != 1 || rep.ErrorKinds[0].Count != 12 {
		t.Errorf("report %+v", rep)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "echo", "--n", "0"}, fmt.Sprintf("give 1 to %d calls (MaxLoadCalls)", MaxLoadCalls)},
		{[]string{"demo", "echo", "-c", "1000"}, fmt.Sprintf("give 1 to %d (MaxLoadConcurrency)", MaxLoadConcurrency)},
		{[]string{"demo", "no-such-tool"}, "no-such-tool"},
	} {
		if _, errOut, code := howl(t, append([]string{"load"}, c.args...)...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("howl load %v: exit %d %q, want usage naming %q", c.args, code, errOut, c.want)
		}
	}
}

func TestLatenciesAreNearestRankPercentiles(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := latencies(d)
	want := loadLatency{Min: 1, Mean: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}
	if got != want {
		t.Errorf("latencies = %+v, want %+v", got, want)
	}
}

func TestInteropLoadOfServerEverythingEcho(t *testing.T) {
	nm := os.Getenv("HOWL_INTEROP_DIR")
	if nm == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./cmd/howl -run Interop")
	}
	dir := isolate(t)
	cfg := filepath.Join(dir, "mcp.json")
	script := filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}}}`, script)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOWL_CONFIG", cfg)
	checkLoad(t, loadJSON(t, exitOK, "everything", "echo", "message=load", "--n", "200", "-c", "8"), 200, 8)
}
