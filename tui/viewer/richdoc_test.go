package viewer

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/render"
)

// TestToolResultWhoseSpillFailedShowsWhyNotAnEmptyFile: an image the
// spill store could not save is drawn as not shown, with the reason, not
// as an attachment with no file behind it.
func TestToolResultWhoseSpillFailedShowsWhyNotAnEmptyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe"))
	raw := []byte(`{"content":[{"type":"image","data":"` + png + `","mimeType":"image/png"}]}`)
	out, _, err := render.BoundToolResult(render.NewSpillStore(filepath.Join(file, "spill")), "demo", raw)
	if err != nil {
		t.Fatal(err)
	}
	d := toolDoc(loadEnv{ctx: context.Background(), th: testTheme()}, Request{server: "demo"}, out)
	var lines []string
	for _, l := range d.lines {
		lines = append(lines, l.plain)
	}
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "[1] image · not shown") || !strings.Contains(text, "could not spill") || len(d.atts) != 0 {
		t.Errorf("the failed spill is drawn as:\n%s\n(%d attachments)", text, len(d.atts))
	}
	if !strings.Contains(d.note, "1 of them could not be shown") {
		t.Errorf("the coverage note does not say an item was not shown: %s", d.note)
	}
}
