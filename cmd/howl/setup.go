package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// verbStartWait bounds how long a headless verb waits for its servers.
const verbStartWait = 60 * time.Second

// demoServerConfig is the entry used when no config file exists: what
// `howl demo-server` runs, served in this process over stdio's framing on
// two pipes, so the demo does not pay a second howl start-up.
func demoServerConfig() mcp.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return mcp.ServerConfig{
		Name: demo.Name, Transport: mcp.TransportStdio, Command: exe, Args: []string{"demo-server"},
		Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
			return demo.ServeStdio(ctx, demo.New(demo.Options{}), in, out)
		},
		// The demo speaks both eras; on 2025-11-25 a call costs ~175 us
		// instead of ~245 us, because mcp-go re-marshals every 2026-07-28
		// request to add its _meta (measured: BenchmarkCallMetaEcho).
		Era: mcp.EraLegacy,
		// The demo's summarize tool asks the client's model (sampling):
		// it is howl's own server, so it may, with the person's approval
		// as always (a dialog, or --sample).
		Sampling: true,
	}
}

// urlServer and stdioServer are the names --url and --stdio give their
// server.
const (
	urlServer   = "url"
	stdioServer = "stdio"
)

// oneOff is the server named on the command line (--url, --stdio), ""
// when the config names them.
func (g *globalFlags) oneOff() string {
	switch {
	case g.url != "":
		return urlServer
	case g.stdio != "":
		return stdioServer
	}
	return ""
}

func loadConfig(g *globalFlags) (*mcp.Config, error) {
	if g.url != "" || g.stdio != "" {
		return oneOffConfig(g)
	}
	cfg, err := mcp.LoadConfig(loadOptions(g))
	if err != nil {
		return nil, usageError{err}
	}
	return cfg, nil
}

// loadOptions are where the config is looked for: the same on a reload.
func loadOptions(g *globalFlags) mcp.LoadOptions {
	return mcp.LoadOptions{Path: g.config, Demo: demoServerConfig(), TrustProject: g.trustProject}
}

// session is a loaded config plus a runtime whose servers have settled.
type session struct {
	cfg *mcp.Config
	rt  *mcp.Runtime
	// borrowed: the session belongs to howl serve-session, which closes it.
	borrowed bool
	// parked are the servers' questions a serve-session holds for howl answer.
	parked *parkedQuestions
	// current, in a serve-session that watches its config files, is the
	// config it applied last (cfg is the one it started with).
	current func() *mcp.Config
}

// config is the session's config as it is now.
func (s *session) config() *mcp.Config {
	if s.current != nil {
		return s.current()
	}
	return s.cfg
}

// shared is the serve-session's session lent to one verb (nil outside one),
// the names checked against its config.
func shared(g *globalFlags, names ...string) (*session, error) {
	cfg := g.shared.config()
	if err := checkNames(cfg, names...); err != nil {
		return nil, err
	}
	return &session{cfg: cfg, rt: g.shared.rt, parked: g.shared.parked, borrowed: true}, nil
}

// open loads the config and starts the named servers (all enabled ones when
// none are named), waiting until each is ready or failed.
func open(ctx context.Context, g *globalFlags, names ...string) (*session, error) {
	if g.shared != nil {
		return shared(g, names...)
	}
	cfg, err := loadConfig(g)
	if err != nil {
		return nil, err
	}
	return start(ctx, g, cfg, names...)
}

// traceWriter prints --trace's lines ("howl trace demo: → tools/call echo
// · 1.2ms · 70 B") on stderr; events arrive from every server's goroutines
// at once, so the lines are written one at a time. Nil without --trace.
func traceWriter(g *globalFlags) func(mcp.Event) {
	if !g.trace {
		return nil
	}
	if g.traceFull {
		return fullTraceWriter(g.traceOut)
	}
	var mu sync.Mutex
	return func(e mcp.Event) {
		if e.Kind != mcp.EventTrace || e.Trace == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(g.traceOut, "howl trace %s: %s\n", render.SanitizeLine(e.Server), e.Trace)
	}
}

// checkNames says which configured server a name does not match, or
// names a server of an untrusted project file.
func checkNames(cfg *mcp.Config, names ...string) error {
	for _, n := range names {
		sc, ok := cfg.Server(n)
		if !ok {
			return usagef("no server named %q in %s: configured servers are %v", n, configSource(cfg), cfg.Names())
		}
		if sc.Untrusted != "" {
			return usagef("server %q %s (it %s)", n, sc.Untrusted, sc.Declared)
		}
	}
	return nil
}

