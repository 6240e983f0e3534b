package mcp

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// EventReload: the config was read again (Reload is set): which servers
// started, stopped, restarted or kept their connection, or why the new
// config was not applied.
const EventReload EventKind = "reload"

// ReloadResult says what reading the config again changed.
type ReloadResult struct {
	// Started are new servers (or ones switched on, or whose file was
	// trusted since) now starting.
	Started []string `json:"started,omitempty"`
	// Stopped are servers gone from the config, switched off, or whose
	// project file is no longer trusted.
	Stopped []string `json:"stopped,omitempty"`
	// Removed are the Stopped servers that are gone from the config: the
	// runtime forgot them, their subscriptions too.
	Removed []string `json:"removed,omitempty"`
	// Restarted are servers whose entry changed: their connection was
	// closed and opened again with the new entry.
	Restarted []string `json:"restarted,omitempty"`
	// Kept are servers whose entry did not change: same connection, same
	// catalog.
	Kept []string `json:"kept,omitempty"`
	// Tools are servers whose "disabledTools" changed: applied to the
	// model's catalog without a restart.
	Tools []string `json:"tools,omitempty"`
	// Held are new or changed servers that do not start because their
	// project file is not trusted.
	Held []string `json:"held,omitempty"`
	// Untrusted are project files untrusted now that were not, or not with
	// this content, before: the person is asked about them.
	Untrusted []ConfigFile `json:"-"`
	// NeedsRestart are the top-level settings that changed ("model in
	// /path/mcp.json"): they apply at howl's next start only.
	NeedsRestart []string `json:"needs_restart,omitempty"`
	// Servers are the servers to show after the reload, sorted: the
	// enabled ones, and any switched off during the run that still runs.
	Servers []string `json:"servers"`
	// Notes are what merging the files decided (Config.Notes).
	Notes []string `json:"notes,omitempty"`
	// Err, when set, is why the config was not applied: the servers run
	// as before. It names the file, line and column when it can.
	Err string `json:"error,omitempty"`
}

// Changed reports whether the reload changed anything the person should
// hear about.
func (r ReloadResult) Changed() bool {
	return r.Err != "" || len(r.Started)+len(r.Stopped)+len(r.Restarted)+len(r.Tools)+len(r.Held)+len(r.Untrusted)+len(r.NeedsRestart) > 0
}

// String says what changed, in one line.
func (r ReloadResult) String() string {
	if r.Err != "" {
		return "the config was not reloaded, the servers run as before: " + r.Err
	}
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			parts = append(parts, what+" "+strings.Join(names, ", "))
		}
	}
	add("started", r.Started)
	add("stopped", r.Stopped)
	add("restarted", r.Restarted)
	add("switched tools of", r.Tools)
	add("not started until you trust their file:", r.Held)
	for _, f := range r.Untrusted {
		parts = append(parts, fmt.Sprintf("%s is not trusted (%s)", f.Path, f.Why))
	}
	if len(r.NeedsRestart) > 0 {
		parts = append(parts, "needs a restart to apply: "+strings.Join(r.NeedsRestart, ", "))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("config reloaded: nothing changed (%s kept)", countServers(len(r.Kept)))
	}
	if len(r.Kept) > 0 {
		parts = append(parts, fmt.Sprintf("%s kept", countServers(len(r.Kept))))
	}
	return "config reloaded: " + strings.Join(parts, "; ")
}

func countServers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

// sameEntry reports whether two entries run the same server the same
// way: what may differ without a restart are the switched-off tools,
// where the entry is written, whether it is switched off or trusted
// (handled apart) and what it was imported from.
func sameEntry(a, b ServerConfig) bool {
	if (a.Serve == nil) != (b.Serve == nil) {
		return false
	}
	for _, c := range []*ServerConfig{&a, &b} {
		c.DisabledTools, c.ImportedFrom, c.Origin, c.File, c.Declared = nil, "", "", "", ""
		c.Untrusted, c.Disabled, c.Serve = "", false, nil
	}
	return reflect.DeepEqual(a, b)
}

// runnable reports whether an entry may run: switched on and trusted.
func runnable(sc ServerConfig) bool { return !sc.Disabled && sc.Untrusted == "" }

// active reports whether a slot has been started (and not stopped since).
func (s *serverSlot) active() bool { return s.status.State != StateStopped }

// stoppedReason is why a server of entry sc is not running.
func stoppedReason(sc ServerConfig) string {
	switch {
	case sc.Untrusted != "":
		return sc.Untrusted
	case sc.Disabled:
		return "disabled in config"
	}
	return ""
}

