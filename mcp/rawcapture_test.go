package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// A capture keeps the exact result the server sent for a read through the
// model's path, cut to MaxRawResultBytes for a 20 MiB resource.
func TestRawCaptureKeepsTheServersResultBoundedInBytes(t *testing.T) {
	rt := startDemo(t, EraLegacy, RuntimeOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cctx, capture := WithRawCapture(ctx)
	args, _ := json.Marshal(map[string]any{"uri": demo.JSONURI})
	if _, err := rt.CallMeta(cctx, PrefixRead+"demo", args); err != nil {
		t.Fatal(err)
	}
	raw, total, cut := capture.Result()
	if cut || total != len(raw) || !json.Valid(raw) || !strings.Contains(string(raw), `"uri":"`+demo.JSONURI+`"`) {
		t.Fatalf("capture of a small read: cut %v, %d of %d bytes: %.200s", cut, len(raw), total, raw)
	}

	// The 2 MiB log through the real path, then a result over the bound.
	cctx, capture = WithRawCapture(ctx)
	args, _ = json.Marshal(map[string]any{"uri": demo.LogURI})
	if _, err := rt.CallMeta(cctx, PrefixRead+"demo", args); err != nil {
		t.Fatal(err)
	}
	if raw, total, cut := capture.Result(); cut || total < 2<<20 || len(raw) != total {
		t.Errorf("capture of the 2 MiB log: cut %v, %d of %d", cut, len(raw), total)
	}
	big := json.RawMessage(`{"contents":[{"text":"` + strings.Repeat("x", MaxRawResultBytes) + `"}]}`)
	captureRaw(cctx, big)
	raw, total, cut = capture.Result()
	if !cut || len(raw) != MaxRawResultBytes || total != len(big) {
		t.Errorf("capture over the bound: cut %v, kept %d (MaxRawResultBytes %d) of %d", cut, len(raw), MaxRawResultBytes, total)
	}
}
