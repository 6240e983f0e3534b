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
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
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
			if err := ts.Trust(f.Path, f.SHA256, time.Now()); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, trustReport{File: f.Path, SHA256: f.SHA256, Trusted: true, Does: f.Summary()})
			}
			fmt.Fprintf(stdout, "trusted %s (sha256 %.12s…); when it changes, howl asks again. It may now:\n", clean(f.Path), f.SHA256)
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
