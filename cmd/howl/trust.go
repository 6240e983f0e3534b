package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
)

// trustReport is `howl trust --json`: the file, its hash and what it may
// now do (or, with --revoke, no longer do).
type trustReport struct {
	File    string   `json:"file"`
	SHA256  string   `json:"sha256,omitempty"`
	Trusted bool     `json:"trusted"`
	Does    []string `json:"does,omitempty"`
}

func newTrustCmd(stdout io.Writer) *cobra.Command {
	var asJSON, list, revoke bool
	cmd := &cobra.Command{
		Use:   "trust [FILE] [--list | --revoke]",
		Short: "Trust a project's config file (default ./.mcp.json) so its servers may run",
		Long: `Trust a project's config file so howl uses it.

A config file that is not your own (./.mcp.json, or any file under the working
directory) is untrusted until you trust it: its servers do not start and its
top-level settings (model, base_url, api_key_env, permissions, ...) are
ignored. howl trust prints what the file would run and set, and records its
absolute path and the SHA-256 of its content in howl's data dir
(trusted-projects.json). When the file changes, it is untrusted again.

--list shows the trusted files and whether each is unchanged; --revoke
forgets one. --trust-project trusts the project for one run instead.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, err := mcp.DefaultTrustStore()
			if err != nil {
				return err
			}
			if list {
				if len(args) > 0 || revoke {
					return usagef("--list takes no FILE and no --revoke")
				}
				return listTrusted(stdout, ts, asJSON)
			}
			path := ".mcp.json"
			if len(args) == 1 {
				path = args[0]
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return usagef("%s: %v", path, err)
			}
			abs = mcp.TrustKey(abs)
			if revoke {
				found, err := ts.Forget(abs)
				if err != nil {
					return err
				}
				if !found {
					return usagef("%s was not trusted: nothing to revoke (see howl trust --list)", clean(abs))
				}
				if asJSON {
					return writeJSON(stdout, trustReport{File: abs})
				}
				fmt.Fprintf(stdout, "%s is no longer trusted: its servers will not start\n", clean(abs))
				return nil
			}
			f, err := mcp.InspectConfig(abs)
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("%s does not exist: name the project's config file, e.g. howl trust path/to/.mcp.json", clean(abs))
			}
			if err != nil {
				return usagef("%v: fix the file before trusting it", err)
			}
			if err := ts.Trust(f.Key, f.SHA256, time.Now()); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, trustReport{File: f.Key, SHA256: f.SHA256, Trusted: true, Does: f.Summary()})
			}
			fmt.Fprintf(stdout, "trusted %s (sha256 %.12s…); when it changes, howl asks again. It may now:\n", clean(f.Key), f.SHA256)
			for _, l := range f.Summary() {
				fmt.Fprintf(stdout, "  %s\n", clean(l))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted files")
	cmd.Flags().BoolVar(&revoke, "revoke", false, "forget that FILE is trusted")
	return cmd
}

// trustedEntry is one line of howl trust --list.
type trustedEntry struct {
	File string `json:"file"`
	// State: "unchanged", "changed since trusted" or "missing".
	State   string    `json:"state"`
	Trusted time.Time `json:"trusted"`
}

func listTrusted(stdout io.Writer, ts *mcp.TrustStore, asJSON bool) error {
	paths, err := ts.List()
	if err != nil {
		return err
	}
	entries := []trustedEntry{}
	for _, p := range paths {
		e, _, err := ts.Lookup(p)
		if err != nil {
			return err
		}
		state := "unchanged"
		if f, err := mcp.InspectConfig(p); err != nil {
			state = "missing or unreadable"
			if _, serr := os.Stat(p); serr == nil {
				state = "unreadable: " + err.Error()
			}
		} else if f.SHA256 != e.SHA256 {
			state = "changed since trusted (untrusted until trusted again)"
		}
		entries = append(entries, trustedEntry{File: p, State: state, Trusted: e.Trusted})
	}
	if asJSON {
		return writeJSON(stdout, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "no project config is trusted (%s)\n", clean(ts.Path()))
		return nil
	}
	for _, e := range entries {
		fmt.Fprintf(stdout, "%s  trusted %s  %s\n", clean(e.File), e.Trusted.Local().Format("2006-01-02 15:04"), clean(e.State))
	}
	return nil
}

// approveReport is `howl approve --json`: what was approved, and how it
// compares with what was approved before.
type approveReport struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Before: "not approved before", "unchanged" or "changed".
	Before     string             `json:"before"`
	Changed    []string           `json:"changed,omitempty"`
	Diff       []string           `json:"diff,omitempty"`
	SHA256     string             `json:"sha256"`
	Definition mcp.ToolDefinition `json:"definition"`
}

func newApproveCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "approve SERVER TOOL",
		Short: "Approve a tool's current definition, for the rules that allow it by name",
		Long: `Approve a tool's current definition (name, description, annotations, input
schema) for the rules that allow it by name: "permissions.allow" in your config,
and the TUI's "always allow".

howl pins the definition a rule was first used with. When the server changes
the tool, the rule stops applying: howl ask refuses the call and says what
changed, the TUI asks again and shows it. howl approve shows the tool as it is
now, and what changed since the last approval, and approves it.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, 2)
			if err != nil {
				return err
			}
			server, tool := args[0], args[1]
			approvals, err := llm.DefaultApprovals()
			if err != nil {
				return err
			}
			s, err := open(cmd.Context(), g, server)
			if err != nil {
				return err
			}
			defer s.close()
			cat, err := s.rt.Catalog(cmd.Context(), server, false)
			if err != nil {
				return err
			}
			it, ok := cat.Lookup(mcp.KindTool, tool)
			if !ok {
				return usagef("%s has no tool %q: see howl tools %s", clean(server), clean(tool), clean(server))
			}
			state, ch, err := approvals.Check(it)
			if err != nil {
				return err
			}
			def := mcp.DefinitionOf(it)
			rep := approveReport{Server: server, Tool: tool, Before: "not approved before", SHA256: def.Fingerprint(), Definition: def}
			switch state {
			case llm.Unchanged:
				rep.Before = "unchanged"
			case llm.Changed:
				rep.Before, rep.Changed, rep.Diff = "changed", ch.Fields, ch.Diff
			}
			if err := approvals.Approve(it, true, time.Now()); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			switch state {
			case llm.Changed:
				fmt.Fprintf(stdout, "%s:%s: %s. What changed (- approved, + now):\n", clean(server), clean(tool), clean(ch.Summary()))
				for _, l := range ch.Diff {
					fmt.Fprintf(stdout, "  %s\n", clean(l))
				}
			case llm.Unchanged:
				fmt.Fprintf(stdout, "%s:%s is unchanged since you approved it\n", clean(server), clean(tool))
			default:
				fmt.Fprintf(stdout, "%s:%s was not approved before. It is:\n", clean(server), clean(tool))
				pretty, _ := indentJSON(def, "  ")
				fmt.Fprintf(stdout, "  %s", cleanText(string(pretty)))
			}
			fmt.Fprintf(stdout, "approved: rules naming %s:%s apply to this definition (sha256 %.12s…)\n", clean(server), clean(tool), rep.SHA256)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
