package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// boundsServer is a streamable-HTTP fixture: mcp-go's server, with a few
// tools answered by hand in the ways a hostile server would.
type boundsServer struct {
	url string
	// answers counts the POSTs of howl's answers to the server's
	// requests; while stall is open they wait (as a server that does not
	// take them would), until release is closed.
	answers         atomic.Int64
	release, finish chan struct{}
	releaseOnce     sync.Once
	finishOnce      sync.Once
}

const (
	floodedMethod = "notifications/howl-test/flooded"
	// hugeMessageBytes is what the huge tools would send: far more than
	// MaxMessageBytes, generated as it is written (the fixture holds
	// 64 KiB of it), so that memory proportional to it shows at once.
	hugeMessageBytes = 1 << 30
)

func (s *boundsServer) releaseAnswers() { s.releaseOnce.Do(func() { close(s.release) }) }
func (s *boundsServer) finishFlood()    { s.finishOnce.Do(func() { close(s.finish) }) }

// newBoundsServer serves: "echo" (mcp-go's); "flood", whose answer stream
// carries n pings, then the notification floodedMethod, and then waits for
// finishFlood before it answers; "huge-sse" and "huge-json", which answer
// with a hugeMessageBytes message on an event stream or as a JSON body.
func newBoundsServer(t *testing.T, n int) *boundsServer {
	t.Helper()
	s := &boundsServer{release: make(chan struct{}), finish: make(chan struct{})}
	ms := server.NewMCPServer("bounds", "1.0", server.WithToolCapabilities(false))
	for _, name := range []string{"echo", "flood", "huge-sse", "huge-json"} {
		ms.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("called " + name), nil
		})
	}
	// Cleanups run last first: the handlers end before the server closes.
	s.url = handAnsweredServer(t, ms, func(w http.ResponseWriter, r *http.Request, msg fixtureMessage) bool {
		switch {
		case r.Method == http.MethodPost && msg.Method == "" && len(msg.ID) > 0: // an answer of howl's
			s.answers.Add(1)
			select {
			case <-s.release:
			case <-r.Context().Done():
				return true
			}
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "tools/call" && msg.Params.Name == "flood":
			w.Header().Set("Content-Type", "text/event-stream")
			for i := range n {
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"ping-%d\",\"method\":\"ping\"}\n\n", i)
			}
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":%q,\"params\":{}}\n\n", floodedMethod)
			w.(http.Flusher).Flush()
			select { // the stream stays open, as the reviewer's did
			case <-s.finish:
			case <-r.Context().Done():
				return true
			}
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}}\n\n", msg.ID)
		case msg.Method == "tools/call" && strings.HasPrefix(msg.Params.Name, "huge-"):
			writeHuge(w, msg.ID, msg.Params.Name == "huge-sse")
		default:
			return false
		}
		return true
	})
	t.Cleanup(s.finishFlood)
	t.Cleanup(s.releaseAnswers)
	return s
}

// writeHuge writes a tool answer of hugeMessageBytes, 64 KiB at a time,
// until it is done or the client stops reading.
func writeHuge(w http.ResponseWriter, id json.RawMessage, sse bool) {
	writeAnswerOf(w, id, sse, hugeMessageBytes)
}

// writeAnswerOf writes a tool answer whose text is size bytes, 64 KiB at a
// time, until it is done or the client stops reading.
func writeAnswerOf(w http.ResponseWriter, id json.RawMessage, sse bool, size int) {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
		head = "event: message\ndata: " + head
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if _, err := io.WriteString(w, head); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for sent := 0; sent < size; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	tail := `"}]}}`
	if sse {
		tail += "\n\n"
	}
	_, _ = io.WriteString(w, tail)
}

// boundsRuntime connects to the fixture in era, with onEvent.
func boundsRuntime(t *testing.T, s *boundsServer, era Era, onEvent func(Event)) *Runtime {
	t.Helper()
	sc := ServerConfig{Name: "bounds", Transport: TransportHTTP, URL: s.url, Era: era, StartTimeout: 20 * time.Second}
	return startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{OnEvent: onEvent})
}

func boundsCall(ctx context.Context, rt *Runtime, tool string) (json.RawMessage, error) {
	return rt.CallMeta(ctx, "mcp_invoke_bounds", json.RawMessage(`{"tool":"`+tool+`"}`))
}

