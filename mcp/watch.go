package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// WatchInterval is how often Watch looks at the config files: a stat of
// each (a few files), and a read of at most MaxConfigBytes of one whose
// size, time, mode or identity changed.
const WatchInterval = 500 * time.Millisecond

// WatchMaxWait bounds how many looks in a row may see a change before
// Watch reloads anyway. A change is applied once a look finds the files
// as they were at the look before (an editor's several writes, a
// rename, make one reload); a file rewritten without pause is reloaded
// every WatchMaxWait looks, never at every write.
const WatchMaxWait = 10

// Reloader reads the config files in use again and applies them to a
// runtime (Runtime.Apply): `.mcp reload` and the watch of the files both
// go through Reload. It keeps what the person decided during the run:
// project files trusted for this run stay trusted while their content is
// what the person saw (howl's own writes to them included).
type Reloader struct {
	rt   *Runtime
	opts LoadOptions

	// mu makes reloads (and trusts) one at a time, and guards runTrust.
	mu       sync.Mutex
	runTrust map[string]string
	// cfg is the config applied last: read without mu, so a verb asking
	// for it never waits on a reload that is stopping a slow server.
	// Replaced whole, never changed in place.
	cfg atomic.Pointer[Config]
}

// NewReloader returns a Reloader of rt, which runs cfg, loaded with opts.
func NewReloader(rt *Runtime, cfg *Config, opts LoadOptions) *Reloader {
	l := &Reloader{rt: rt, opts: opts, runTrust: map[string]string{}}
	if opts.TrustProject {
		// --trust-project trusts the project files the person started
		// with, as they were: a file that changes or appears later (a
		// checkout, a pull, a model's write) is asked about again, like
		// one trusted with "o" for the run.
		l.opts.TrustProject = false
		for _, f := range cfg.Files {
			if f.Origin == OriginProject {
				l.runTrust[f.Key] = f.SHA256
			}
		}
	}
	l.cfg.Store(cfg)
	rt.mu.Lock()
	rt.wrote = l.wrote
	rt.mu.Unlock()
	return l
}

// Config is the config applied last. Do not change it. It answers at
// once, even while a reload runs (the reload's config is returned once
// applied).
func (l *Reloader) Config() *Config {
	return l.cfg.Load()
}

// Reload reads the config files again and applies what changed. A file
// that cannot be read or parsed (or a file in use that is gone) changes
// nothing: the servers run as before and the error, with the file, line
// and column, is returned and reported as an EventReload.
func (l *Reloader) Reload() (ReloadResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	opts := l.opts
	opts.RunTrust = maps.Clone(l.runTrust)
	cfg, err := LoadConfig(opts)
	if err == nil {
		err = l.unusable(cfg)
	}
	if err != nil {
		res := ReloadResult{Err: oneLine(err.Error())}
		l.rt.emit(Event{Kind: EventReload, Reload: &res})
		return res, err
	}
	cur := l.cfg.Load()
	base := ReloadResult{NeedsRestart: settingsChanged(cur, cfg), Untrusted: newlyUntrusted(cur, cfg)}
	res := l.rt.Apply(cfg, base)
	if res.Err != "" {
		return res, errors.New(res.Err)
	}
	l.cfg.Store(cfg)
	return res, nil
}

// unusable is why cfg must not replace the config in use: a file in use
// that no longer parses, or that is gone (l.mu held).
func (l *Reloader) unusable(cfg *Config) error {
	cur := l.cfg.Load()
	for _, b := range cfg.Broken {
		for _, f := range cur.Files {
			if f.Path == b.Path {
				return b.Err
			}
		}
	}
	for _, f := range cur.Files {
		st, err := os.Stat(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s is gone: put it back (it is applied once it parses), or restart howl to run without it", f.Path)
		case err == nil && !st.Mode().IsRegular():
			return notRegular(f.Path, st) // the lookup would skip it and run without it
		}
	}
	return nil
}

// Trust lets the project file f be used, as the person saw it: for this
// run, or (remember) in the trust store the config is loaded with, until
// it changes. Its servers start; their names are returned. A file whose
// content changed since the person was asked is not trusted: the reload
// of the change asks again.
func (l *Reloader) Trust(f ConfigFile, remember bool) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.cfg.Load()
	current := false
	for _, c := range cur.Files {
		current = current || c.Path == f.Path && c.SHA256 == f.SHA256
	}
	if !current {
		return nil, fmt.Errorf("%s changed since you were asked about it: nothing of it is used; you are asked again about what it says now", f.Path)
	}
	why := "trusted for this run"
	if remember {
		ts, err := l.opts.trustStore()
		if err != nil {
			return nil, err
		}
		if err := ts.Trust(f.Key, f.SHA256, time.Now()); err != nil {
			return nil, err
		}
		why = "trusted on " + time.Now().Format("2006-01-02")
	} else {
		l.runTrust[f.Key] = f.SHA256
	}
	next := cur.clone() // readers may hold cur: it is not changed
	names := next.TrustFile(f.Path, why)
	l.cfg.Store(next)
	return names, l.rt.Trust(names...)
}

