package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/mcptest"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// legacySSEServer is an old (2024-11-05) HTTP+SSE fixture: mcp-go's
// server answers every message, and the fixture frames the transport by
// hand (GET /sse is the one event stream, which names /message as where
// to POST), so that it can write on the stream what a hostile server
// would: "huge-sse" is answered there with a hugeMessageBytes message,
// "hang" never, "storm" with one event of stormLines data lines, and
// "split" with one event of 2 × MaxEventDataRuns runs of data lines.
type legacySSEServer struct {
	url    string
	ms     *server.MCPServer
	events chan func(io.Writer) // run by the stream, one at a time
	hung   chan struct{}        // closed when a "hang" call came
	done   chan struct{}        // closed at the test's end
	once   sync.Once
	// stormLines is how many data lines "storm" answers with.
	stormLines int
	// endless gets what the POST of an "endless" call wrote
	// (writeEndless), once its writes stopped.
	endless chan int64
}

func newLegacySSEServer(t testing.TB) *legacySSEServer {
	t.Helper()
	s := &legacySSEServer{events: make(chan func(io.Writer), 16), hung: make(chan struct{}), done: make(chan struct{}), endless: make(chan int64, 1)}
	s.ms = server.NewMCPServer("old", "1.0", server.WithToolCapabilities(false))
	for _, name := range []string{"echo", "hang", "huge-sse", "storm", "split", "big", "endless"} {
		s.ms.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("called " + name), nil
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	// Cleanups run last first: the stream's handler ends, then the server.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(s.done) })
	s.url = srv.URL + "/sse"
	return s
}

func (s *legacySSEServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /message\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case f := <-s.events:
				f(w)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/message":
		body, _ := io.ReadAll(r.Body)
		var msg fixtureMessage
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" && msg.Params.Name == "endless" {
			s.endless <- writeEndless(w)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		var f func(io.Writer)
		switch {
		case msg.Method == "tools/call" && msg.Params.Name == "hang":
			s.once.Do(func() { close(s.hung) })
			return
		case msg.Method == "tools/call" && msg.Params.Name == "huge-sse":
			f = func(w io.Writer) { writeHuge(headerless{w}, msg.ID, true) }
		case msg.Method == "tools/call" && msg.Params.Name == "storm":
			f = func(w io.Writer) { writeStorm(w, msg.ID, s.stormLines, false) }
		case msg.Method == "tools/call" && msg.Params.Name == "big":
			f = func(w io.Writer) { writeAnswerOf(headerless{w}, msg.ID, true, bigAnswerBytes) }
		case msg.Method == "tools/call" && msg.Params.Name == "split":
			f = func(w io.Writer) { writeStorm(w, msg.ID, 2*MaxEventDataRuns, true) }
		default:
			resp := s.ms.HandleMessage(r.Context(), body)
			if resp == nil {
				return
			}
			data, _ := json.Marshal(resp)
			f = func(w io.Writer) { fmt.Fprintf(w, "event: message\ndata: %s\n\n", data) }
		}
		select {
		case s.events <- f:
		case <-s.done:
		}
	default:
		http.NotFound(w, r)
	}
}

// writeStorm writes a tool answer as one event of n data lines: the
// answer's JSON split after its result's members, then n-2 lines of one
// space (which JSON allows between its tokens, so the event still parses),
// then the closing brace. With split, a comment line comes between each
// two data lines, so that they are n runs.
func writeStorm(w io.Writer, id json.RawMessage, n int, split bool) {
	fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"stormed\"}]}\n", id)
	line := "data:  \n"
	if split {
		line += ":\n"
	}
	lines := bytes.Repeat([]byte(line), 4096)
	for left := n - 2; left > 0; left -= 4096 {
		if _, err := w.Write(lines[:len(line)*min(left, 4096)]); err != nil {
			return
		}
	}
	fmt.Fprint(w, "data: }\n\n")
}

// headerless is an io.Writer as the http.ResponseWriter writeHuge wants,
// for a stream whose headers went long ago.
type headerless struct{ io.Writer }

