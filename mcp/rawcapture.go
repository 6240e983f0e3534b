package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

// MaxRawResultBytes bounds the raw result a RawCapture keeps: a longer
// one keeps its first MaxRawResultBytes bytes and says it was cut.
const MaxRawResultBytes = 4 << 20

// RawCapture keeps the raw JSON-RPC result a server sent for the read,
// call or prompt made with its context (WithRawCapture): the exact bytes,
// before howl bounds, decodes or formats anything.
type RawCapture struct {
	mu    sync.Mutex
	raw   []byte
	total int
}

type rawCaptureKey struct{}

// WithRawCapture returns a context whose resources/read, tools/call and
// prompts/get keep their raw result in the capture (the last one made).
func WithRawCapture(ctx context.Context) (context.Context, *RawCapture) {
	c := &RawCapture{}
	return context.WithValue(ctx, rawCaptureKey{}, c), c
}

// Result is the raw result (nil when no result came from the server), its
// full size, and whether it was cut to MaxRawResultBytes.
func (c *RawCapture) Result() (raw []byte, total int, cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw, c.total, c.total > len(c.raw)
}

// captureRaw keeps raw in ctx's capture, if it has one.
func captureRaw(ctx context.Context, raw json.RawMessage) {
	c, ok := ctx.Value(rawCaptureKey{}).(*RawCapture)
	if !ok || raw == nil {
		return
	}
	kept := raw[:min(len(raw), MaxRawResultBytes)]
	c.mu.Lock()
	c.raw, c.total = append([]byte(nil), kept...), len(raw)
	c.mu.Unlock()
}
