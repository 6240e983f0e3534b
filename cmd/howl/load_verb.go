package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// The bounds of howl load.
const (
	// MaxLoadCalls bounds --n.
	MaxLoadCalls = 1_000_000
	// MaxLoadConcurrency bounds --concurrency.
	MaxLoadConcurrency = 256
	// maxLoadErrorKinds bounds the distinct error messages a report keeps.
	maxLoadErrorKinds = 5
)

// loadLatency is the latency distribution of a load run, in milliseconds.
type loadLatency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// loadMemory is the server's resident memory before and after the run.
type loadMemory struct {
	Before int64  `json:"before_bytes"`
	After  int64  `json:"after_bytes"`
	Delta  int64  `json:"delta_bytes"`
	How    string `json:"how"`
}

// loadError is one kind of failure and how often it happened.
type loadError struct {
	Count   int    `json:"count"`
	Message string `json:"message"`
}

// loadReport is `howl load --json`: coverage first.
type loadReport struct {
	Coverage    string  `json:"coverage"`
	Server      string  `json:"server"`
	Tool        string  `json:"tool"`
	Calls       int     `json:"calls"`
	Concurrency int     `json:"concurrency"`
	OK          int     `json:"ok"`
	Errors      int     `json:"errors"`
	ToolErrors  int     `json:"tool_errors"`
	WallMS      float64 `json:"wall_ms"`
	PerSecond   float64 `json:"calls_per_second"`
	// Latency covers every call, failed ones included.
	Latency loadLatency `json:"latency_ms"`
	// Memory is null when the server is not a local process or the
	// platform does not say; MemoryNote says why.
	Memory     *loadMemory `json:"server_memory"`
	MemoryNote string      `json:"server_memory_note,omitempty"`
	// ErrorKinds are the first few distinct failures with their counts.
	ErrorKinds []loadError `json:"error_kinds,omitempty"`
}

func newLoadCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	var n, conc int
	var argsJSON string
	cmd := &cobra.Command{
		Use:   "load SERVER TOOL [k=v ... | --args JSON] [--n N] [--concurrency C]",
		Short: "Call a tool N times, C at a time: latency percentiles, throughput, errors, the server's memory",
		Long: `load calls a tool N times with C calls in flight, through the path howl call
and the model use (arguments checked, results bounded), and reports latency
(min, mean, p50, p90, p99, max), calls per second, errors (protocol errors
and results marked isError, counted apart) and, for a server howl started as
a local process, the resident memory of its process group before and after.

Exit 1 when a call failed.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, -1)
			if err != nil {
				return err
			}
			switch {
			case n < 1 || n > MaxLoadCalls:
				return usagef("--n %d: give 1 to %d calls (MaxLoadCalls)", n, MaxLoadCalls)
			case conc < 1 || conc > MaxLoadConcurrency:
				return usagef("--concurrency %d: give 1 to %d (MaxLoadConcurrency)", conc, MaxLoadConcurrency)
			case argsJSON != "" && len(args) > 2:
				return usagef("give the arguments as k=v pairs or as --args JSON, not both")
			}
			s, err := open(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			defer s.close()
			server, tool := args[0], args[1]
			toolArgs, err := toolArguments(cmd.Context(), s, server, tool, argsJSON, args[2:])
			if err != nil {
				return err
			}
			call, _ := json.Marshal(map[string]any{"tool": tool, "arguments": toolArgs})
			// One call first: a mistake in the arguments is a usage error
			// said once, not N times.
			if _, err := callMeta(cmd.Context(), s, mcp.PrefixInvoke, server, json.RawMessage(call)); err != nil {
				var ue usageError
				if errors.As(err, &ue) {
					return err
				}
			}
			rep := runLoad(cmd.Context(), s.rt, server, tool, call, n, conc)
			if asJSON {
				if err := writeJSON(stdout, rep); err != nil {
					return err
				}
			} else {
				printLoad(stdout, rep)
			}
			if failed := rep.Errors + rep.ToolErrors; failed > 0 {
				return fmt.Errorf("%d of %d calls failed", failed, rep.Calls)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&n, "n", 100, fmt.Sprintf("how many calls (1 to %d)", MaxLoadCalls))
	cmd.Flags().IntVarP(&conc, "concurrency", "c", 1, fmt.Sprintf("how many calls in flight at once (1 to %d)", MaxLoadConcurrency))
	cmd.Flags().StringVar(&argsJSON, "args", "", "the arguments as one JSON object")
	return cmd
}

// runLoad makes n calls, conc at a time, and measures them.
func runLoad(ctx context.Context, rt *mcp.Runtime, server, tool string, call []byte, n, conc int) loadReport {
	rep := loadReport{Server: server, Tool: tool, Calls: n, Concurrency: conc}
	pid, pidErr := rt.ServerPID(server)
	var before int64
	var how string
	memErr := pidErr
	if pidErr == nil {
		before, how, memErr = groupRSS(pid)
	}
	lat := make([]time.Duration, n)
	type outcome struct {
		isErr, toolErr bool
		msg            string
	}
	outs := make([]outcome, n)
	next := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				out, err := rt.CallMeta(ctx, mcp.PrefixInvoke+mcp.FunctionSuffix(server), call)
				lat[i] = time.Since(start)
				switch {
				case err != nil:
					outs[i] = outcome{isErr: true, msg: err.Error()}
				default:
					var res struct {
						IsError bool `json:"isError"`
					}
					if json.Unmarshal(out, &res) == nil && res.IsError {
						outs[i] = outcome{toolErr: true, msg: "the tool reported an error (isError)"}
					}
				}
			}
		}()
	}
	sent := 0
send:
	for ; sent < n; sent++ {
		select {
		case next <- sent:
		case <-ctx.Done():
			break send
		}
	}
	close(next)
	wg.Wait()
	wall := time.Since(began)
	lat, outs = lat[:sent], outs[:sent]
	rep.Calls = sent

	kinds := map[string]int{}
	var order []string
	for _, o := range outs {
		switch {
		case o.isErr:
			rep.Errors++
		case o.toolErr:
			rep.ToolErrors++
		default:
			rep.OK++
			continue
		}
		msg := render.Ellipsize(o.msg, 300)
		if _, seen := kinds[msg]; !seen {
			order = append(order, msg)
		}
		kinds[msg]++
	}
	for _, m := range order[:min(len(order), maxLoadErrorKinds)] {
		rep.ErrorKinds = append(rep.ErrorKinds, loadError{Count: kinds[m], Message: m})
	}
	rep.WallMS = ms(wall)
	if wall > 0 {
		rep.PerSecond = float64(sent) / wall.Seconds()
	}
	rep.Latency = latencies(lat)

	if memErr == nil {
		after, _, err := groupRSS(pid)
		if err == nil {
			rep.Memory = &loadMemory{Before: before, After: after, Delta: after - before, How: how}
		} else {
			memErr = err
		}
	}
	if memErr != nil {
		rep.MemoryNote = "not measured: " + memErr.Error()
	}
	rep.Coverage = fmt.Sprintf("%d calls of %s on %s, %d at a time: %d ok, %d errors, %d tool errors", rep.Calls, tool, server, conc, rep.OK, rep.Errors, rep.ToolErrors)
	if sent < n {
		rep.Coverage += fmt.Sprintf(" (stopped after %d of %d: cancelled)", sent, n)
	}
	return rep
}

// latencies summarizes durations: min, mean, nearest-rank percentiles, max.
func latencies(d []time.Duration) loadLatency {
	if len(d) == 0 {
		return loadLatency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1 // nearest rank
		return s[min(max(i, 0), len(s)-1)]
	}
	return loadLatency{Min: ms(s[0]), Mean: ms(sum / time.Duration(len(s))), P50: ms(rank(0.50)), P90: ms(rank(0.90)), P99: ms(rank(0.99)), Max: ms(s[len(s)-1])}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printLoad(w io.Writer, r loadReport) {
	fmt.Fprintln(w, clean(r.Coverage))
	l := r.Latency
	fmt.Fprintf(w, "latency ms: min %.3f · mean %.3f · p50 %.3f · p90 %.3f · p99 %.3f · max %.3f\n", l.Min, l.Mean, l.P50, l.P90, l.P99, l.Max)
	fmt.Fprintf(w, "throughput: %.1f calls/s over %.0f ms\n", r.PerSecond, r.WallMS)
	if m := r.Memory; m != nil {
		fmt.Fprintf(w, "server memory: %s before, %s after (%+d bytes; %s)\n", render.HumanBytes(m.Before), render.HumanBytes(m.After), m.Delta, m.How)
	} else {
		fmt.Fprintf(w, "server memory: %s\n", clean(r.MemoryNote))
	}
	for _, e := range r.ErrorKinds {
		fmt.Fprintf(w, "  %d× %s\n", e.Count, clean(e.Message))
	}
}
