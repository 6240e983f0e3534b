//go:build unix

package mcp

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReloadOfAConfigReplacedByANamedPipeDoesNotHang(t *testing.T) {
	g := newReloadRig(t, map[string]any{"keep": gateEntry(nil)})
	if err := os.Remove(g.path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(g.path, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := g.rl.Reload(); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file (it is a named pipe)") {
			t.Errorf("a named pipe must be refused as such: %v", err)
		}
	case <-time.After(30 * time.Second):
		// Unblock the reader so the goroutine ends before goleak looks.
		if f, err := os.OpenFile(g.path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("reading a config that is a named pipe blocked")
	}
	// The watch's look refuses it the same way, without blocking.
	w := g.rl.newFileWatch()
	if !w.changed() || !strings.Contains(w.seen[g.path].sum, "not a regular file") {
		t.Errorf("the watch must see the pipe as an unreadable change: %+v", w.seen[g.path])
	}
}