// clone copies c deep enough for TrustFile to change the copy alone.
func (c *Config) clone() *Config {
	n := *c
	n.Servers = slices.Clone(c.Servers)
	n.Files = slices.Clone(c.Files)
	n.Notes = slices.Clone(c.Notes)
	n.Extra = maps.Clone(c.Extra)
	n.ExtraSource = maps.Clone(c.ExtraSource)
	return &n
}

// wrote hears of a config file the runtime rewrote (Switch): a file
// trusted for this run stays trusted with the content howl wrote.
func (l *Reloader) wrote(path string, before, after []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := TrustKey(path)
	if sum, ok := l.runTrust[key]; ok && sum == hashConfig(before) {
		l.runTrust[key] = hashConfig(after)
	}
}

// WatchedFiles are the files Watch looks at: --config or $HOWL_CONFIG
// alone, else the user's file and the project's ./.mcp.json, whether or
// not they exist yet (one that appears is read), and the store of trusted
// project files, so that howl trust run elsewhere (by the person, in
// another terminal) starts the project's servers here too.
func (l *Reloader) WatchedFiles() []string {
	if l.opts.Path != "" {
		return []string{l.opts.Path}
	}
	if p, ok := l.opts.getenv()("HOWL_CONFIG"); ok && p != "" {
		return []string{p}
	}
	var out []string
	for _, c := range defaultCandidates(configDirs(l.opts)) {
		out = append(out, c.path)
	}
	if p := l.trustStorePath(); p != "" {
		out = append(out, p)
	}
	return out
}

// trustStorePath is the file of the trust store the config is loaded
// with ("" when there is none to watch).
func (l *Reloader) trustStorePath() string {
	ts, err := l.opts.trustStore()
	if err != nil {
		return ""
	}
	return ts.Path()
}

// Watch reloads the config when its files change, until ctx ends: it
// looks every interval (WatchInterval) and applies a change once the
// files hold still for one look (see WatchMaxWait). Polling works alike
// on every platform, sees a file an editor replaced by a rename, and a
// file that appears; it needs no dependency. The caller owns the
// goroutine it runs on.
func (l *Reloader) Watch(ctx context.Context, interval time.Duration) {
	l.WatchReporting(ctx, interval, nil)
}

// WatchReporting is Watch that also hands each reload's outcome to
// report (when not nil), on the watch's goroutine: for a caller that
// hears no runtime events, such as howl serve-session's log.
func (l *Reloader) WatchReporting(ctx context.Context, interval time.Duration, report func(ReloadResult, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	l.watch(ctx, t.C, report, nil)
}

// watch is WatchReporting driven by tick; looked, when set, hears when
// each look (and the reload it led to) is done (tests send the ticks and
// wait).
func (l *Reloader) watch(ctx context.Context, tick <-chan time.Time, report func(ReloadResult, error), looked func()) {
	w := l.newFileWatch()
	pending := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		changed := w.changed()
		if changed {
			pending++
		}
		if pending > 0 && (!changed || pending >= WatchMaxWait) {
			pending = 0
			res, err := l.Reload() // reported as an EventReload too
			if report != nil {
				report(res, err)
			}
		}
		if looked != nil {
			looked()
		}
	}
}

// fileWatch remembers what each watched file looked like.
type fileWatch struct {
	paths []string
	seen  map[string]fileLook
}

// fileLook is one look at a file: its stat, and the hash of its content
// (or why it could not be read).
type fileLook struct {
	info os.FileInfo
	sum  string
}

// newFileWatch starts from the content the config was loaded from, so a
// change made between the load and the first look is seen.
func (l *Reloader) newFileWatch() *fileWatch {
	loaded := map[string]string{}
	for _, f := range l.Config().Files {
		loaded[f.Path] = f.SHA256
	}
	w := &fileWatch{paths: l.WatchedFiles(), seen: map[string]fileLook{}}
	trust := l.trustStorePath()
	for _, p := range w.paths {
		sum, ok := loaded[realPath(p)]
		if !ok {
			sum = "absent"
		}
		w.seen[p] = fileLook{sum: sum}
	}
	if _, ok := w.seen[trust]; ok {
		// The store is not a config file: what it holds now is where the
		// watch starts, so only a later change (howl trust) reloads.
		base := &fileWatch{paths: []string{trust}, seen: map[string]fileLook{}}
		base.changed()
		w.seen[trust] = base.seen[trust]
	}
	return w
}

// changed looks at every file and reports whether any content changed.
// Only a file whose stat changed is read, at most MaxConfigBytes of it.
func (w *fileWatch) changed() bool {
	any := false
	for _, p := range w.paths {
		prev := w.seen[p]
		st, err := os.Stat(p)
		var now fileLook
		switch {
		case errors.Is(err, fs.ErrNotExist):
			now.sum = "absent"
		case err != nil:
			now.sum = "error: " + err.Error()
		case prev.info != nil && os.SameFile(prev.info, st) && prev.info.Size() == st.Size() &&
			prev.info.ModTime().Equal(st.ModTime()) && prev.info.Mode() == st.Mode():
			continue
		default:
			now.info = st
			data, err := ReadConfigBytes(p) // bounded; refuses pipes and devices
			now.sum = hashConfig(data)
			if err != nil {
				now.sum = "error: " + err.Error()
			}
		}
		any = any || now.sum != prev.sum
		w.seen[p] = now
	}
	return any
}
