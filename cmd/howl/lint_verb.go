package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
)

// lintServer is one server's part of `howl lint`: its lint, or why it
// could not be linted.
type lintServer struct {
	mcp.LintReport
	State  mcp.State `json:"state"`
	Reason string    `json:"reason,omitempty"`
}

// lintOutput is `howl lint --json`: coverage first, totals, then every
// server's report.
type lintOutput struct {
	Coverage string `json:"coverage"`
	mcp.LintCounts
	Servers []lintServer `json:"servers"`
}

func newLintCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON, rules bool
	var severity string
	cmd := &cobra.Command{
		Use:   "lint [SERVER]",
		Short: "Check what a server declares: schemas providers reject, descriptions, annotations, names, templates, sizes",
		Long: `lint checks every tool, resource, resource template and prompt a server
lists (every server in the config when SERVER is not given) against rules
from the model providers and the MCP spec: input schemas that OpenAI or
Anthropic reject, or that their strict modes reject (unsupported keywords,
additionalProperties, required, $ref, formats, limits); missing or too-long
descriptions; tools that look destructive without annotations; duplicate
and non-portable names; URI templates beyond RFC 6570 Level 1; oversized
declarations. Each finding names the item, the rule and the fix.

Exit 1 when a finding is an error (or a server could not be linted).
howl lint --rules lists the rules.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			min, err := mcp.ParseLintSeverity(severity)
			if err != nil {
				return usageError{err}
			}
			if rules {
				return printLintRules(stdout, asJSON)
			}
			args, err = serverArgs(g, args, 0, 1)
			if err != nil {
				return err
			}
			s, err := open(cmd.Context(), g, args...)
			if err != nil {
				return err
			}
			defer s.close()
			var out lintOutput
			failed := 0
			for _, st := range s.rt.Status() {
				if len(args) > 0 && st.Name != args[0] || st.State == mcp.StateStopped && st.Reason == "disabled in config" {
					continue
				}
				ls := lintServer{State: st.State, Reason: st.Reason}
				cat, err := s.rt.Catalog(cmd.Context(), st.Name, false)
				if err != nil {
					failed++
					ls.LintReport = mcp.LintReport{Coverage: st.Name + ": not linted", Server: st.Name, Findings: []mcp.LintFinding{}}
					if ls.Reason == "" {
						ls.Reason = err.Error()
					}
				} else {
					ls.LintReport = mcp.Lint(cat)
				}
				out.Errors += ls.Errors
				out.Warnings += ls.Warnings
				out.Info += ls.Info
				ls.Findings = atLeast(ls.Findings, min)
				out.Servers = append(out.Servers, ls)
			}
			out.Coverage = fmt.Sprintf("linted %d of %d servers: %d errors, %d warnings, %d info", len(out.Servers)-failed, len(out.Servers), out.Errors, out.Warnings, out.Info)
			if out.Servers == nil {
				out.Servers = []lintServer{}
			}
			if asJSON {
				if err := writeJSON(stdout, out); err != nil {
					return err
				}
			} else {
				printLint(stdout, out, min)
			}
			switch {
			case failed > 0:
				return fmt.Errorf("%d of %d servers could not be linted: see howl servers", failed, len(out.Servers))
			case out.Errors > 0:
				return fmt.Errorf("lint found %d errors (a provider rejects these declarations as they are): fix them, or see howl lint --rules", out.Errors)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&rules, "rules", false, "list the rules: id, severity, what they check and why, the fix")
	cmd.Flags().StringVar(&severity, "severity", "info", "show findings at or above this severity: info, warning or error (the counts include every finding)")
	return cmd
}

// atLeast keeps the findings of severity min or worse.
func atLeast(fs []mcp.LintFinding, min mcp.LintSeverity) []mcp.LintFinding {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Severity.Rank() <= min.Rank() {
			out = append(out, f)
		}
	}
	return out
}

func printLint(w io.Writer, out lintOutput, min mcp.LintSeverity) {
	fmt.Fprintln(w, out.Coverage)
	for _, s := range out.Servers {
		fmt.Fprintf(w, "\n%s\n", clean(s.Coverage))
		if s.State != mcp.StateReady {
			fmt.Fprintf(w, "  %s %s\n", s.State, clean(s.Reason))
		}
		for _, f := range s.Findings {
			item := "server " + clean(s.Server)
			if f.Item != "" {
				item = fmt.Sprintf("%s %s", f.Kind, clean(f.Item))
			}
			at := ""
			if len(f.Where) > 0 {
				at = " at " + strings.Join(f.Where, ", ")
			}
			fmt.Fprintf(w, "  %-7s %s [%s]: %s%s\n", f.Severity, item, f.Rule, clean(f.Message), clean(at))
			fmt.Fprintf(w, "          fix: %s\n", f.Fix)
		}
		if hidden := s.Errors + s.Warnings + s.Info - len(s.Findings); hidden > 0 {
			fmt.Fprintf(w, "  (%d findings below %s not shown)\n", hidden, min)
		}
	}
}

func printLintRules(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, mcp.LintRules)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tAPPLIES TO\tWHY")
	for _, r := range mcp.LintRules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Applies, r.Why)
	}
	return tw.Flush()
}
