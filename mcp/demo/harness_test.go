//lint:file-ignore SA1019 these tests drive the demo on both protocol eras, the legacy one (its handshake, logging/setLevel, resources/subscribe) on purpose
package demo

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

// Every goroutine the server, its transports and the mcp-go clients start
// must be gone when the tests finish.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// era selects the protocol generation a test client speaks.
type era struct {
	name string
	opts []client.ClientOption
}

// eras are the two ways howl may talk to a server: mcp-go's default (probe
// server/discover, speak 2026-07-28) and the initialize handshake.
var eras = []era{
	{name: "modern"},
	{name: "legacy", opts: []client.ClientOption{client.WithLegacyProtocolOnly()}},
}

// peer is an mcp-go client connected to a demo server through ServeStdio
// over a pair of pipes.
type peer struct {
	*client.Client
	init   *mcp.InitializeResult
	events *recorder
}

// connect serves srv with ServeStdio and connects an initialized client. The
// cleanup closes the client and checks that ServeStdio returned nil on EOF.
func connect(t testing.TB, srv *server.MCPServer, opts ...client.ClientOption) *peer {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeStdio(ctx, srv, serverIn, serverOut) }()

	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil), opts...)
	p := &peer{Client: c, events: &recorder{changed: make(chan struct{}, 1)}}
	t.Cleanup(func() {
		_ = c.Close() // closes clientOut: the server reads EOF
		// The client stops reading after Close; keep the server's last writes
		// flowing until it returns.
		go func() { _, _ = io.Copy(io.Discard, clientIn) }()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("ServeStdio returned %v after stdin EOF, want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("ServeStdio did not return within 5s of stdin EOF")
		}
		_ = serverOut.Close()
		cancel()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatalf("starting the client: %v", err)
	}
	c.OnNotification(p.events.add)
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "demo-test", Version: "0.0.0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	p.init = init
	return p
}

// connectDemo connects to a fresh standard demo server.
func connectDemo(t testing.TB, opts ...client.ClientOption) *peer {
	t.Helper()
	return connect(t, New(Options{}), opts...)
}

// recorder keeps every notification a client receives.
type recorder struct {
	mu      sync.Mutex
	list    []mcp.JSONRPCNotification
	changed chan struct{}
}

func (r *recorder) add(n mcp.JSONRPCNotification) {
	r.mu.Lock()
	r.list = append(r.list, n)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// method returns the notifications received so far with the given method.
func (r *recorder) method(m string) []mcp.JSONRPCNotification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(r.list), func(n mcp.JSONRPCNotification) bool { return n.Method != m })
}

// waitFor waits until ok holds for the notifications with method m.
func (r *recorder) waitFor(t testing.TB, m string, what string, ok func([]mcp.JSONRPCNotification) bool) []mcp.JSONRPCNotification {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		got := r.method(m)
		if ok(got) {
			return got
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("waited 5s for %s (%s); got %d such notifications: %+v", m, what, len(got), got)
		}
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func callTool(t testing.TB, p *peer, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := p.CallTool(ctxT(t), req)
	if err != nil {
		t.Fatalf("calling %s(%v): %v", name, args, err)
	}
	return res
}

func readResource(t testing.TB, p *peer, uri string) []mcp.ResourceContents {
	t.Helper()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := p.ReadResource(ctxT(t), req)
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("reading %s: got %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents
}

func getPrompt(t testing.TB, p *peer, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	t.Helper()
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return p.GetPrompt(ctxT(t), req)
}

func textOf(t testing.TB, c mcp.Content) string {
	t.Helper()
	tc, ok := c.(mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want mcp.TextContent", c)
	}
	return tc.Text
}
