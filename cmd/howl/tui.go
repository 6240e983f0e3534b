package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui"
	"github.com/howl-mcp/howl/tui/common"
)

// writesToTerminal reports whether w is a terminal: `howl` opens the TUI there
// and prints the overview anywhere else (a pipe, a file).
func writesToTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// runTUI opens the full-screen TUI on every enabled server. The terminal's
// background is probed once, before the program starts; servers start in
// the background and report through the relay; on quit the terminal is
// restored first, then the servers are closed.
func runTUI(ctx context.Context, g *globalFlags, rf resumeFlags, stdin io.Reader, stdout *os.File) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	// The session store, and the conversation to resume, before anything
	// starts: an unknown --session is an error on the terminal, not a
	// surprise in the TUI.
	ss, err := openTUIStore(ctx, rf)
	if err != nil {
		return err
	}
	if ss.st != nil {
		defer ss.st.Close()
	}
	// The config's permissions; the chat asks the person about every call
	// they do not allow.
	perms, err := llm.ParsePermissions(cfg.SourceOf("permissions"), cfg.Extra)
	if err != nil {
		return usageError{err}
	}
	if perms.Approvals, err = llm.DefaultApprovals(); err != nil {
		perms.Approvals = llm.NewApprovals("") // approvals last this run only
	}
	keys := common.DefaultKeyMap()
	if raw, ok := cfg.Extra["keys"]; ok {
		var bindings map[string][]string
		if err := json.Unmarshal(raw, &bindings); err != nil {
			return usagef("%s: \"keys\" must map binding names to key lists, e.g. {\"quit\": [\"q\", \"ctrl+q\"]}: %v", configSource(cfg), err)
		}
		if err := keys.Rebind(bindings); err != nil {
			return usagef("%s: %v", configSource(cfg), err)
		}
	}
	if _, err := elicitor(g); err != nil {
		return err // a mistyped --elicit
	}
	if _, err := sampler(g, cfg); err != nil {
		return err // a mistyped --sample
	}
	model, maxSteps, modelErr := tuiModel(ctx, g, cfg)
	topts := theme.Detect(os.Getenv)
	theme.Apply(topts)

	logger, closeLog, err := debugLogger()
	if err != nil {
		return err
	}
	defer closeLog()

	relay := tui.NewRelay()
	roots, rootsErr := mcp.DefaultRoots(cfg)
	if rootsErr != nil {
		relay.Notice("howl", rootsErr.Error()+": no roots are offered to servers")
	}
	sample := mcp.Sampler(relay.Sample) // the dialog asks; --sample=decline refuses
	if g.sample == "decline" {
		sample = declineSampling
	}
	oauth := oauthOptions(g)
	oauth.Notice = relay.Notice // stderr belongs to the full-screen program
	shape, err := mcp.ConfigFunctions(cfg)
	if err != nil {
		return err
	}
	rt := mcp.NewRuntime(cfg, mcp.RuntimeOptions{ClientName: "howl", ClientVersion: buildVersion(), OnEvent: relay.Push,
		Elicit: tuiElicitor(g, relay), Sample: sample, OAuth: oauth, Roots: roots, Functions: shape})
	defer rt.Close()
	rt.SetTracing(g.trace)  // the log pane shows them (t toggles)
	rt.SetTraceBodies(true) // kept while tracing, for the protocol view (enter on a traced line)
	var names []string
	for _, sc := range cfg.Enabled() {
		names = append(names, sc.Name)
	}
	if err := rt.Start(); err != nil {
		return err
	}
	// The config files are watched, and `.mcp reload` reads them, unless
	// the servers come from the command line. The watch ends before the
	// runtime closes (defers run last first).
	var reloader *mcp.Reloader
	var reload func() (mcp.ReloadResult, error)
	if g.oneOff() == "" {
		reloader = mcp.NewReloader(rt, cfg, loadOptions(g))
		reload = reloader.Reload
		wctx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			reloader.Watch(wctx, mcp.WatchInterval)
		}()
		defer func() { stopWatch(); <-watched }()
	}

	var progOpts []tea.ProgramOption
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		progOpts = append(progOpts, tea.WithInput(f))
	} else {
		progOpts = append(progOpts, tea.WithInputTTY())
	}
	return tui.Run(ctx, tui.Options{
		Runtime:      rt,
		Servers:      names,
		Theme:        theme.New(topts),
		Keys:         keys,
		Images:       common.DetectImageMode(os.Getenv),
		Clipboard:    &common.OSC52{Out: stdout},
		DisplayPath:  homeTilde,
		Model:        model,
		ModelError:   modelErr,
		MaxSteps:     maxSteps,
		Permissions:  &perms,
		ConfigPath:   cfg.UserFile,
		SwitchModel:  switchModel(g, cfg),
		Editor:       os.Getenv("EDITOR"),
		Log:          logger,
		DumpMessages: os.Getenv("HOWL_DEBUG") == "messages",
		Trace:        g.trace,
		Store:        tuiStore(ss.st),
		StoreError:   ss.unavailable,
		Resume:       ss.resume,
		Trust:        projectTrust(cfg, reloader),
		NoConfig:     cfg.Looked,
		Reload:       reload,
	}, relay, stdout, progOpts...)
}

