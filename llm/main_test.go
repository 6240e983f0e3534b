package llm

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// fixtureEnv makes a re-executed test binary serve an MCP server over
// stdio ("demo": the demo server; "guard": serveGuard; "rug-pull":
// serveRugPull; "torn-listing", "plain-listing": serveRawTools), so the loop talks
// to a real server over a real transport.
const fixtureEnv = "HOWL_LLM_TEST_FIXTURE"

func TestMain(m *testing.M) {
	if fx := os.Getenv(fixtureEnv); fx != "" {
		var err error
		switch fx {
		case "demo":
			err = demo.ServeStdio(context.Background(), demo.New(demo.Options{}), os.Stdin, os.Stdout)
		case "guard":
			err = serveGuard()
		case "rug-pull":
			serveRugPull()
		case "torn-listing", "plain-listing":
			err = serveRawTools(fx == "torn-listing")
		default:
			err = fmt.Errorf("unknown fixture %q", fx)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// startDemo runs the demo server as a child process and waits until it is ready.
func startDemo(t testing.TB, opts mcp.RuntimeOptions) *mcp.Runtime {
	t.Helper()
	return startFixture(t, demo.Name, map[string]string{fixtureEnv: "demo"}, opts)
}

// startFixture runs this test binary as server name with env (fixtureEnv
// says which fixture it serves) and waits until it is ready.
func startFixture(t testing.TB, name string, env map[string]string, opts mcp.RuntimeOptions) *mcp.Runtime {
	t.Helper()
	return startEntry(t, fixtureServer(name, env), opts)
}

// fixtureServer is this test binary serving the fixture env names, as
// server name over stdio.
func fixtureServer(name string, env map[string]string) mcp.ServerConfig {
	return mcp.ServerConfig{
		Name: name, Transport: mcp.TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: env,
		Era:          mcp.EraLegacy,    // as howl runs its demo
		StartTimeout: 20 * time.Second, // a loaded CI machine starts the child slowly
	}
}

// startEntry runs the server of one config entry and waits until it is ready.
func startEntry(t testing.TB, sc mcp.ServerConfig, opts mcp.RuntimeOptions) *mcp.Runtime {
	t.Helper()
	rt := startServers(t, opts, sc)
	if st, _ := rt.ServerStatus(sc.Name); st.State != mcp.StateReady {
		t.Fatalf("fixture server %s is %s: %s", sc.Name, st.State, st.Reason)
	}
	return rt
}

// startServers starts a runtime of servers and waits until each is ready
// or failed.
func startServers(t testing.TB, opts mcp.RuntimeOptions, servers ...mcp.ServerConfig) *mcp.Runtime {
	t.Helper()
	opts.CacheDir = t.TempDir()
	opts.Spill = render.NewSpillStore(t.TempDir())
	rt := mcp.NewRuntime(&mcp.Config{Servers: servers}, opts)
	t.Cleanup(func() { rt.Close() })
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return rt
}

// noEnv is an empty environment for Resolve.
func noEnv(string) (string, bool) { return "", false }

// envOf is an environment made of pairs.
func envOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// scriptedOpenAI starts a scripted OpenAI-compatible server and resolves a
// model that points at it, through the production code.
func scriptedOpenAI(t testing.TB, script llmtest.Script) (*llmtest.Server, Model) {
	t.Helper()
	srv := llmtest.NewOpenAI(script)
	t.Cleanup(srv.Close)
	c, err := Resolve(context.Background(), ResolveOptions{
		Flags: Settings{Model: "openai-compat/scripted", BaseURL: srv.URL}, Getenv: noEnv, OllamaURL: "off"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// scriptedAnthropic starts a scripted Anthropic server and resolves
// anthropic/claude-scripted against it via $ANTHROPIC_BASE_URL.
func scriptedAnthropic(t testing.TB, script llmtest.Script) (*llmtest.Server, Model) {
	t.Helper()
	srv := llmtest.NewAnthropic(script)
	t.Cleanup(srv.Close)
	c, err := Resolve(context.Background(), ResolveOptions{
		Flags:  Settings{Model: "anthropic/claude-scripted"},
		Getenv: envOf("ANTHROPIC_API_KEY", "sk-ant-test", "ANTHROPIC_BASE_URL", srv.URL), OllamaURL: "off"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// recorder collects a run's events; safe for the loop's goroutines.
type recorder struct {
	mu     sync.Mutex
	events []Event
	notify chan Event
}

func newRecorder() *recorder { return &recorder{notify: make(chan Event, 1024)} }

func (r *recorder) on(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case r.notify <- e:
	default:
	}
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// waitFor blocks until an event matching ok arrives, or fails after 20 s.
func (r *recorder) waitFor(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	for _, e := range r.all() {
		if ok(e) {
			return e
		}
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-r.notify:
			if ok(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event; got %v", what, r.all())
			return nil
		}
	}
}

func eventsOf[T Event](events []Event) []T {
	var out []T
	for _, e := range events {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}
