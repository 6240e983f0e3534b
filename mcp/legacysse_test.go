package mcp

import (
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

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// legacySSEServer is an old (2024-11-05) HTTP+SSE fixture: mcp-go's
// server answers every message, and the fixture frames the transport by
// hand (GET /sse is the one event stream, which names /message as where
// to POST), so that it can write on the stream what a hostile server
// would: "huge-sse" is answered there with a hugeMessageBytes message,
// and "hang" never.
type legacySSEServer struct {
	url    string
	ms     *server.MCPServer
	events chan func(io.Writer) // run by the stream, one at a time
	hung   chan struct{}        // closed when a "hang" call came
	done   chan struct{}        // closed at the test's end
	once   sync.Once
}

func newLegacySSEServer(t *testing.T) *legacySSEServer {
	t.Helper()
	s := &legacySSEServer{events: make(chan func(io.Writer), 16), hung: make(chan struct{}), done: make(chan struct{})}
	s.ms = server.NewMCPServer("old", "1.0", server.WithToolCapabilities(false))
	for _, name := range []string{"echo", "hang", "huge-sse"} {
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
		w.WriteHeader(http.StatusAccepted)
		var f func(io.Writer)
		switch {
		case msg.Method == "tools/call" && msg.Params.Name == "hang":
			s.once.Do(func() { close(s.hung) })
			return
		case msg.Method == "tools/call" && msg.Params.Name == "huge-sse":
			f = func(w io.Writer) { writeHuge(headerless{w}, msg.ID, true) }
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
