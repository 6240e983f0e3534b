package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/apphost"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
)

type appOptions struct {
	argsJSON  string
	noBrowser bool
	perms     askOptions
}

func newAppCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var o appOptions
	cmd := &cobra.Command{
		Use:   "app SERVER TOOL [k=v ... | --args JSON]",
		Short: "Call a tool that has an MCP App and open its interface in the browser",
		Long: `Call a tool whose definition names an MCP App (_meta.ui.resourceUri, a ui://
resource), then serve that interface on 127.0.0.1 behind a secret token and
open it with $BROWSER (--no-browser: only print the address). The app runs
in a sandboxed frame with no network unless its resource declares origins;
its calls to the server's tools follow the same rules as the model's
(--allow, --allow-read-only, --yes, the config's "permissions"), except
that the tool you opened it with may always run again. A message the app
posts is printed on stderr. Ctrl+C closes the app (or the app closes itself).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApp(cmd.Context(), g, o, args, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&o.argsJSON, "args", "", "the tool's arguments as one JSON object")
	cmd.Flags().BoolVar(&o.noBrowser, "no-browser", false, "print the app's address without opening a browser")
	cmd.Flags().StringArrayVar(&o.perms.allow, "allow", nil, "let the app call this tool without asking: SERVER:TOOL, or SERVER:* for every tool not annotated destructive (repeatable)")
	cmd.Flags().BoolVar(&o.perms.allowReadOnly, "allow-read-only", false, "let the app call tools their servers annotate read-only (and not destructive)")
	cmd.Flags().BoolVar(&o.perms.yes, "yes", false, "UNSAFE: let the app call every tool of its server, destructive ones included")
	return cmd
}

func runApp(ctx context.Context, g *globalFlags, o appOptions, args []string, stdout, stderr io.Writer) error {
	args, err := serverArgs(g, args, 2, -1)
	if err != nil {
		return err
	}
	server, tool := args[0], args[1]
	if o.argsJSON != "" && len(args) > 2 {
		return usagef("give the arguments as k=v pairs or as --args JSON, not both")
	}
	s, err := open(ctx, g, server)
	if err != nil {
		return err
	}
	defer s.close()
	perms, err := askPermissions(s.cfg, o.perms)
	if err != nil {
		return err
	}
	cat, err := s.rt.Catalog(ctx, server, false)
	if err != nil {
		return err
	}
	it, ok := cat.Lookup(mcp.KindTool, tool)
	if !ok {
		return usagef("%s has no tool %q: list its tools with howl ls %s --kind tool", server, tool, server)
	}
	if it.AppURI == "" {
		return usagef("tool %s of %s declares no MCP App (no _meta.ui.resourceUri): call it with howl call %s %s", tool, server, server, tool)
	}
	var input map[string]any
	if o.argsJSON != "" {
		if err := json.Unmarshal([]byte(o.argsJSON), &input); err != nil {
			return usagef("--args %q is not a JSON object: write one like '{\"a\": 1}'", o.argsJSON)
		}
	} else {
		pairs, err := parsePairs(args[2:])
		if err != nil {
			return err
		}
		input = coercePairs(ctx, s, server, tool, pairs)
	}
	view, err := s.rt.ReadApp(ctx, server, it.AppURI)
	if err != nil {
		return err
	}
	result, err := s.rt.CallToolRaw(ctx, server, tool, input)
	if err != nil {
		return err
	}
	host, err := apphost.New()
	if err != nil {
		return err
	}
	defer host.Close()
	var mu sync.Mutex // the app's events arrive from the host's goroutines
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "howl app: "+format+"\n", a...)
	}
	app, err := host.Open(apphost.Spec{
		Server: server, Backend: s.rt, Tool: it, View: view, Input: input, Result: result,
		Theme:  appTheme(),
		Decide: llm.AppDecider(perms.Decider(s.rt, nil), server, tool),
		Message: func(_ context.Context, text string) error {
			say("the app posts a message (howl app has no chat; the TUI will add it to yours):\n%s", render.Sanitize(text))
			return nil
		},
		Event: func(e apphost.Event) {
			line := e.Method
			if e.Detail != "" {
				line += " " + e.Detail
			}
			if e.Err != "" {
				line += ": refused: " + e.Err
			}
			say("%s", render.SanitizeLine(line))
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, app.URL())
	if f, ok := stdout.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
	say("serving %s of %s on 127.0.0.1 (the address carries a secret token; Ctrl+C closes it)", it.AppURI, server)
	if !o.noBrowser {
		if err := mcp.OpenBrowser(ctx, app.URL()); err != nil {
			say("%v", err)
		}
	}
	select {
	case <-ctx.Done():
	case <-app.Done():
	}
	app.Close()
	say("closed %s", it.AppURI)
	return nil
}

// appTheme is howl's theme for the app: the terminal's background when
// stdout is a terminal, dark otherwise.
func appTheme() string {
	if term.IsTerminal(os.Stdout.Fd()) && !theme.Detect(os.Getenv).Dark {
		return "light"
	}
	return "dark"
}
