package mcp

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/howl-mcp/howl/render"
)

// StderrRingSize is how much of each server's most recent stderr howl keeps
// in memory for the failure reason and the log view.
const StderrRingSize = 256 << 10

// MaxStderrLog bounds a server's stderr log file. A write that would take
// the file past it first rotates it to <file>.1 (replacing the one older
// file kept) and starts the file afresh, so however fast a server writes,
// its logs hold at most 2*MaxStderrLog bytes on disk.
const MaxStderrLog = 8 << 20

// stderrRing keeps the last StderrRingSize bytes written to it and mirrors
// every write to an optional log file. Writes never block on readers.
type stderrRing struct {
	mu    sync.Mutex
	buf   []byte
	total int64
	// onLine, when set, gets each complete line (without the newline).
	onLine  func(string)
	partial []byte

	// The log file: writes, rotation and Close hold fileMu.
	fileMu  sync.Mutex
	file    *os.File
	path    string
	written int64 // bytes in file
}

// newStderrRing returns a ring that also logs to logPath (none when
// empty). When the log cannot be opened, the ring keeps memory only and
// the error says why.
func newStderrRing(logPath string, onLine func(string)) (*stderrRing, error) {
	r := &stderrRing{onLine: onLine, path: logPath}
	if logPath == "" {
		return r, nil
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return r, err
	}
	return r, r.openLog(0)
}

// openLog opens the log file for appending (flag may add os.O_TRUNC) and
// learns its size. It never writes through a link planted at the path
// (render.OpenPrivate). Without a file, the ring only keeps memory.
func (r *stderrRing) openLog(flag int) error {
	f, err := render.OpenPrivate(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|flag, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.file, r.written = f, st.Size()
	return nil
}

// writeLog appends p to the log file, rotating it first when p would take
// it past MaxStderrLog (keeping only p's tail when p alone is larger).
func (r *stderrRing) writeLog(p []byte) {
	r.fileMu.Lock()
	defer r.fileMu.Unlock()
	if r.file == nil {
		return
	}
	if len(p) > MaxStderrLog {
		p = p[len(p)-MaxStderrLog:]
	}
	if r.written+int64(len(p)) > MaxStderrLog {
		r.file.Close()
		r.file = nil
		if os.Rename(r.path, r.path+".1") != nil {
			return // the file cannot be bounded: stop logging to it
		}
		if r.openLog(os.O_TRUNC) != nil {
			return
		}
	}
	n, _ := r.file.Write(p)
	r.written += int64(n)
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
	r.mu.Unlock()
	r.writeLog(p)
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

// Close closes the log file; later writes only reach memory.
func (r *stderrRing) Close() error {
	r.fileMu.Lock()
	defer r.fileMu.Unlock()
	f := r.file
	r.file = nil
	if f != nil {
		return f.Close()
	}
	return nil
}

var _ io.Writer = (*stderrRing)(nil)
