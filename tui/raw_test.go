package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/viewer"
)

// The raw view: R in the viewer shows the exact JSON the demo server sent
// for a read, a tool call and a prompt, over howl's view (R or esc goes
// back); W saves either, the server's bytes as they came.
func TestRawViewShowsAndSavesTheJSONTheServerSent(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HOWL_CACHE_DIR", cache)
	hs := newHarness(t, demoRuntime(t), []string{"demo"}, 120, 40)
	t.Cleanup(hs.dumpOnFailure)

	for _, c := range []struct {
		name string
		req  viewer.Request
		want []string // in the raw view
	}{
		{"read", viewer.Read("demo", demo.JSONURI, nil), []string{`"contents": [`, `"uri": "` + demo.JSONURI + `"`, `"mimeType": "application/json"`}},
		{"call", viewer.Call("demo", demo.EchoTool, map[string]any{"message": "raw view"}), []string{`"content": [`, `"type": "text"`, "raw view"}},
		{"prompt", viewer.Prompt("demo", "greeting", map[string]string{"name": "Ada"}), []string{`"messages": [`, `"role": "user"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs.run(hs.m.openViewer(c.req, "opening"))
			howlView := hs.view()
			if strings.Contains(howlView, "server JSON · ") {
				t.Fatalf("the raw view shows before R:\n%s", howlView)
			}
			hs.keys("R")
			v := hs.view()
			for _, want := range append(c.want, "server JSON · ", "the exact JSON the server sent") {
				if !strings.Contains(v, want) {
					t.Errorf("the raw view does not show %q:\n%s", want, v)
				}
			}
			hs.keys("W")
			saved, _ := filepath.Glob(filepath.Join(cache, "saved", "*.json"))
			if len(saved) == 0 {
				t.Fatal("W saved nothing")
			}
			data, _ := os.ReadFile(saved[len(saved)-1])
			if !json.Valid(data) || !strings.Contains(string(data), c.want[len(c.want)-1][:6]) || strings.Contains(string(data), "\n  ") {
				t.Errorf("the saved file is not the server's compact JSON: %.300s", data)
			}
			for _, f := range saved {
				os.Remove(f)
			}
			hs.keys("R") // back to howl's view
			if v := hs.view(); strings.Contains(v, "server JSON · ") {
				t.Errorf("R did not go back to howl's view:\n%s", v)
			}
			hs.keys("W")
			if txt, _ := filepath.Glob(filepath.Join(cache, "saved", "*")); len(txt) != 1 {
				t.Errorf("W in howl's view saved %v", txt)
			} else {
				os.Remove(txt[0])
			}
			hs.keys("esc", "esc")
		})
	}
}