func (headerless) Header() http.Header { return http.Header{} }
func (headerless) WriteHeader(int)     {}

func legacyRuntime(t *testing.T, s *legacySSEServer) *Runtime {
	t.Helper()
	sc := ServerConfig{Name: "bounds", Transport: TransportSSE, URL: s.url, StartTimeout: 20 * time.Second}
	return startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{})
}

// On the old HTTP+SSE transport one event stream carries every answer: a
// message on it over MaxMessageBytes ends it (howl stops reading), and
// with it the connection. Every call waiting fails at once saying so, not
// at its timeout; the server shows as failed with that reason, a later
// call says so, and a reconnect works.
func TestMessageOverMaxMessageBytesOnTheOldSSEStreamFailsEveryCallAndTheServerAtOnce(t *testing.T) {
	s := newLegacySSEServer(t)
	rt := legacyRuntime(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hang := make(chan error, 1)
	go func() {
		_, err := boundsCall(ctx, rt, "hang")
		hang <- err
	}()
	select {
	case <-s.hung:
	case <-ctx.Done():
		t.Fatal("the hang call never reached the server")
	}
	began := time.Now()
	_, err := boundsCall(ctx, rt, "huge-sse")
	var hangErr error
	select {
	case hangErr = <-hang:
	case <-ctx.Done():
		t.Fatal("the waiting call never ended")
	}
	t.Logf("the huge call failed after %v: %v\nthe waiting call: %v", time.Since(began).Round(time.Millisecond), err, hangErr)
	for what, err := range map[string]error{"the huge call": err, "the waiting call": hangErr} {
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "MaxMessageBytes") ||
			!strings.Contains(err.Error(), fmt.Sprint(MaxMessageBytes)) || !strings.Contains(err.Error(), "ask for less") {
			t.Errorf("%s: want it to fail at once naming MaxMessageBytes (%d) and the fix, got: %v", what, MaxMessageBytes, err)
		}
	}
	waitState(t, rt, "bounds", StateFailed)
	st, _ := rt.ServerStatus("bounds")
	if !strings.Contains(st.Reason, "MaxMessageBytes") || !strings.Contains(st.Reason, "reconnect it") {
		t.Errorf("the server's reason %q: want MaxMessageBytes named, and the fix", st.Reason)
	}
	if _, err := boundsCall(ctx, rt, "echo"); err == nil || !strings.Contains(err.Error(), "MaxMessageBytes") {
		t.Errorf("a later call: want it to say why the server is gone, got %v", err)
	}
	if err := rt.Reconnect("bounds"); err != nil {
		t.Fatal(err)
	}
	_ = rt.Wait(ctx)
	if out, err := boundsCall(ctx, rt, "echo"); err != nil || !strings.Contains(string(out), "called echo") {
		t.Errorf("a call after reconnecting: %s, %v", out, err)
	}
}

// stormHTTPServer is a streamable-HTTP fixture whose "storm" and "split"
// tools answer as the legacySSEServer's do, *lines being stormLines.
func stormHTTPServer(tb testing.TB, lines *int) string {
	tb.Helper()
	ms := server.NewMCPServer("bounds", "1.0", server.WithToolCapabilities(false))
	for _, name := range []string{"echo", "storm", "split", "big"} {
		ms.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("called " + name), nil
		})
	}
	return handAnsweredServer(tb, ms, func(w http.ResponseWriter, r *http.Request, msg fixtureMessage) bool {
		if msg.Method != "tools/call" || msg.Params.Name != "storm" && msg.Params.Name != "split" && msg.Params.Name != "big" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if msg.Params.Name == "big" {
			writeAnswerOf(w, msg.ID, true, bigAnswerBytes)
		} else if msg.Params.Name == "split" {
			writeStorm(w, msg.ID, 2*MaxEventDataRuns, true)
		} else {
			writeStorm(w, msg.ID, *lines, false)
		}
		return true
	})
}

