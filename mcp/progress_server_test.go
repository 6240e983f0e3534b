package mcp

import "testing"

// A progress notification counts only from the server the call went to:
// another server that names the call's token (tokens are howl's, but a
// server can guess or replay one) changes nothing of it.
func TestProgressFromAnotherServerLeavesTheCallAlone(t *testing.T) {
	r := NewRuntime(&Config{}, RuntimeOptions{CacheDir: t.TempDir()})
	defer r.Close()
	f := &inflight{info: InFlight{Server: "a", Token: "t"}, poke: make(chan struct{}, 1)}
	r.progress.calls = map[string]*inflight{"t": f}
	r.onProgress("b", map[string]any{"progressToken": "t", "progress": 99.0, "message": "b says"})
	if f.info.Last != nil || len(f.poke) != 0 {
		t.Errorf("server b's progress on a's call: last %+v, idle timer reset %v", f.info.Last, len(f.poke) != 0)
	}
	r.onProgress("a", map[string]any{"progressToken": "t", "progress": 1.0, "message": "a says"})
	if f.info.Last == nil || f.info.Last.Message != "a says" {
		t.Errorf("server a's own progress: last %+v", f.info.Last)
	}
}
