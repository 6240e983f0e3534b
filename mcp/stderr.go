package mcp

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// StderrRingSize is how much of each server's most recent stderr howl keeps
// in memory for the failure reason and the log view.
const StderrRingSize = 256 << 10

// maxStderrLogFile is the size past which a server's stderr log file is
// started afresh when the server starts.
const maxStderrLogFile = 8 << 20

// stderrRing keeps the last StderrRingSize bytes written to it and mirrors
// every write to an optional log file. Writes never block on readers.
type stderrRing struct {
	mu    sync.Mutex
	buf   []byte
	total int64
	file  *os.File
	// onLine, when set, gets each complete line (without the newline).
	onLine  func(string)
	partial []byte
}

func newStderrRing(logPath string, onLine func(string)) *stderrRing {
	r := &stderrRing{onLine: onLine}
	if logPath != "" {
		if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err == nil {
			flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
			if st, err := os.Stat(logPath); err == nil && st.Size() > maxStderrLogFile {
				flags |= os.O_TRUNC
			}
			if f, err := os.OpenFile(logPath, flags, 0o600); err == nil {
				r.file = f
			}
		}
	}
	return r
}

// Write implements io.Writer.
func (r *stderrRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.total += int64(len(p))
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - StderrRingSize; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	var lines []string
	if r.onLine != nil {
		r.partial = append(r.partial, p...)
		for {
			i := bytes.IndexByte(r.partial, '\n')
			if i < 0 {
				break
			}
			lines = append(lines, strings.TrimRight(string(r.partial[:i]), "\r"))
			r.partial = r.partial[i+1:]
		}
		if len(r.partial) > 4096 { // a line without end: flush what we have
			lines = append(lines, string(r.partial))
			r.partial = r.partial[:0]
		}
	}
	f := r.file
	r.mu.Unlock()
	if f != nil {
		_, _ = f.Write(p)
	}
	for _, l := range lines {
		r.onLine(l)
	}
	return len(p), nil
}

// Bytes returns a copy of what the ring holds.
func (r *stderrRing) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.buf...)
}

// Tail returns at most n trailing non-empty lines, joined with newlines.
func (r *stderrRing) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(string(r.Bytes()), "\n"), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			keep = append(keep, lines[i])
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "\n")
}

// Close closes the log file.
func (r *stderrRing) Close() error {
	r.mu.Lock()
	f := r.file
	r.file = nil
	r.mu.Unlock()
	if f != nil {
		return f.Close()
	}
	return nil
}

var _ io.Writer = (*stderrRing)(nil)
