package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// newMCPCmd is `howl mcp`: the verbs that change which servers howl
// knows, without editing JSON by hand.
func newMCPCmd(g *globalFlags, stdin io.Reader, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Add, remove, list, import and switch servers on and off in your config files",
		Long: `Manage the servers in your config files without editing JSON.

--scope user (default) writes your own config (<user config dir>/howl/mcp.json,
or --config / $HOWL_CONFIG); --scope project writes ./.mcp.json. Every write
keeps the file's other keys, their order and its formatting, follows a
symlinked config to its real file, and goes through a temporary file and a
rename: a failed write leaves the file as it was.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newMCPAddCmd(g, stdout), newMCPAddJSONCmd(g, stdout), newMCPRemoveCmd(g, stdout),
		newMCPListCmd(g, stdout), newMCPGetCmd(g, stdout), newMCPImportCmd(g, stdin, stdout),
		newMCPSwitchCmd(g, stdout, true), newMCPSwitchCmd(g, stdout, false))
	return cmd
}

// scopeFlag is --scope: user or project.
type scopeFlag struct{ s *mcp.Origin }

func (f scopeFlag) String() string {
	if f.s == nil {
		return ""
	}
	return string(*f.s)
}

func (f scopeFlag) Set(v string) error {
	switch mcp.Origin(v) {
	case mcp.OriginUser, mcp.OriginProject:
		*f.s = mcp.Origin(v)
		return nil
	}
	return fmt.Errorf("%q is not a scope: use user (your own config) or project (./.mcp.json)", v)
}

func (scopeFlag) Type() string { return "user|project" }

// entryJSON is a server entry as `howl mcp add` writes it, in this key order.
type entryJSON struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// changeReport is what a writing verb did (--json).
type changeReport struct {
	// Action: "added", "replaced", "removed", "disabled", "enabled".
	Action string     `json:"action"`
	Server string     `json:"server"`
	Scope  mcp.Origin `json:"scope"`
	File   string     `json:"file"`
	// Does is what the entry runs or reaches, as written.
	Does  string          `json:"does,omitempty"`
	Entry json.RawMessage `json:"entry,omitempty"`
	// Trusted: the file may be used (a project file the person had not
	// trusted stays untrusted: Note says how to trust it).
	Trusted bool   `json:"trusted"`
	Note    string `json:"note,omitempty"`
}

// scopeFile is the file the scope writes.
func scopeFile(g *globalFlags, scope mcp.Origin) (string, error) {
	p, err := mcp.ScopeFile(mcp.LoadOptions{Path: g.config}, scope)
	if err != nil {
		return "", usageError{err}
	}
	return p, nil
}

// writeScoped runs edit on the scope's file through the one config
// writer (mcp.EditFileOf), which keeps a project file's trust when the
// person's own edit is all that changed it.
func writeScoped(g *globalFlags, scope mcp.Origin, rep *changeReport, edit func(path string, old []byte) ([]byte, error)) error {
	path, err := scopeFile(g, scope)
	if err != nil {
		return err
	}
	origin := scope
	if g.config != "" {
		origin = mcp.OriginUser // a file the person named is theirs
	}
	trusted, err := mcp.EditFileOf(path, origin, nil, func(old []byte) ([]byte, error) { return edit(path, old) })
	if err != nil {
		return err
	}
	rep.Scope, rep.File, rep.Trusted = scope, realFile(path), trusted
	if !trusted {
		rep.Note = fmt.Sprintf("%s is a project config you have not trusted, so its servers do not start: trust it with `%s`", rep.File, mcp.TrustCommand(rep.File))
	}
	return nil
}

// realFile is path with its symlinks resolved, as far as they resolve.
func realFile(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// printChange says what a writing verb did, in words or JSON.
func printChange(w io.Writer, asJSON bool, rep changeReport) error {
	if asJSON {
		return writeJSON(w, rep)
	}
	fmt.Fprintf(w, "%s server %s (%s config %s)\n", rep.Action, clean(rep.Server), rep.Scope, clean(rep.File))
	if rep.Does != "" {
		fmt.Fprintf(w, "  it %s\n", clean(rep.Does))
	}
	if rep.Note != "" {
		fmt.Fprintf(w, "note: %s\n", clean(rep.Note))
	}
	return nil
}

// addEntry writes a new entry; a name already in that file is refused.
func addEntry(g *globalFlags, stdout io.Writer, asJSON bool, scope mcp.Origin, name string, entry []byte) error {
	if err := checkServerName(name); err != nil {
		return err
	}
	rep := changeReport{Action: "added", Server: name}
	err := writeScoped(g, scope, &rep, func(path string, old []byte) ([]byte, error) {
		if _, ok := mcp.ServerEntryJSON(path, old, name); ok {
			return nil, usagef("%s already has a server named %q: remove it first (howl mcp remove %s --scope %s) or choose another name", path, name, name, scope)
		}
		out, err := mcp.SetServerEntry(path, old, name, entry)
		if err != nil {
			return nil, usageError{err}
		}
		cfg, err := mcp.ParseConfig(path, out, func(string) (string, bool) { return "", false })
		if err == nil {
			sc, _ := cfg.Server(name)
			rep.Does = sc.Declared
		}
		rep.Entry, _ = mcp.ServerEntryJSON(path, out, name)
		return out, nil
	})
	if err != nil {
		return err
	}
	return printChange(stdout, asJSON, rep)
}

// checkServerName refuses a name no config could hold usefully.
func checkServerName(name string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return usagef("server name %q is empty or has control characters: use letters, digits, - and _", name)
	}
	return nil
}

func newMCPAddCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	scope := mcp.OriginUser
	var env, headers []string
	var cwd, url, typ string
	cmd := &cobra.Command{
		Use:   "add NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...] | add NAME --url URL [--type http|sse] [--header K:V]...",
		Short: "Add a server: a command to run (after --) or a URL to reach",
		Example: `  howl mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  howl mcp add gh --env GITHUB_TOKEN='${GITHUB_TOKEN}' -- github-mcp-server stdio
  howl mcp add docs --url https://example.com/mcp --header 'Authorization: Bearer ${TOKEN}'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if len(args) == 0 || dash == 0 {
				return usagef("name the server first: howl mcp add NAME -- COMMAND [ARGS...], or howl mcp add NAME --url URL")
			}
			var e entryJSON
			switch {
			case url != "" && dash > 0:
				return usagef("give a URL (--url) or a command (after --), not both")
			case url != "":
				if len(args) != 1 {
					return usagef("with --url, give only NAME (got %q): a command goes after --", args)
				}
				if len(env) > 0 || cwd != "" {
					return usagef("--env and --cwd are for a command; a remote server takes --header")
				}
				e.URL = url
				if typ != "" {
					if typ != "http" && typ != "sse" {
						return usagef("--type %q: use http (streamable HTTP, the default) or sse", typ)
					}
					e.Type = typ
				}
				var err error
				if e.Headers, err = pairs(headers, ":", "--header", "Authorization: Bearer ${TOKEN}"); err != nil {
					return err
				}
			case dash > 0:
				if dash != 1 {
					return usagef("give one NAME before -- (got %q)", args[:dash])
				}
				if len(args) == dash {
					return usagef("no command after --: howl mcp add %s -- COMMAND [ARGS...]", args[0])
				}
				if len(headers) > 0 || typ != "" {
					return usagef("--header and --type are for a URL; a command takes --env and --cwd")
				}
				e.Command, e.Args, e.Cwd = args[dash], args[dash+1:], cwd
				var err error
				if e.Env, err = pairs(env, "=", "--env", "TOKEN=${TOKEN}"); err != nil {
					return err
				}
			default:
				return usagef("say what %s runs or reaches: howl mcp add %s -- COMMAND [ARGS...], or howl mcp add %s --url URL", args[0], args[0], args[0])
			}
			entry, err := json.Marshal(e)
			if err != nil {
				return err
			}
			return addEntry(g, stdout, asJSON, scope, args[0], entry)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "user (your own config, default) or project (./.mcp.json)")
	cmd.Flags().StringArrayVar(&env, "env", nil, "K=V for the command's environment (repeatable; ${VAR} is expanded when howl starts it)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "directory the command runs in")
	cmd.Flags().StringVar(&url, "url", "", "the server's URL (a remote server)")
	cmd.Flags().StringVar(&typ, "type", "", "http (streamable HTTP, default) or sse")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "K: V sent with every request (repeatable)")
	return cmd
}