// waitGoroutines polls until at most want goroutines run, or the deadline;
// it returns the last count.
func waitGoroutines(want int, deadline time.Duration) int {
	end := time.Now().Add(deadline)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(end) {
			return n
		}
		time.Sleep(20 * time.Millisecond) // polling, not ordering
	}
}

// A streamable-HTTP server that floods requests (pings) on a stream it
// keeps open while it takes none of howl's answers: howl keeps
// MaxUnsentAnswers answers on their way and leaves the rest unanswered, so
// the goroutines (and connections, and file descriptors) stay bounded
// instead of one set per request, says so once in the server's log, and
// the connection works once the server takes answers again.
func TestRequestFloodOverHTTPWhileAnswersStallKeepsMaxUnsentAnswersInFlight(t *testing.T) {
	n := 20 * MaxUnsentAnswers
	// Per answer on its way: mcp-go's goroutine and its close watcher,
	// the client connection's two loops, the fixture's handler and its
	// connection's reader; and a margin for everything else.
	bound := 8*MaxUnsentAnswers + 100
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			s := newBoundsServer(t, n)
			var mu sync.Mutex
			notices := 0
			flooded := make(chan struct{})
			var floodedOnce sync.Once
			rt := boundsRuntime(t, s, era, func(e Event) {
				switch {
				case e.Kind == EventNotification && e.Method == floodedMethod:
					floodedOnce.Do(func() { close(flooded) })
				case e.Kind == EventStderr && strings.Contains(e.Line, "MaxUnsentAnswers"):
					mu.Lock()
					notices++
					mu.Unlock()
				}
			})
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := boundsCall(ctx, rt, "flood")
				done <- err
			}()
			select {
			case <-flooded: // howl has read all n pings
			case err := <-done:
				t.Fatalf("the flood call ended early: %v", err)
			case <-ctx.Done():
				t.Fatal("howl did not read the flood within 2 minutes")
			}
			got := waitGoroutines(base+bound, 10*time.Second)
			t.Logf("%s: %d pings, %d answers posted and stalled: %d goroutines (%d before the flood)", era, n, s.answers.Load(), got, base)
			if got > base+bound {
				t.Errorf("%d goroutines while %d pings' answers stall, %d before: want at most %d more (MaxUnsentAnswers = %d)", got, n, base, bound, MaxUnsentAnswers)
			}
			if a := s.answers.Load(); a > MaxUnsentAnswers {
				t.Errorf("%d answers posted at once, over MaxUnsentAnswers (%d)", a, MaxUnsentAnswers)
			}
			mu.Lock()
			if notices != 1 {
				t.Errorf("%d notices naming MaxUnsentAnswers in the server's log, want 1", notices)
			}
			mu.Unlock()

			s.releaseAnswers()
			s.finishFlood()
			if err := <-done; err != nil {
				t.Errorf("the flood call, once the server takes answers: %v", err)
			}
			if out, err := boundsCall(ctx, rt, "echo"); err != nil || !strings.Contains(string(out), "called echo") {
				t.Errorf("a call after the flood: %s, %v", out, err)
			}
		})
	}
}

// A streamable-HTTP server answering with a message far over
// MaxMessageBytes, on an event stream or as a JSON body: howl stops
// reading it at the bound and the call fails at once saying so, with
// memory bounded by the bound, not by the message; the connection works
// for the next call.
func TestAnswerOverMaxMessageBytesOverHTTPFailsItsCallWithoutReadingItAll(t *testing.T) {
	// A peak heap of a few MaxMessageBytes: mcp-go holds what it read of
	// the message about twice (the pieces of a line and the line), and the
	// garbage collector lets some of it linger.
	limit := uint64(4 * MaxMessageBytes)
	for _, era := range []Era{EraLegacy, EraModern} {
		for _, tool := range []string{"huge-sse", "huge-json"} {
			if tool == "huge-json" && era == EraModern {
				continue // a JSON body is read the same way in both eras (and slowly under -race)
			}
			t.Run(string(era)+"/"+tool, func(t *testing.T) {
				s := newBoundsServer(t, 0)
				rt := boundsRuntime(t, s, era, nil)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				mem := mcptest.WatchMemory(limit, cancel) // past the limit: stop reading rather than fill the machine
				began := time.Now()
				_, err := boundsCall(ctx, rt, tool)
				took := time.Since(began)
				peak, _ := mem.End()
				runtime.ReadMemStats(&after)
				t.Logf("%s %s: failed after %v, peak heap+stacks %s, allocated %s, for a %s message: %v", era, tool, took.Round(time.Millisecond),
					render.HumanBytes(int64(peak)), render.HumanBytes(int64(after.TotalAlloc-before.TotalAlloc)), render.HumanBytes(hugeMessageBytes), err)
				if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
					!strings.Contains(err.Error(), "MaxMessageBytes") || !strings.Contains(err.Error(), fmt.Sprint(MaxMessageBytes)) {
					t.Errorf("want the call to fail at once naming MaxMessageBytes (%d), got: %v", MaxMessageBytes, err)
				}
				if peak > limit {
					t.Errorf("peak heap+stacks %s reading a %s message: want at most %s (4 × MaxMessageBytes)",
						render.HumanBytes(int64(peak)), render.HumanBytes(hugeMessageBytes), render.HumanBytes(int64(limit)))
				}
				if out, err := boundsCall(context.Background(), rt, "echo"); err != nil || !strings.Contains(string(out), "called echo") {
					t.Errorf("a call after the dropped message: %s, %v", out, err)
				}
			})
		}
	}
}

