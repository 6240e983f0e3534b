// Command howl is a full-screen terminal client for MCP servers, with
// headless verbs that share its code paths (see `howl --help`).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// Exit codes: 0 ok, 1 server or tool error, 2 usage error.
const (
	exitOK     = 0
	exitServer = 1
	exitUsage  = 2
)

// usageError marks a mistake in how howl was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the exit, so tests can drive it.
//
// Every byte the verbs print, on stdout and on stderr, passes through a
// render.SafeWriter: whatever a server, a model, a stored session or a
// config file put in a message or an error, no escape sequence, control
// character or bidi control reaches the terminal or pipe. Only the TUI
// (which draws its own, sanitized screen) and the demo server's protocol
// stream get the raw stdout.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		// What cobra's version flag prints, before the command tree, the
		// signal handler or the logger are built: a script asking which
		// howl it has pays the package inits and nothing else.
		out := render.NewSafeWriter(stdout)
		fmt.Fprintf(out, "howl version %s\n", versionLine())
		out.Flush()
		return exitOK
	}
	// mcp-go writes some warnings (a tool it leaves out, say) to slog's
	// default logger, that is the terminal: unsanitized, and through the
	// TUI's screen. howl reports what matters itself (catalog warnings,
	// the server log), so the libraries' default logger says nothing.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if rest, ok := sessionFlag(args); ok {
		safeOut, safeErr := render.NewSafeWriter(stdout), render.NewSafeWriter(stderr)
		defer safeErr.Flush()
		defer safeOut.Flush()
		return runInSession(ctx, rest, safeOut, safeErr)
	}
	return execute(ctx, args, stdin, stdout, stdout, stderr, nil)
}

// runShared runs a verb inside howl serve-session: its servers are the
// session's (shared), it reads nothing, and the TUI is not offered.
func runShared(ctx context.Context, args []string, shared *session, stdout, stderr io.Writer) int {
	return execute(ctx, args, strings.NewReader(""), io.Discard, stdout, stderr, shared)
}

// execute runs one verb (shared: the serve-session's servers, else nil).
func execute(ctx context.Context, args []string, stdin io.Reader, raw, stdout, stderr io.Writer, shared *session) int {
	counted := &countingWriter{w: stdout}
	safeOut, safeErr := render.NewSafeWriter(counted), render.NewSafeWriter(stderr)
	defer safeErr.Flush()
	defer safeOut.Flush()
	root := newRootCmdIn(stdin, raw, safeOut, safeErr, shared)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	safeOut.Flush()
	code := exitServer
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		code = exitUsage
	}
	// A --json verb that printed nothing prints its error as JSON; one that
	// printed its result already (a listing with failed servers, a tool
	// error) keeps stdout one JSON value and says the rest on stderr.
	if wantsJSON(cmd, args) && counted.n == 0 {
		_ = writeJSON(safeOut, errorReport{Error: describeError(err, code)})
		return code
	}
	fmt.Fprintln(safeErr, "howl:", err)
	return code
}

// countingWriter counts what a verb wrote.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// errorReport is a --json verb's failure: one object on stdout, so a
// script reads it where it reads the result. The exit code is the same
// as without --json.
type errorReport struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	// Kind is "usage" (exit 2: how howl was called) or "server" (exit 1:
	// a server, a tool or the model failed).
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Fix is what to do, when the error says it apart from its message.
	Fix string `json:"fix,omitempty"`
}

func describeError(err error, code int) errorBody {
	b := errorBody{Kind: "server", Message: err.Error()}
	if code == exitUsage {
		b.Kind = "usage"
	}
	var ce *mcp.ConfigError
	var le *llm.Error
	switch {
	case errors.As(err, &ce):
		b.Fix = ce.Fix
	case errors.As(err, &le):
		b.Fix = le.Fix
	}
	return b
}