// Apply makes the runtime run cfg's servers, changing only what changed:
// a new server starts, a removed one stops, a changed entry restarts, an
// unchanged one keeps its connection and catalog (a change of its
// "disabledTools" applies at once, without a restart). Calls to servers
// that keep running are not disturbed. base carries what the caller
// found beyond the servers (NeedsRestart, Untrusted, Notes); Apply fills
// in the rest, emits an EventReload with the result before any server
// starts (so a UI knows the servers before their states arrive), then
// starts them and returns the result.
func (r *Runtime) Apply(cfg *Config, base ReloadResult) ReloadResult {
	res := base
	next := map[string]ServerConfig{}
	for _, sc := range cfg.Servers {
		next[sc.Name] = sc
	}
	var closing []*Conn
	var rings []*stderrRing
	var start, emits, stopped []string
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		res.Err = "howl is shutting down"
		return res
	}
	stop := func(s *serverSlot, reason string) {
		if s.conn != nil {
			closing = append(closing, s.conn)
		}
		s.conn, s.catalog, s.kinds = nil, nil, nil
		s.modelCat, s.modelCatOf = nil, nil
		s.gen = r.nextGen() // a start in flight drops its result
		stopped = append(stopped, s.cfg.Name)
		s.status = Status{Name: s.cfg.Name, State: StateStopped, Reason: reason, Transport: s.cfg.Transport, Target: target(s.cfg)}
	}
	var order []string
	for _, name := range r.order {
		s := r.servers[name]
		nc, ok := next[name]
		if !ok {
			if s.active() {
				stop(s, "removed from the config")
				res.Stopped = append(res.Stopped, name)
			}
			if s.stderr != nil {
				rings = append(rings, s.stderr)
			}
			delete(r.servers, name)
			res.Removed = append(res.Removed, name)
			continue
		}
		order = append(order, name)
		oc, changed, run := s.cfg, !sameEntry(s.cfg, nc), runnable(nc)
		if !changed && !slices.Equal(oc.DisabledTools, nc.DisabledTools) {
			s.modelCat, s.modelCatOf = nil, nil
			res.Tools = append(res.Tools, name)
		}
		s.cfg = nc
		switch {
		case !changed && runnable(oc) == run, s.active() && run && !changed:
			// Whether it runs is compared with what the runtime knows:
			// Switch has applied howl's own writes already, and a server
			// switched off during the run keeps running, hidden.
			if s.active() {
				res.Kept = append(res.Kept, name)
			} else if why := stoppedReason(nc); why != s.status.Reason {
				s.status.Reason = why
				emits = append(emits, name)
			}
		case s.active() && run:
			stop(s, "")
			start = append(start, name)
			res.Restarted = append(res.Restarted, name)
		case s.active():
			stop(s, stoppedReason(nc))
			emits = append(emits, name)
			res.Stopped = append(res.Stopped, name)
		case run:
			start = append(start, name)
			res.Started = append(res.Started, name)
		default:
			s.status.Reason, s.status.Target = stoppedReason(nc), target(nc)
			emits = append(emits, name)
			if changed && nc.Untrusted != "" && !nc.Disabled {
				res.Held = append(res.Held, name)
			}
		}
	}
	for _, sc := range cfg.Servers {
		if _, ok := r.servers[sc.Name]; ok {
			continue
		}
		r.servers[sc.Name] = &serverSlot{cfg: sc, status: Status{
			Name: sc.Name, State: StateStopped, Reason: stoppedReason(sc), Transport: sc.Transport, Target: target(sc),
		}}
		order = append(order, sc.Name)
		switch {
		case runnable(sc):
			start = append(start, sc.Name)
			res.Started = append(res.Started, sc.Name)
		case !sc.Disabled:
			emits = append(emits, sc.Name) // its reason: not trusted
			res.Held = append(res.Held, sc.Name)
		}
	}
	sort.Strings(order)
	r.order = order
	res.Servers = nil
	for _, n := range order {
		// A server switched off during the run (.mcp disable) still
		// runs, hidden from the model by the UI: it stays listed.
		if s := r.servers[n]; !s.cfg.Disabled || s.active() {
			res.Servers = append(res.Servers, n)
		}
	}
	res.Notes = cfg.Notes
	statuses := make([]Status, 0, len(emits))
	for _, n := range emits {
		statuses = append(statuses, r.statusOf(r.servers[n]))
	}
	r.mu.Unlock()

	for _, n := range stopped {
		r.forgetRefresh(n) // the catalog its burst was about went with it
	}
	for _, n := range res.Removed {
		r.forgetSubscriptions(n)
	}
	r.emit(Event{Kind: EventReload, Reload: &res})
	for _, st := range statuses {
		r.emit(Event{Kind: EventState, Server: st.Name, Status: st})
	}
	var wg sync.WaitGroup
	for _, c := range closing {
		wg.Add(1)
		go func() { // each ends when its connection is closed
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	for _, ring := range rings {
		_ = ring.Close()
	}
	for _, n := range start {
		if err := r.start(n); err != nil {
			r.emit(Event{Kind: EventStderr, Server: n, Line: "howl: not started after the reload: " + err.Error()})
		}
	}
	return res
}

// settingsChanged lists the top-level keys whose value differs between
// two configs, each with the file it is (or was) set in: they apply at
// the next start.
func settingsChanged(old, cfg *Config) []string {
	keys := map[string]bool{}
	for k := range old.Extra {
		keys[k] = true
	}
	for k := range cfg.Extra {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		a, b := old.Extra[k], cfg.Extra[k]
		if a != nil && b != nil && sameJSON(a, b) {
			continue
		}
		src := cfg.ExtraSource[k]
		if src == "" {
			src = old.ExtraSource[k]
		}
		out = append(out, fmt.Sprintf("%q in %s", k, src))
	}
	sort.Strings(out)
	return out
}

// newlyUntrusted are cfg's untrusted project files that old did not have
// untrusted with the same content: the ones to ask about.
func newlyUntrusted(old, cfg *Config) []ConfigFile {
	var out []ConfigFile
	before := old.Untrusted()
	for _, f := range cfg.Untrusted() {
		asked := false
		for _, o := range before {
			if o.Path == f.Path && o.SHA256 == f.SHA256 {
				asked = true
			}
		}
		if !asked {
			out = append(out, f)
		}
	}
	return out
}