// projectTrust is what the TUI needs to ask about the untrusted project
// files: trusting one records it (when it is to be remembered) and starts
// its servers, the reloader deciding (a file trusted for this run stays
// so across reloads while its content is what the person saw). Its
// settings apply from the next start: the chat's model and rules were
// resolved before the TUI opened. Nil without a reloader: servers named
// on the command line (--url, --stdio) come from no file to trust.
func projectTrust(cfg *mcp.Config, rl *mcp.Reloader) *tui.ProjectTrust {
	if rl == nil {
		return nil
	}
	return &tui.ProjectTrust{Files: cfg.Untrusted(), Allow: rl.Trust}
}

// resumeFlags are the root's --continue and --session: the conversation
// the TUI opens on.
type resumeFlags struct {
	latest  bool
	session string
}

// addResumeFlags declares --continue and --session on the root (they open
// the TUI; the verbs have their own).
func addResumeFlags(root *cobra.Command) {
	root.Flags().BoolP("continue", "c", false, "open the TUI's chat on the latest saved conversation")
	root.Flags().String("session", "", "open the TUI's chat on this saved conversation (see howl sessions list)")
}

// resumeFrom reads the root's --continue and --session.
func resumeFrom(cmd *cobra.Command) resumeFlags {
	latest, _ := cmd.Flags().GetBool("continue")
	session, _ := cmd.Flags().GetString("session")
	return resumeFlags{latest: latest, session: session}
}

// tuiSessions is the TUI's session store (nil when it could not be opened:
// unavailable says why) and the conversation to resume (nil for a new one).
type tuiSessions struct {
	st          *store.Store
	resume      *tui.Resume
	unavailable error
}

// openTUIStore opens the session store and loads the conversation to
// resume. A store that cannot be opened is no error (the TUI says so once
// and saves nothing) unless a conversation was asked for.
func openTUIStore(ctx context.Context, rf resumeFlags) (tuiSessions, error) {
	if rf.latest && rf.session != "" {
		return tuiSessions{}, usagef("--continue and --session both name a conversation: keep one of them")
	}
	st, err := openStore(ctx)
	if err != nil {
		if rf.latest || rf.session != "" {
			return tuiSessions{}, fmt.Errorf("opening the session database to continue: %w", err)
		}
		return tuiSessions{unavailable: err}, nil
	}
	if !rf.latest && rf.session == "" {
		return tuiSessions{st: st}, nil
	}
	var sess store.Session
	if rf.latest {
		sess, err = st.Latest(ctx)
		if err != nil {
			err = usageError{fmt.Errorf("--continue: %w: start one in the chat (c), or with howl ask \"...\"", err)}
		}
	} else {
		sess, err = st.Get(ctx, rf.session)
		err = notFoundIsUsage(err)
	}
	var conv *llm.Conversation
	if err == nil {
		conv, err = st.Load(ctx, sess.ID)
	}
	if err != nil {
		st.Close()
		return tuiSessions{}, err
	}
	return tuiSessions{st: st, resume: &tui.Resume{Session: sess, Conv: conv}}, nil
}

// tuiStore is st as the TUI's store, or nil (a nil *store.Store must not
// become a non-nil interface).
func tuiStore(st *store.Store) common.SessionStore {
	if st == nil {
		return nil
	}
	return st
}

// tuiModel resolves the chat's model the way `howl ask` does (--model and
// --base-url, $HOWL_MODEL, the config's model section, auto-detection).
// Without one the TUI still opens: the chat shows the error's fix.
func tuiModel(ctx context.Context, g *globalFlags, cfg *mcp.Config) (llm.Model, int, error) {
	choice, err := resolveModel(ctx, g, cfg, 0)
	if err != nil {
		return nil, 0, err
	}
	model, err := llm.NewModel(choice)
	if err != nil {
		return nil, 0, err
	}
	return model, choice.MaxSteps, nil
}

// switchModel resolves `.model provider/name` with the same flags and
// config, the name replacing --model.
func switchModel(g *globalFlags, cfg *mcp.Config) func(context.Context, string) (llm.Model, error) {
	flags := *g
	return func(ctx context.Context, spec string) (llm.Model, error) {
		f := flags
		f.model = spec
		choice, err := resolveModel(ctx, &f, cfg, 0)
		if err != nil {
			return nil, err
		}
		return llm.NewModel(choice)
	}
}

// tuiElicitor honours --elicit defaults and decline; asking (the default)
// opens the TUI's elicitation dialog through the relay.
func tuiElicitor(g *globalFlags, relay *tui.Relay) mcp.Elicitor {
	switch g.elicit {
	case "defaults":
		return mcp.ElicitWithDefaults
	case "decline":
		return mcp.ElicitDeclineAll
	}
	return relay.Elicit
}

// debugLogger logs to <cache dir>/howl-debug.log when HOWL_DEBUG is set
// (never to the terminal the TUI draws on).
func debugLogger() (*log.Logger, func(), error) {
	if os.Getenv("HOWL_DEBUG") == "" {
		return nil, func() {}, nil
	}
	dir, err := render.CacheDir()
	if err != nil {
		return nil, nil, fmt.Errorf("HOWL_DEBUG is set but there is no directory for its log: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("HOWL_DEBUG is set but the log directory %s cannot be created: %w; unset HOWL_DEBUG or set HOWL_CACHE_DIR", dir, err)
	}
	f, err := render.OpenPrivate(filepath.Join(dir, "howl-debug.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("HOWL_DEBUG is set but the debug log cannot be opened: %w", err)
	}
	log.SetOutput(f) // what tea.LogToFile did: the standard logger writes there too
	log.SetPrefix("howl ")
	return log.New(f, "howl ", log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}

// homeTilde shows paths under the home directory as ~/...
func homeTilde(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return p
}