// pairs reads repeated K<sep>V flags.
func pairs(list []string, sep, flag, example string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, p := range list {
		k, v, ok := strings.Cut(p, sep)
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("%s %q is not K%sV: write it like %s %q", flag, p, sep, flag, example)
		}
		if sep == ":" {
			v = strings.TrimSpace(v)
		}
		out[k] = v
	}
	return out, nil
}

func newMCPAddJSONCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	scope := mcp.OriginUser
	cmd := &cobra.Command{
		Use:     "add-json NAME JSON",
		Short:   "Add a server from its JSON entry, as other clients' configs write it",
		Example: `  howl mcp add-json weather '{"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "${WEATHER_KEY}"}}'`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := []byte(args[1])
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil {
				return usagef("the entry for %s is not a JSON object (%v): write it like '{\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}'", args[0], err)
			}
			return addEntry(g, stdout, asJSON, scope, args[0], raw)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "user (your own config, default) or project (./.mcp.json)")
	return cmd
}

// entryScope finds the scope whose file holds name: the one given, else
// the file the loaded config took it from.
func entryScope(g *globalFlags, cmd *cobra.Command, scope mcp.Origin, name string) (mcp.Origin, error) {
	if cmd.Flags().Changed("scope") {
		return scope, nil
	}
	if g.oneOff() != "" {
		return "", usagef("--url and --stdio name a server for one run: there is no file to change")
	}
	cfg, err := mcp.LoadConfig(mcp.LoadOptions{Path: g.config, Demo: demoServerConfig(), TrustProject: true})
	if err != nil {
		return "", usageError{err}
	}
	sc, ok := cfg.Server(name)
	if !ok || sc.File == "" {
		return "", usagef("no server named %q in %s: configured servers are %v", name, configSource(cfg), cfg.Names())
	}
	return sc.Origin, nil
}

func newMCPRemoveCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	scope := mcp.OriginUser
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from the config file it is in",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			sc, err := entryScope(g, cmd, scope, name)
			if err != nil {
				return err
			}
			rep := changeReport{Action: "removed", Server: name}
			return changeEntry(g, sc, stdout, asJSON, &rep, func(path string, old []byte) ([]byte, error) {
				if old == nil {
					return nil, usagef("%s does not exist: there is no server %q to remove in the %s scope", path, name, sc)
				}
				rep.Entry, _ = mcp.ServerEntryJSON(path, old, name)
				return mcp.RemoveServerEntry(path, old, name)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "the file to remove it from: user or project (default: the one it is in)")
	return cmd
}

// changeEntry writes one entry's change to the scope's file and says
// what was done; a file that refuses the edit is a usage error.
func changeEntry(g *globalFlags, scope mcp.Origin, stdout io.Writer, asJSON bool, rep *changeReport, edit func(path string, old []byte) ([]byte, error)) error {
	err := writeScoped(g, scope, rep, func(path string, old []byte) ([]byte, error) {
		out, err := edit(path, old)
		var ce *mcp.ConfigError
		if errors.As(err, &ce) {
			return nil, usageError{err}
		}
		return out, err
	})
	if err != nil {
		return err
	}
	return printChange(stdout, asJSON, *rep)
}

// entryView is one server of `howl mcp list` and `howl mcp get`.
type entryView struct {
	Name string `json:"name"`
	// Source: "user", "project" or "imported" (copied into your own file
	// by howl mcp import; ImportedFrom names where from).
	Source       string `json:"source"`
	File         string `json:"file"`
	ImportedFrom string `json:"imported_from,omitempty"`
	Transport    string `json:"transport"`
	// Does is what the entry runs or reaches, as written.
	Does string `json:"does"`
	// State: "enabled", "disabled", "untrusted" or "needs attention"
	// (Problem says what).
	State         string   `json:"state"`
	DisabledTools []string `json:"disabled_tools,omitempty"`
	Problem       string   `json:"problem,omitempty"`
	// Entry is the entry as written in its file (get only).
	Entry json.RawMessage `json:"entry,omitempty"`
}

