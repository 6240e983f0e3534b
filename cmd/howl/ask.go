package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"

	"github.com/howl-mcp/howl/render"
)

// maxArgsShown bounds the arguments echoed on a tool activity line.
const maxArgsShown = 120

func newAskCmd(g *globalFlags, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var o askOptions
	cmd := &cobra.Command{
		Use:   "ask [--json] [--max-steps N] [--server S]... QUESTION...",
		Short: "Ask the model one question; it answers using your servers",
		Long: `Ask the model one question. It reaches your servers through the same
meta-functions the headless verbs use (search, describe, then invoke, read or
prompt), and howl runs its calls until it answers. The answer streams to
stdout; each tool call is one line on stderr. With --json, stdout is the event
stream as JSON lines (text, reasoning, tool_start, tool_end, usage, retry,
error, done). QUESTION "-" reads the question from stdin.

The model: --model provider/name (openai, anthropic, ollama, lmstudio,
llamacpp, vllm, openrouter, openai-compat), then $HOWL_MODEL, then "model" in
the config file, else auto-detected: $OPENAI_API_KEY, $ANTHROPIC_API_KEY, then
a local Ollama. --base-url (or "base_url") points at any OpenAI-compatible
Chat Completions endpoint, e.g. http://127.0.0.1:11434/v1. The API key comes
from the environment variable "api_key_env" names (never from the file).
"max_steps" (default 25) bounds the model requests of one question.

Exit codes: 0 answered, 1 model or server error (or the step limit, or an
interrupt), 2 usage or configuration error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.question = strings.TrimSpace(strings.Join(args, " "))
			if o.question == "-" {
				b, err := io.ReadAll(stdin)
				if err != nil {
					return usagef("reading the question from stdin: %v", err)
				}
				o.question = strings.TrimSpace(string(b))
			}
			if o.question == "" {
				return usagef("the question is empty: write it after ask, e.g. howl ask \"what tools does demo have?\"")
			}
			o.maxStepsSet = cmd.Flags().Changed("max-steps")
			return runAsk(cmd.Context(), g, o, stdout, stderr)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the event stream as JSON lines")
	cmd.Flags().IntVar(&o.maxSteps, "max-steps", llm.DefaultMaxSteps, fmt.Sprintf("most model requests for this question (1 to %d)", llm.MaxMaxSteps))
	cmd.Flags().StringArrayVar(&o.servers, "server", nil, "only this server (repeatable; default: every enabled server)")
	cmd.Flags().StringArrayVar(&o.allow, "allow", nil, "let the model call this tool without asking: SERVER:TOOL, or SERVER:* for every tool not annotated destructive (repeatable)")
	cmd.Flags().BoolVar(&o.allowReadOnly, "allow-read-only", false, "let the model call tools their servers annotate read-only (and not destructive)")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "UNSAFE: let the model call every tool of every server, destructive ones included, without asking")
	cmd.Flags().BoolVarP(&o.resume, "continue", "c", false, "continue the latest session instead of starting one")
	cmd.Flags().StringVar(&o.session, "session", "", "continue this session (see howl sessions list)")
	cmd.Flags().BoolVar(&o.noSave, "no-save", false, "do not store this conversation")
	return cmd
}

// askOptions are ask's own flags.
type askOptions struct {
	question      string
	json          bool
	maxSteps      int
	maxStepsSet   bool
	servers       []string
	resume        bool
	allow         []string
	allowReadOnly bool
	yes           bool
	session       string
	noSave        bool
}

func runAsk(ctx context.Context, g *globalFlags, o askOptions, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	perms, err := askPermissions(cfg, o)
	if err != nil {
		return err
	}
	steps := 0
	if o.maxStepsSet {
		steps = o.maxSteps
	}
	choice, err := resolveModel(ctx, g, cfg, steps)
	if err != nil {
		return err
	}
	model, err := llm.NewModel(choice)
	if err != nil {
		return usageError{err}
	}
	s, err := start(ctx, g, cfg, o.servers...)
	if err != nil {
		return err
	}
	defer s.close()
	if !o.json {
		fmt.Fprintf(stderr, "howl: asking %s\n", clean(choice.Describe()))
	}
	servers := o.servers
	if len(servers) == 0 {
		for _, sc := range s.cfg.Enabled() {
			servers = append(servers, sc.Name)
		}
	}
	rec, conv, err := openRecord(ctx, o, servers, stderr)
	if err != nil {
		return err
	}
	defer rec.close()
	before := len(conv.Messages)
	conv.AddUser(o.question)
	p := &askPrinter{stdout: stdout, stderr: stderr, json: o.json, args: map[string]string{}}
	err = llm.NewAgent(model, s.rt, llm.Options{MaxSteps: choice.MaxSteps, Decide: perms.Decider(s.rt, nil)}).Run(ctx, conv, p.event)
	p.finish()
	// The loop keeps the conversation well-formed whatever happened, so
	// what it holds now is a whole turn.
	rec.save(ctx, o.question, choice.Name(), conv.Messages[before:])
	return err
}

// askPermissions combines the config's permissions with ask's flags. ask
// has nobody to ask, so a call neither rule allows is denied.
func askPermissions(cfg *mcp.Config, o askOptions) (llm.Permissions, error) {
	source := cfg.SourceOf("permissions")
	if source == "" {
		source = "config"
	}
	p, err := llm.ParsePermissions(source, cfg.Extra)
	if err != nil {
		return p, usageError{err}
	}
	for _, a := range o.allow {
		if s, t, ok := strings.Cut(a, ":"); !ok || s == "" || t == "" {
			return p, usagef("--allow %q: write SERVER:TOOL or SERVER:*", a)
		}
	}
	p.AllowNow = append(p.AllowNow, o.allow...)
	if p.Approvals, err = llm.DefaultApprovals(); err != nil {
		return p, fmt.Errorf("the approved tool definitions cannot be kept (%w), so the config's rules cannot be checked against them", err)
	}
	if o.allowReadOnly {
		p.ReadOnlyServers = append(p.ReadOnlyServers, "*")
	}
	p.Everything = o.yes
	return p, nil
}

// resolveModel picks the model from the flags, the environment, the config's
// model section and auto-detection. Configuration mistakes are usage errors.
func resolveModel(ctx context.Context, g *globalFlags, cfg *mcp.Config, maxSteps int) (llm.Choice, error) {
	// The model's settings name the file they came from: the user's own,
	// or a project file the person trusted.
	source := cfg.SourceOf("model")
	if _, ok := cfg.Extra["model"]; !ok {
		source = cfg.SourceOf("base_url")
	}
	settings, err := llm.ParseSettings(source, cfg.Extra)
	if err != nil {
		return llm.Choice{}, usageError{err}
	}
	c, err := llm.Resolve(ctx, llm.ResolveOptions{
		Flags:        llm.Settings{Model: g.model, BaseURL: g.baseURL, MaxSteps: maxSteps},
		Config:       settings,
		ConfigSource: source,
	})
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) && (le.Kind == llm.KindConfig || le.Kind == llm.KindNoModel) {
			return c, usageError{err}
		}
		return c, err
	}
	return c, nil
}

// askPrinter draws a run's events: the answer on stdout as it streams, one
// line per tool call on stderr; or every event as a JSON line on stdout.
// The loop never calls it concurrently.
type askPrinter struct {
	stdout, stderr io.Writer
	json           bool
	// midLine: stdout's last byte was not a newline.
	midLine bool
	// wrote: some answer text was printed.
	wrote bool
	// args holds each started call's arguments for its finish line.
	args map[string]string
}

func (p *askPrinter) event(e llm.Event) {
	if p.json {
		if b, err := llm.EncodeEvent(e); err == nil {
			p.stdout.Write(append(render.EscapeTerminalControls(b), '\n'))
		}
		return
	}
	switch e := e.(type) {
	case llm.TextDelta:
		s := cleanText(e.Text)
		if s != "" {
			io.WriteString(p.stdout, s)
			p.midLine, p.wrote = !strings.HasSuffix(s, "\n"), true
		}
	case llm.ToolCallStarted:
		p.endLine()
		p.args[e.Call.ID] = e.Call.Arguments
	case llm.ToolCallFinished:
		p.endLine()
		mark := "→"
		if e.IsError {
			mark = "✗"
		}
		if e.Denied {
			fmt.Fprintf(p.stderr, "howl: %s %s ✗ DENIED (%s): the model was told; allow it with --allow SERVER:TOOL, --allow-read-only or --yes\n", clean(e.Name), shortArgs(p.args[e.CallID]), clean(e.Decision))
			return
		}
		fmt.Fprintf(p.stderr, "howl: %s %s %s %s [%s]\n", clean(e.Name), shortArgs(p.args[e.CallID]), mark, e.Summary, llm.FormatCost(e.Bytes, e.Duration))
	case llm.TooManyToolCalls:
		p.endLine()
		fmt.Fprintln(p.stderr, "howl: "+e.Text())
	case llm.Retrying:
		fmt.Fprintf(p.stderr, "howl: %s: retrying in %s (retry %d of %d)\n", e.Reason, e.Wait.Round(time.Millisecond), e.Attempt, e.MaxRetries)
	case llm.Done:
		if e.Reason == llm.StopAnswered && !p.wrote && !e.OverMaxBytes { // a cut reply says so below
			fmt.Fprintln(p.stderr, "howl: the model answered with no text")
		}
		if e.OverMaxBytes {
			p.endLine()
			fmt.Fprintln(p.stderr, "howl: "+llm.OverMaxBytesText())
		}
		if e.Truncated {
			p.endLine()
			fmt.Fprintln(p.stderr, "howl: the answer was cut off at the model's output limit; ask it to continue")
		}
	}
}

// endLine ends a partial line of answer text before anything else prints.
func (p *askPrinter) endLine() {
	if p.midLine {
		io.WriteString(p.stdout, "\n")
		p.midLine = false
	}
}

// finish ends the answer with a newline.
func (p *askPrinter) finish() {
	if !p.json {
		p.endLine()
	}
}

func shortArgs(args string) string {
	return render.Ellipsize(clean(strings.TrimSpace(args)), maxArgsShown)
}