// endlessCap is where writeEndless gives up: far past what howl should
// read of a body it reads whole (MaxErrorBodyBytes) plus what the
// loopback's socket buffers hold.
const endlessCap = 64 << 20

// writeEndless answers 201 Created with an event stream of comments, the
// body mcp-go reads whole into its error, until the client stops reading
// (or endlessCap); it returns the bytes written.
func writeEndless(w http.ResponseWriter) int64 {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusCreated)
	chunk := bytes.Repeat([]byte(":\n"), 32<<10)
	var n int64
	for n < endlessCap {
		m, err := w.Write(chunk)
		n += int64(m)
		if err != nil {
			break
		}
	}
	return n
}

// A server answering a call with 201 and an event stream that never ends
// (":\n" forever): mcp-go reads such a body whole into its error, on
// streamable HTTP and on legacy SSE alike. howl stops reading it past
// MaxErrorBodyBytes, so the call fails naming the status, and the
// server's writes fail soon after (a few MiB of socket buffers),
// not at endlessCap.
func TestEndlessEventStreamWithAnUnstreamedStatusIsReadOnlyToMaxErrorBodyBytes(t *testing.T) {
	// MaxErrorBodyBytes, and the loopback's send and receive buffers
	// (Linux grows them to 4 and 6 MiB).
	const most = 16 << 20
	streamable := func(t *testing.T) (ServerConfig, chan int64) {
		written := make(chan int64, 1)
		ms := server.NewMCPServer("endless", "1.0", server.WithToolCapabilities(false))
		ms.AddTool(mcpgo.NewTool("endless"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("never sent"), nil
		})
		url := handAnsweredServer(t, ms, func(w http.ResponseWriter, r *http.Request, msg fixtureMessage) bool {
			if msg.Method != "tools/call" || msg.Params.Name != "endless" {
				return false
			}
			written <- writeEndless(w)
			return true
		})
		return ServerConfig{Name: "bounds", Transport: TransportHTTP, URL: url, Era: EraModern, StartTimeout: 20 * time.Second}, written
	}
	legacy := func(t *testing.T) (ServerConfig, chan int64) {
		s := newLegacySSEServer(t)
		return ServerConfig{Name: "bounds", Transport: TransportSSE, URL: s.url, StartTimeout: 20 * time.Second}, s.endless
	}
	for name, fixture := range map[string]func(*testing.T) (ServerConfig, chan int64){"streamable": streamable, "legacy-sse": legacy} {
		t.Run(name, func(t *testing.T) {
			sc, written := fixture(t)
			rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err := boundsCall(ctx, rt, "endless")
			if err == nil || !strings.Contains(err.Error(), "status 201") {
				t.Errorf("want the call to fail naming status 201, got: %.200s", fmt.Sprint(err))
			}
			var n int64
			select {
			case n = <-written:
			case <-ctx.Done():
				t.Fatal("the server's writes never stopped")
			}
			t.Logf("%s: the server wrote %s before its writes failed", name, render.HumanBytes(n))
			if n > most {
				t.Errorf("the server wrote %s before howl stopped reading: want at most %s (MaxErrorBodyBytes = %d, and socket buffers)",
					render.HumanBytes(n), render.HumanBytes(most), MaxErrorBodyBytes)
			}
		})
	}
}