// wantsJSON reports whether the failed verb was asked for --json (also
// when the flags could not be parsed, from the raw arguments).
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd != nil {
		if on, err := cmd.Flags().GetBool("json"); err == nil && on {
			return true
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// globalFlags are the flags every verb shares.
type globalFlags struct {
	config string
	// url, when set, replaces the config with one remote server reached at
	// this URL, named "url"; verbs then take no SERVER argument.
	url string
	// stdio, when set, replaces the config with one local server: this
	// command line, run over stdio, named "stdio". The person typed it, so
	// it is trusted as their own config is.
	stdio string
	// elicit says how a server's questions are answered: ask (on a
	// terminal; in the TUI, its dialog), defaults (the schema's defaults)
	// or decline.
	elicit string
	// login says whether a verb may run the OAuth browser login when a
	// remote server asks (auto) or stops at auth-required (never).
	login string
	// relogin is set by howl auth: the person asked to log in, so a
	// server that moved to another authorization server may be sent the
	// entry's OAuth credentials there.
	relogin bool
	// model and baseURL choose the model (--model, --base-url; see llm.Settings).
	model, baseURL string
	// sample says how headless verbs answer sampling requests: ask or decline.
	sample string
	// term asks the person servers' questions on the command line.
	term *terminal
	// trace prints every request to a server, as it ends, on traceOut;
	// traceFull (--trace=full) every message with its bodies, as JSON lines.
	trace, traceFull bool
	traceOut         io.Writer
	// trustProject trusts the project's config files for this run
	// (--trust-project); warnOut is where a verb says what it did not use.
	trustProject bool
	warnOut      io.Writer
	// shared is howl serve-session's session, when the verb runs inside
	// it (--session): open and start lend it instead of starting servers.
	shared *session
	// parked holds servers' questions for howl answer (--elicit park,
	// serve-session's default).
	parked *parkedQuestions
}

// newRootCmd builds the command tree. raw is the process's own stdout, for
// the TUI and the demo server's protocol; stdout and stderr are what every
// verb prints on (sanitizing writers, see run).
func newRootCmd(stdin io.Reader, raw, stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdIn(stdin, raw, stdout, stderr, nil)
}

// newRootCmdIn is newRootCmd whose verbs use shared's servers (nil: their own).
func newRootCmdIn(stdin io.Reader, raw, stdout, stderr io.Writer, shared *session) *cobra.Command {
	g := &globalFlags{term: newTerminal(stdin, stderr), traceOut: stderr, warnOut: stderr, shared: shared}
	root := &cobra.Command{
		Use:   "howl",
		Short: "A terminal client for MCP servers",
		Long: `howl is a terminal client for MCP (Model Context Protocol) servers.

Run it with no verb to open the full-screen TUI (piped, it prints an overview
of your servers instead). The headless verbs below share the code the model's
meta-functions use; each takes --json.

Servers come from Claude-Desktop-shaped mcpServers JSON: --config FILE or
$HOWL_CONFIG alone, else your own <user config dir>/howl/mcp.json merged with
the project's ./.mcp.json. Nothing from a project file runs or applies until
you trust it (howl trust, or --trust-project for one run). With no file
anywhere, howl runs its embedded demo server.

Exit codes: 0 ok, 1 server or tool error, 2 usage error.`,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if writesToTerminal(raw) {
				return runTUI(cmd.Context(), g, resumeFrom(cmd), stdin, raw.(*os.File))
			}
			return runOverview(cmd.Context(), g, stdout)
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.config, "config", "", "config file (default: $HOWL_CONFIG, ./.mcp.json, <user config dir>/howl/mcp.json, else the demo server)")
	root.PersistentFlags().BoolVar(&g.trustProject, "trust-project", false, "use the project's config (./.mcp.json) for this run without recording trust: its servers start and its settings apply (see howl trust)")
	root.PersistentFlags().StringVar(&g.url, "url", "", "use one remote server at this URL (streamable HTTP) instead of the config; verbs then take no SERVER")
	root.PersistentFlags().StringVar(&g.stdio, "stdio", "", "use one local server, this command line run over stdio (e.g. 'npx -y @modelcontextprotocol/server-everything'), instead of the config; verbs then take no SERVER")
	root.PersistentFlags().StringVar(&g.elicit, "elicit", "", "answer servers' questions: ask (default on a terminal; a dialog in the TUI), defaults (the schema's defaults; declined when a required field has none) or decline (default otherwise)")
	root.PersistentFlags().StringVar(&g.sample, "sample", "", "answer sampling requests of servers whose entry says \"sampling\": true: ask (show each and send it to the model only if you approve; default on a terminal; a dialog in the TUI) or decline (default otherwise)")
	g.login = "never"
	root.PersistentFlags().Var(loginFlag{&g.login}, "login", "when a remote server asks for an OAuth login: auto (open $BROWSER and log in) or never (stop; run howl auth SERVER)")
	root.PersistentFlags().StringVar(&g.model, "model", "", "model as provider/name, e.g. anthropic/claude-sonnet-4-5 (default: $HOWL_MODEL, \"model\" in the config, else auto-detected)")
	addTraceFlag(root.PersistentFlags(), g)
	root.PersistentFlags().StringVar(&g.baseURL, "base-url", "", "OpenAI-compatible Chat Completions endpoint for the model, e.g. http://127.0.0.1:11434/v1")
	addResumeFlags(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newServersCmd(g, stdout),
		newLsCmd(g, stdout),
		newSearchCmd(g, stdout),
		newDescribeCmd(g, stdout),
		newReadCmd(g, stdout, stderr),
		newSkillCmd(g, stdout, stderr),
		newCallCmd(g, stdout, stderr),
		newAppCmd(g, stdout, stderr),
		newPromptCmd(g, stdout, stderr),
		newToolsCmd(g, stdout),
		newLintCmd(g, stdout),
		newLoadCmd(g, stdout),
		newDemoServerCmd(stdin, raw, stderr),
		newAskCmd(g, stdin, stdout, stderr),
		newSessionsCmd(stdout),
		newAuthCmd(g, stdout, stderr),
		newTrustCmd(stdout),
		newApproveCmd(g, stdout),
		newManCmd(stdout),
		newMCPCmd(g, stdin, stdout),
		newServeSessionCmd(g, stdout, stderr),
		newAnswerCmd(g, stdout),
	)
	root.PersistentFlags().Bool("session", false, "run the verb inside the session howl serve-session holds open (its servers, already connected)")
	return root
}

// isCobraUsage recognises cobra's own argument errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
