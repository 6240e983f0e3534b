package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"go.uber.org/goleak"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// The test binary doubles as the demo server: a runtime in these tests
// starts `<test binary> demo-server`, which lands here and serves stdio.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo-server" {
		if f := os.Getenv(demoPidFileEnv); f != "" { // a test that kills it
			if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		if err := demo.ServeStdio(context.Background(), demo.New(demo.Options{}), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == brokenPromptsArg {
		mcptest.ServeBrokenPrompts(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == diesOnToolsListArg {
		os.Exit(mcptest.ServeDiesOnToolsList(os.Stdin, os.Stdout, os.Stderr, mcptest.DiesAtOnce))
	}
	if len(os.Args) > 1 && os.Args[1] == longCompletionsArg {
		if err := demo.ServeStdio(context.Background(), mcptest.LongCompletionsServer(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == askServerArg {
		if err := serveAskServer(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Goldens are drawn without colour.
	lipgloss.SetColorProfile(termenv.Ascii)
	dir, err := os.MkdirTemp("", "howl-tui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCacheDir = dir
	code := m.Run()
	closeSharedRuntimes()
	os.RemoveAll(dir)
	// Every goroutine the TUI starts has an owner and an end. teatest's
	// own interrupt watcher is the one exception: it waits for a SIGINT
	// that never comes.
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("os/signal.signal_recv"),
			// chroma's regexp clock: it stops by itself once no match runs.
			goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"),
			goleak.IgnoreAnyFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testCacheDir holds every test runtime's cache and spill files; goldens
// show it as $HOWL_CACHE_DIR.
var testCacheDir string

// displayTestPath hides the temporary cache directory from goldens.
func displayTestPath(p string) string {
	return strings.Replace(p, testCacheDir, "$HOWL_CACHE_DIR", 1)
}

// demoPidFileEnv names the file a demo server writes its process id to.
const demoPidFileEnv = "HOWL_TEST_DEMO_PIDFILE"

// demoServer is the config entry of the demo server, served by this binary.
func demoServer(name string) mcp.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: exe, Args: []string{"demo-server"},
		Era: mcp.EraModern, StartTimeout: 30 * time.Second}
}

var (
	sharedMu       sync.Mutex
	sharedRuntimes = map[string]*mcp.Runtime{}
)

// sharedRuntime starts (once per test binary) a runtime over the given
// servers and waits until each is ready or failed. Tests only read through
// it, so they share it.
func sharedRuntime(t testing.TB, key string, servers ...mcp.ServerConfig) *mcp.Runtime {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if rt, ok := sharedRuntimes[key]; ok {
		return rt
	}
	rt := newRuntime(t, nil, servers...)
	sharedRuntimes[key] = rt
	return rt
}

// newRuntime starts a runtime and waits for its servers to settle.
func newRuntime(t testing.TB, onEvent func(mcp.Event), servers ...mcp.ServerConfig) *mcp.Runtime {
	t.Helper()
	cache := filepath.Join(testCacheDir, "cache")
	rt := mcp.NewRuntime(&mcp.Config{Servers: servers}, mcp.RuntimeOptions{
		CacheDir: cache, Spill: render.NewSpillStore(filepath.Join(testCacheDir, "mcp-resources")), OnEvent: onEvent,
	})
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		rt.Close()
		t.Fatal(err)
	}
	return rt
}

func closeSharedRuntimes() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, rt := range sharedRuntimes {
		rt.Close()
	}
}

// demoRuntime is the shared runtime over the demo server alone.
func demoRuntime(t testing.TB) *mcp.Runtime {
	return sharedRuntime(t, "demo", demoServer("demo"))
}
