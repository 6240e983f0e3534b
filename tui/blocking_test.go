package tui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// asyncDriver runs commands concurrently, as the program does, while the
// test goroutine alone calls Update (under the runtime guard).
type asyncDriver struct {
	h    *harness
	msgs chan tea.Msg
	wg   sync.WaitGroup
}

func newAsyncDriver(t *testing.T, rt common.Runtime, servers []string, w, height int) *asyncDriver {
	g := &guardRuntime{inner: rt, t: t}
	m := New(Options{Runtime: g, Servers: servers, Theme: testTheme(), Tick: noTick, DisplayPath: displayTestPath})
	d := &asyncDriver{h: &harness{t: t, m: m, rt: g}, msgs: make(chan tea.Msg, 1024)}
	t.Cleanup(func() {
		m.Close() // cancels whatever is still in flight
		done := make(chan struct{})
		go func() { d.wg.Wait(); close(done) }()
		for {
			select {
			case <-d.msgs:
			case <-done:
				return
			}
		}
	})
	d.send(tea.WindowSizeMsg{Width: w, Height: height})
	d.dispatch(m.Init())
	return d
}

func (d *asyncDriver) dispatch(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.msgs <- cmd()
	}()
}

func (d *asyncDriver) send(msg tea.Msg) { d.dispatch(d.h.update(msg)) }

func (d *asyncDriver) keys(names ...string) {
	for _, n := range names {
		d.send(keyMsg(n))
	}
}

// until handles messages as they arrive until cond holds. The timeout is
// only a guard against a hang; nothing here measures time.
func (d *asyncDriver) until(what string, cond func() bool) {
	d.h.t.Helper()
	deadline := time.After(60 * time.Second)
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case msg := <-d.msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					d.dispatch(c)
				}
			default:
				d.send(msg)
			}
		case <-poll.C:
		case <-deadline:
			d.h.t.Fatalf("gave up waiting for %s; screen:\n%s", what, d.h.view())
		}
	}
}

// blockingServer is an MCP server whose tool "wait" blocks until release
// is closed, served over streamable HTTP on 127.0.0.1.
func blockingServer(t *testing.T, started chan<- struct{}, release <-chan struct{}) string {
	s := server.NewMCPServer("blocky", "1.0", server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false))
	s.AddTool(mcpgo.NewTool("wait", mcpgo.WithDescription("Waits until the test releases it.")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			started <- struct{}{}
			select {
			case <-release:
				return mcpgo.NewToolResultText("released by the test"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	for _, name := range []string{"alpha", "beta"} {
		uri := "mem://" + name
		s.AddResource(mcpgo.NewResource(uri, name, mcpgo.WithMIMEType("text/plain")),
			func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
				return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: name}}, nil
			})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestTheUIStaysResponsiveWhileACallIsInFlight: a tool call that blocks at
// the server does not block the program. While it waits, tab switches and
// filtering are handled and change the screen; once released, the result
// lands in the viewer.
func TestTheUIStaysResponsiveWhileACallIsInFlight(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	url := blockingServer(t, started, release)
	cfg, err := mcp.ParseConfig("test.json", []byte(`{"mcpServers": {"blocky": {"url": "`+url+`"}}}`), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{CacheDir: t.TempDir()})
	defer rt.Close()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	d := newAsyncDriver(t, rt, []string{"blocky"}, 120, 40)
	m := d.h.m
	d.until("the catalog", func() bool { return m.catalog.TabTitle(0) == "Tools 1" && m.catalog.TabTitle(1) == "Resources 2" })

	// Call the tool (its form has no fields: enter submits).
	d.keys("enter", "enter")
	inFlight := false
	d.until("the call to reach the server", func() bool {
		select {
		case <-started:
			inFlight = true
		default:
		}
		return inFlight
	})
	if v := d.h.view(); !strings.Contains(v, "calling wait") {
		t.Fatalf("the viewer does not show the call in flight:\n%s", v)
	}

	// While the call waits: switch tabs and filter.
	before := d.h.view()
	d.keys("tab", "2")
	if v := d.h.view(); v == before || !strings.Contains(v, "[Resources 2]") {
		t.Fatalf("the tab switch was not handled while the call was in flight:\n%s", v)
	}
	d.keys("/", "b", "e", "t")
	d.until("the filter result", func() bool { return m.catalog.Query() == "bet" && m.catalog.TabTitle(1) == "Resources 1/2" })
	v := d.h.view()
	if !strings.Contains(v, "[Resources 1/2]") || !strings.Contains(v, "beta") || strings.Contains(v, "alpha") {
		t.Fatalf("the filter did not apply while the call was in flight:\n%s", v)
	}
	if m.viewer.Title() != "" || !m.viewer.Busy() {
		t.Fatal("the call finished before the test released it")
	}

	close(release)
	d.until("the result", func() bool { return m.viewer.Title() != "" })
	if v := d.h.view(); !strings.Contains(v, "released by the test") {
		t.Fatalf("the result did not land in the viewer:\n%s", v)
	}
}