// mcpListReport is `howl mcp list --json`.
type mcpListReport struct {
	Coverage string      `json:"coverage"`
	Files    []string    `json:"files"`
	Servers  []entryView `json:"servers"`
	Notes    []string    `json:"notes,omitempty"`
}

func viewOf(sc mcp.ServerConfig) entryView {
	v := entryView{Name: sc.Name, Source: string(sc.Origin), File: sc.File, ImportedFrom: sc.ImportedFrom, Transport: string(sc.Transport),
		Does: sc.Declared, State: "enabled", DisabledTools: sc.DisabledTools, Problem: sc.Problem}
	if sc.ImportedFrom != "" {
		v.Source = "imported"
	}
	switch {
	case sc.Untrusted != "":
		v.State, v.Problem = "untrusted", sc.Untrusted
	case sc.Disabled:
		v.State = "disabled"
	case sc.Problem != "":
		v.State = "needs attention"
	}
	if v.Does == "" {
		v.Does = mcp.DeclaredOf(sc)
	}
	return v
}

func newMCPListCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	scope := mcp.OriginUser
	cmd := &cobra.Command{
		Use:   "list [--scope user|project]",
		Short: "List the configured servers and the file each comes from, without starting them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			rep := mcpListReport{Files: []string{}, Servers: []entryView{}, Notes: cfg.Notes}
			for _, f := range cfg.Files {
				rep.Files = append(rep.Files, f.Path)
			}
			for _, sc := range cfg.Servers {
				if cmd.Flags().Changed("scope") && sc.Origin != scope {
					continue
				}
				rep.Servers = append(rep.Servers, viewOf(sc))
			}
			rep.Coverage = fmt.Sprintf("%d servers from %s", len(rep.Servers), configSource(cfg))
			if cfg.Source == "" && g.oneOff() == "" {
				rep.Coverage = "no config file: howl runs its built-in demo server (add one with howl mcp add NAME -- COMMAND)"
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			fmt.Fprintln(stdout, rep.Coverage)
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tSTATE\tDOES")
			for _, v := range rep.Servers {
				state := v.State
				if len(v.DisabledTools) > 0 {
					state += fmt.Sprintf(" (%d %s off)", len(v.DisabledTools), plural(len(v.DisabledTools), "tool", "tools"))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", clean(v.Name), v.Source, state, clean(truncate(v.Does, 90)))
			}
			tw.Flush()
			for _, n := range rep.Notes {
				fmt.Fprintf(stdout, "note: %s\n", clean(n))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "list only this scope's servers: user or project")
	return cmd
}

func newMCPGetCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one server's entry, where it comes from and whether it may start",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			sc, ok := cfg.Server(args[0])
			if !ok {
				return usagef("no server named %q in %s: configured servers are %v", args[0], configSource(cfg), cfg.Names())
			}
			v := viewOf(sc)
			if sc.File != "" {
				if data, err := mcp.ReadConfigBytes(sc.File); err == nil {
					if raw, ok := mcp.ServerEntryJSON(sc.File, data, sc.Name); ok {
						var b bytes.Buffer
						if _, err := render.IndentJSON(&b, raw, "", "  "); err == nil {
							v.Entry = b.Bytes()
						}
					}
				}
			}
			if asJSON {
				return writeJSON(stdout, v)
			}
			fmt.Fprintf(stdout, "%s (%s, %s)\n", clean(v.Name), v.Source, v.State)
			if v.File != "" {
				fmt.Fprintf(stdout, "  file: %s\n", clean(v.File))
			}
			if v.ImportedFrom != "" {
				fmt.Fprintf(stdout, "  imported from: %s\n", clean(v.ImportedFrom))
			}
			fmt.Fprintf(stdout, "  it %s\n", clean(v.Does))
			if len(v.DisabledTools) > 0 {
				fmt.Fprintf(stdout, "  tools switched off: %s\n", clean(strings.Join(v.DisabledTools, ", ")))
			}
			if v.Problem != "" {
				fmt.Fprintf(stdout, "  problem: %s\n", clean(v.Problem))
			}
			if len(v.Entry) > 0 {
				fmt.Fprintf(stdout, "  entry:\n    %s\n", strings.ReplaceAll(cleanText(string(v.Entry)), "\n", "\n    "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMCPSwitchCmd(g *globalFlags, stdout io.Writer, off bool) *cobra.Command {
	var asJSON bool
	scope := mcp.OriginUser
	verb, action, short := "enable", "enabled", "Switch a server, or some of its tools, back on"
	if off {
		verb, action, short = "disable", "disabled", "Switch a server off, or only some of its tools (names or globs like write_*)"
	}
	cmd := &cobra.Command{
		Use:   verb + " NAME [TOOL...]",
		Short: short,
		Long: short + `.

With no TOOL, it sets (or removes) the entry's "disabled": true. With TOOLs,
it edits the entry's "disabledTools": a switched-off tool is not in what the
model can search, describe or invoke, and stays visible to you (dimmed in
the TUI, listed by howl ls). The TUI's .mcp ` + verb + ` and its keys write the same.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, tools := args[0], args[1:]
			sc, err := entryScope(g, cmd, scope, name)
			if err != nil {
				return err
			}
			rep := changeReport{Action: action, Server: name}
			if len(tools) > 0 {
				rep.Action = fmt.Sprintf("%s tools %s of", action, strings.Join(tools, ", "))
			}
			return changeEntry(g, sc, stdout, asJSON, &rep, func(path string, old []byte) ([]byte, error) {
				out, err := mcp.SwitchServerEntry(path, old, name, tools, off)
				rep.Entry, _ = mcp.ServerEntryJSON(path, out, name)
				return out, err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "the file to change: user or project (default: the one the server is in)")
	return cmd
}

// importReport is `howl mcp import --json`: what was found where, what
// was (or would be) added to which file.
type importReport struct {
	Coverage string             `json:"coverage"`
	Searched []mcp.ImportSource `json:"searched"`
	File     string             `json:"file"`
	Scope    mcp.Origin         `json:"scope"`
	Added    bool               `json:"added"`
	Servers  []mcp.ImportEntry  `json:"servers"`
}

func newMCPImportCmd(g *globalFlags, stdin io.Reader, stdout io.Writer) *cobra.Command {
	var asJSON, dryRun, yes bool
	var from string
	scope := mcp.OriginUser
	cmd := &cobra.Command{
		Use:   "import [--from claude-desktop|claude-code|vscode|cursor|FILE] [--dry-run] [--yes]",
		Short: "Copy servers from the configs of Claude Desktop, Claude Code, VS Code or Cursor",
		Long: `Copy servers from another client's config into yours.

It reads each client's documented config files (with no --from, all of them):
  claude-desktop  <config dir>/Claude/claude_desktop_config.json
  claude-code     ~/.claude.json (yours, and this project's under "projects"), ./.mcp.json
  vscode          <config dir>/Code/User/mcp.json, ./.vscode/mcp.json ("servers", "inputs")
  cursor          ~/.cursor/mcp.json, ./.cursor/mcp.json
or the FILE you name. Those files are not howl's: it shows what each entry
would run, which names clash with your config (they are not added), and adds
the rest only when you confirm (or pass --yes). Each added entry records
where it came from ("importedFrom"; howl mcp list shows it as imported).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			srcs, err := importSources(from)
			if err != nil {
				return err
			}
			path, err := scopeFile(g, scope)
			if err != nil {
				return err
			}
			rep := importReport{Searched: srcs, File: realFile(path), Scope: scope, Servers: []mcp.ImportEntry{}}
			for _, src := range srcs {
				found, err := mcp.ReadImport(src)
				if err != nil {
					return usagef("%v: fix or skip that file (--from another client)", err)
				}
				rep.Servers = append(rep.Servers, found...)
			}
			target, err := mcp.ReadConfigBytes(path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			mcp.MarkClashes(path, target, rep.Servers)
			adds := importable(rep.Servers)
			rep.Coverage = fmt.Sprintf("%d servers found in %d files searched; %d to add to %s", len(rep.Servers), len(srcs), adds, rep.File)
			if !asJSON {
				printImport(stdout, rep)
			}
			if dryRun || adds == 0 {
				if asJSON {
					return writeJSON(stdout, rep)
				}
				return nil
			}
			if !yes {
				if asJSON || !isTerminal(stdin) {
					if asJSON {
						_ = writeJSON(stdout, rep)
					}
					return usagef("nothing was added: pass --yes to add the %d servers to %s (or --dry-run to only look)", adds, rep.File)
				}
				if !g.term.confirm(cmd.Context(), fmt.Sprintf("add %d servers to %s? [y/N] ", adds, clean(rep.File)), false) {
					fmt.Fprintln(stdout, "nothing was added")
					return nil
				}
			}
			if err := writeImport(g, scope, rep.Servers); err != nil {
				return err
			}
			rep.Added = true
			if asJSON {
				return writeJSON(stdout, rep)
			}
			fmt.Fprintf(stdout, "added %d servers to %s\n", adds, clean(rep.File))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&from, "from", "", "claude-desktop, claude-code, vscode, cursor or a FILE (default: every client)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be added and what clashes; change nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "add without asking")
	cmd.Flags().Var(scopeFlag{&scope}, "scope", "the file to add them to: user (default) or project")
	return cmd
}

// importSources are the files --from names.
func importSources(from string) ([]mcp.ImportSource, error) {
	if from != "" && !slices.Contains(mcp.ImportClients, from) {
		src, err := mcp.ImportFileSource(from)
		if err != nil {
			return nil, usageError{err}
		}
		return []mcp.ImportSource{src}, nil
	}
	home, _ := os.UserHomeDir()
	ucd, _ := os.UserConfigDir()
	srcs, err := mcp.ImportSources(from, mcp.ImportPlaces{Home: home, UserConfigDir: ucd, WorkDir: "."})
	if err != nil {
		return nil, usageError{err}
	}
	return srcs, nil
}

func importable(es []mcp.ImportEntry) int {
	n := 0
	for _, e := range es {
		if e.Skip == "" {
			n++
		}
	}
	return n
}

// writeImport adds the importable entries in one write, checking the
// clashes again against the file as it is now.
func writeImport(g *globalFlags, scope mcp.Origin, entries []mcp.ImportEntry) error {
	var rep changeReport
	err := writeScoped(g, scope, &rep, func(path string, old []byte) ([]byte, error) {
		out := old
		for _, e := range entries {
			if e.Skip != "" {
				continue
			}
			if _, ok := mcp.ServerEntryJSON(path, out, e.Name); ok {
				return nil, fmt.Errorf("%s gained a server named %q meanwhile: run the import again", path, e.Name)
			}
			next, err := mcp.SetServerEntry(path, out, e.Name, e.Entry)
			if err != nil {
				return nil, fmt.Errorf("%s from %s: %w", e.Name, e.From, err)
			}
			out = next
		}
		return out, nil
	})
	return err
}

func printImport(w io.Writer, rep importReport) {
	fmt.Fprintln(w, rep.Coverage)
	for _, e := range rep.Servers {
		what := "add"
		switch e.Skip {
		case "same":
			what = "already there"
		case "clash":
			what = "clash: your config has another server of that name; not added (remove yours, or add this one under another name with howl mcp add-json)"
		case "invalid":
			what = "cannot be imported"
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", clean(e.Name), clean(e.From), what)
		if e.Does != "" {
			fmt.Fprintf(w, "    it %s\n", clean(e.Does))
		}
		if e.Problem != "" {
			fmt.Fprintf(w, "    problem: %s\n", clean(e.Problem))
		}
	}
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