// stormRuntime connects to a storm fixture over tr (sse or http), whose
// storm answers with *lines data lines.
func stormRuntime(tb testing.TB, tr Transport) (rt *Runtime, lines *int) {
	tb.Helper()
	lines = new(int)
	sc := ServerConfig{Name: "bounds", Transport: tr, StartTimeout: 20 * time.Second}
	if tr == TransportSSE {
		s := newLegacySSEServer(tb)
		sc.URL, lines = s.url, &s.stormLines
	} else {
		sc.URL = stormHTTPServer(tb, lines)
	}
	rt = NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: tb.TempDir()})
	tb.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	if st, _ := rt.ServerStatus("bounds"); st.State != StateReady {
		tb.Fatalf("bounds: %s %s", st.State, st.Reason)
	}
	return rt, lines
}

// An answer sent as one event of a million short data lines (8 MiB on the
// wire) arrives whole, over the old HTTP+SSE transport and streamable
// HTTP: the guard hands each run of data lines to mcp-go as one line, so
// mcp-go joins them once instead of once per line (which took it 3 s at
// 65,536 lines and grew as the square: about 13 minutes for this one;
// before, the call failed at its 60 s idle timeout).
func TestAnEventOfAMillionDataLinesArrivesWhole(t *testing.T) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			rt, lines := stormRuntime(t, tr)
			*lines = 1 << 20
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if out, err := boundsCall(ctx, rt, "storm"); err != nil || !strings.Contains(string(out), "stormed") {
				t.Errorf("%.200s, %v", out, err)
			}
		})
	}
}

// An event whose data lines other lines split into more than
// MaxEventDataRuns runs (which mcp-go would join one copy each) fails its
// call at once naming the bound, over the old HTTP+SSE transport and
// streamable HTTP.
func TestAnEventSplitIntoMoreThanMaxEventDataRunsFailsItsCall(t *testing.T) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			rt, _ := stormRuntime(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err := boundsCall(ctx, rt, "split")
			if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "MaxEventDataRuns") || !strings.Contains(err.Error(), fmt.Sprint(MaxEventDataRuns)) {
				t.Errorf("want the call to fail at once naming MaxEventDataRuns (%d), got: %v", MaxEventDataRuns, err)
			}
		})
	}
}

// BenchmarkEventOfManyDataLines is the time to read one answer sent as an
// event of n short data lines (5 bytes each), over the old HTTP+SSE
// transport and streamable HTTP: mcp-go joins an event's data lines by
// copying all it holds per line, which made it grow as n².
func BenchmarkEventOfManyDataLines(b *testing.B) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		b.Run(string(tr), func(b *testing.B) {
			rt, lines := stormRuntime(b, tr)
			for _, n := range []int{1 << 10, 1 << 12, 1 << 14, 1 << 16} {
				*lines = n
				b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						if out, err := boundsCall(context.Background(), rt, "storm"); err != nil || !strings.Contains(string(out), "stormed") {
							b.Fatalf("%s, %v", out, err)
						}
					}
				})
			}
		})
	}
}

// bigAnswerBytes is the text of the "big" tool's answer: near
// MaxMessageBytes, as a large resource's would be.
const bigAnswerBytes = 64 << 20

// BenchmarkAnswerNearMaxMessageBytesOverHTTP is one call whose answer is
// a 64 MiB text on an event stream, over the old HTTP+SSE transport and
// streamable HTTP; peak-x is the peak heap during the call over the
// answer's size (mcp-go's line reader holds a line's pieces and then the
// line, then the line and its bytes while it decodes).
func BenchmarkAnswerNearMaxMessageBytesOverHTTP(b *testing.B) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		b.Run(string(tr), func(b *testing.B) {
			rt, _ := stormRuntime(b, tr)
			b.SetBytes(bigAnswerBytes)
			var peak uint64
			for b.Loop() {
				mem := mcptest.WatchMemory(^uint64(0), nil)
				_, err := boundsCall(context.Background(), rt, "big")
				p, _ := mem.End()
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/bigAnswerBytes, "peak-x")
		})
	}
}