// warnConfig tells a verb's user, on stderr, what of the config is not
// used: each untrusted project file with what it would run and set, and
// the notes of the merge (a name clash, an unreadable project file).
func warnConfig(w io.Writer, cfg *mcp.Config) {
	if w == nil {
		return
	}
	for _, f := range cfg.Untrusted() {
		fmt.Fprintf(w, "howl: %s is a project config you have not trusted (%s), so nothing from it is used. It would:\n", clean(f.Path), clean(f.Why))
		for _, l := range f.Summary() {
			fmt.Fprintf(w, "howl:   %s\n", clean(l))
		}
		fmt.Fprintf(w, "howl: trust it with `%s` (it asks again if the file changes), or pass --trust-project for this run\n", clean(mcp.TrustCommand(f.Path)))
	}
	for _, n := range cfg.Notes {
		fmt.Fprintf(w, "howl: note: %s\n", clean(n))
	}
}

// start is open for a verb that has loaded the config already.
func start(ctx context.Context, g *globalFlags, cfg *mcp.Config, names ...string) (*session, error) {
	if g.shared != nil {
		return shared(g, names...)
	}
	warnConfig(g.warnOut, cfg)
	if err := checkNames(cfg, names...); err != nil {
		return nil, err
	}
	elicit, err := elicitor(g)
	if err != nil {
		return nil, err
	}
	sample, err := sampler(g, cfg)
	if err != nil {
		return nil, err
	}
	shape, err := mcp.ConfigFunctions(cfg)
	if err != nil {
		return nil, err
	}
	rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{ClientName: "howl", ClientVersion: buildVersion(), Elicit: elicit, Sample: sample, OAuth: oauthOptions(g), Roots: configRoots(g.warnOut, cfg),
		OnEvent: traceWriter(g), Functions: shape})
	rt.SetTracing(g.trace) // before Start: the handshake is traced too
	rt.SetTraceBodies(g.traceFull)
	if err := rt.Start(names...); err != nil {
		rt.Close()
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, verbStartWait)
	defer cancel()
	if err := rt.Wait(wctx); err != nil {
		rt.Close()
		return nil, fmt.Errorf("waiting for servers to start: %w", err)
	}
	return &session{cfg: cfg, rt: rt}, nil
}

// serverArgs is a verb's positional arguments with the implicit --url or
// --stdio server prepended, checked against the verb's count (which
// includes SERVER).
func serverArgs(g *globalFlags, args []string, min, max int) ([]string, error) {
	if s := g.oneOff(); s != "" {
		args = append([]string{s}, args...)
	}
	if len(args) < min || (max >= 0 && len(args) > max) {
		want := fmt.Sprintf("%d", min)
		if max != min {
			want = fmt.Sprintf("at least %d", min)
		}
		if g.oneOff() != "" {
			return nil, usagef("with --url or --stdio, give the arguments after SERVER (%d given, want %s including SERVER)", len(args)-1, want)
		}
		return nil, usagef("%d arguments given, want %s: see --help", len(args), want)
	}
	return args, nil
}

func configSource(cfg *mcp.Config) string {
	if cfg.Source == "" {
		return "the built-in demo configuration"
	}
	if len(cfg.Files) > 1 {
		var names []string
		for _, f := range cfg.Files {
			names = append(names, f.Path)
		}
		return strings.Join(names, " + ")
	}
	return cfg.Source
}

// close flushes nothing itself: callers print their output first, so a slow
// server exit never delays what the person reads.
func (s *session) close() {
	if !s.borrowed {
		s.rt.Close()
	}
}

// writeJSON prints v as indented JSON in field order, without HTML
// escaping, with every character a terminal could act on escaped.
func writeJSON(w io.Writer, v any) error {
	b, err := indentJSON(v, "")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// indentJSON is v as writeJSON writes it, at an indentation of prefix
// (for a value nested in one written in pieces), ending in a newline.
// A value nested deep enough that indenting would multiply its size (a
// server's schema or result) is written on one line (render.IndentJSON).
func indentJSON(v any, prefix string) ([]byte, error) {
	compact, err := render.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := render.IndentJSON(&b, compact, prefix, "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return render.EscapeTerminalControls(b.Bytes()), nil
}

// clean makes a server string safe to print on a terminal, on one line.
func clean(s string) string { return render.SanitizeLine(s) }

// cleanText makes a multi-line server string safe to print on a terminal.
func cleanText(s string) string { return render.Sanitize(s) }
