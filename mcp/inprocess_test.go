package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
)

// inProcessDemo is the demo as howl's no-config entry runs it.
func inProcessDemo(era Era) ServerConfig {
	return ServerConfig{Name: "demo", Transport: TransportStdio, Command: "howl", Args: []string{"demo-server"}, Era: era,
		Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
			return demo.ServeStdio(ctx, demo.New(demo.Options{}), in, out)
		}}
}

// The in-process demo is a full server over stdio's framing, in both
// eras, and it ends with its connection (goleak checks no goroutine of
// it is left when the package's tests end).
func TestInProcessServerServesOverPipesAndEndsWithItsConnection(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			rt := NewRuntime(&Config{Servers: []ServerConfig{inProcessDemo(era)}}, RuntimeOptions{CacheDir: t.TempDir()})
			if err := rt.Start(); err != nil {
				t.Fatal(err)
			}
			if err := rt.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			cat, err := rt.Catalog(context.Background(), "demo", false)
			if err != nil || cat.Count(KindResource) < 100 {
				t.Fatalf("catalog: %v, %d resources", err, cat.Count(KindResource))
			}
			echo, _ := json.Marshal(map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": "in process"}})
			out, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", echo)
			if err != nil || !strings.Contains(string(out), "in process") {
				t.Errorf("echo: %s, %v", out, err)
			}
			if st := rt.Status()[0]; st.Protocol == "" || st.State != StateReady {
				t.Errorf("status: %+v", st)
			}
			rt.Close()
		})
	}
}
