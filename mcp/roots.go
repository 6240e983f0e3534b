package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// rootsBook is the list of roots offered to servers that ask (roots/list).
type rootsBook struct {
	mu    sync.Mutex
	roots []string // absolute directories
}

func (b *rootsBook) get() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.roots...)
}

// rootsHandler answers one server's roots/list.
type rootsHandler struct {
	book *rootsBook
	// answered, when set, is told each answer (for tracing).
	answered func(start time.Time, n int)
}

func (h rootsHandler) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	start := time.Now()
	res := &mcpgo.ListRootsResult{Roots: []mcpgo.Root{}}
	for _, d := range h.book.get() {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		res.Roots = append(res.Roots, mcpgo.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	if h.answered != nil {
		h.answered(start, len(res.Roots))
	}
	return res, nil
}

// rootsBookOf is what a server is offered when it asks for roots: its
// entry's own "roots", else the runtime's (nil: none, and howl does not
// declare the capability).
func (r *Runtime) rootsBookOf(sc ServerConfig) *rootsBook {
	if !sc.OwnRoots {
		return r.roots
	}
	own, err := absRoots(sc.Roots)
	if err != nil {
		own = sc.Roots
	}
	return &rootsBook{roots: own}
}

// absRoots makes every root an absolute, clean directory path.
func absRoots(dirs []string) ([]string, error) {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		a, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", d, err)
		}
		out = append(out, filepath.Clean(a))
	}
	return out, nil
}

// Roots returns the roots howl offers to servers (nil when it offers none).
func (r *Runtime) Roots() []string {
	if r.roots == nil {
		return nil
	}
	return r.roots.get()
}

// SetRoots replaces the roots offered to servers and tells every ready
// server (notifications/roots/list_changed), except those whose entry
// names roots of its own. The runtime must have been
// created with RuntimeOptions.Roots set: a server only asks a client that
// declared roots in its handshake.
func (r *Runtime) SetRoots(ctx context.Context, dirs []string) error {
	if r.roots == nil {
		return fmt.Errorf("this runtime offers no roots (RuntimeOptions.Roots was nil): servers were told howl has none")
	}
	abs, err := absRoots(dirs)
	if err != nil {
		return err
	}
	r.roots.mu.Lock()
	r.roots.roots = abs
	r.roots.mu.Unlock()
	r.mu.Lock()
	var conns []*Conn
	for _, n := range r.order {
		// A server with roots of its own is offered those still.
		if s := r.servers[n]; s.conn != nil && s.status.State == StateReady && !s.cfg.OwnRoots {
			conns = append(conns, s.conn)
		}
	}
	r.mu.Unlock()
	var firstErr error
	for _, c := range conns {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := c.client.RootListChanges(nctx); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("telling %s the roots changed: %w", c.name, err)
		}
		cancel()
	}
	return firstErr
}

// ConfigRoots reads the config's top-level "roots" (a list of directories,
// ~ and ${VAR} not expanded); nil when there is none.
func ConfigRoots(cfg *Config) ([]string, error) {
	raw, ok := cfg.Extra["roots"]
	if !ok {
		return nil, nil
	}
	var dirs []string
	if err := json.Unmarshal(raw, &dirs); err != nil {
		return nil, &ConfigError{File: cfg.Source, Field: "roots", Msg: "is not a list of directory paths", Fix: `write "roots": ["/path/to/project"]`}
	}
	return dirs, nil
}

// DefaultRoots is the config's "roots", else the working directory.
func DefaultRoots(cfg *Config) ([]string, error) {
	dirs, err := ConfigRoots(cfg)
	if err != nil || dirs != nil {
		return dirs, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return []string{wd}, nil
}
