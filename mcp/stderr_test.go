package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStderrLogStopsGrowingAtItsCapWhileTheServerFloods(t *testing.T) {
	done := make(chan struct{})
	rt, _ := hostileRuntime(t, func(e Event) {
		if e.Kind == EventStderr && e.Server == "hostile" && e.Line == stderrFloodDone {
			close(done)
		}
	})
	if _, err := rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"stderr_flood"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done: // the ring wrote the file before it handed out the line
	case <-time.After(30 * time.Second):
		t.Fatal("the flood's last line never arrived")
	}
	log := filepath.Join(rt.opts.CacheDir, "logs", "hostile.stderr.log")
	var onDisk int64
	for _, p := range []string{log, log + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v (a flood past MaxStderrLog must leave the log and one rotated file)", p, err)
		}
		if st.Size() > MaxStderrLog {
			t.Errorf("%s holds %d bytes, past MaxStderrLog (%d)", filepath.Base(p), st.Size(), MaxStderrLog)
		}
		onDisk += st.Size()
	}
	t.Logf("the server wrote %d MiB to stderr; its logs hold %d MiB", stderrFloodBytes>>20, onDisk>>20)
	data, err := os.ReadFile(log)
	if err != nil || !strings.HasSuffix(string(data), stderrFloodDone+"\n") {
		t.Errorf("the current log must end with the newest line %q: %.80q", stderrFloodDone, data[max(0, len(data)-80):])
	}
	demoStillWorks(t, rt)
}
