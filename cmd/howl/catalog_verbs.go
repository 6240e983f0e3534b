package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// serverView is one server in `howl servers`.
type serverView struct {
	mcp.Status
	// FunctionSuffix is what the model's meta-function names end with:
	// mcp_search_<suffix> and so on.
	FunctionSuffix string `json:"function_suffix"`
	// Origin is whose file the entry came from (user or project) and File
	// that file; Untrusted says the project file is not trusted.
	Origin    mcp.Origin `json:"origin,omitempty"`
	File      string     `json:"file,omitempty"`
	Untrusted bool       `json:"untrusted,omitempty"`
	// OwnRoots: Roots come from the entry's "roots", not the default.
	OwnRoots bool `json:"own_roots,omitempty"`
}

// serversReport is `howl servers --json`: coverage first.
type serversReport struct {
	Coverage string       `json:"coverage"`
	Config   string       `json:"config"`
	Servers  []serverView `json:"servers"`
}

func newServersCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Show every configured server: state, protocol, features, failure reason",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := open(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer s.close()
			rep := serversReport{Config: configSource(s.cfg)}
			ready := 0
			for _, st := range s.rt.Status() {
				if st.State == mcp.StateReady {
					ready++
				}
				sc, _ := s.cfg.Server(st.Name)
				rep.Servers = append(rep.Servers, serverView{Status: st, FunctionSuffix: mcp.FunctionSuffix(st.Name),
					Origin: sc.Origin, File: sc.File, Untrusted: sc.Untrusted != "", OwnRoots: sc.OwnRoots})
			}
			rep.Coverage = fmt.Sprintf("%d of %d servers ready", ready, len(rep.Servers))
			if asJSON {
				return writeJSON(stdout, rep)
			}
			printServers(stdout, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printServers(w io.Writer, rep serversReport) {
	fmt.Fprintf(w, "%s (config: %s)\n", rep.Coverage, rep.Config)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFROM\tSTATE\tPROTOCOL\tREADY\tFEATURES\tFUNCTIONS")
	for _, s := range rep.Servers {
		from := cmp.Or(string(s.Origin), "-")
		if s.Untrusted {
			from += " (untrusted)"
		}
		ready, feats := "-", "-"
		if s.ReadyMillis != nil {
			ready = fmt.Sprintf("%dms", *s.ReadyMillis)
		}
		if s.Features != nil {
			feats = featureList(*s.Features)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\tmcp_*_%s\n", clean(s.Name), from, s.State, cmp.Or(s.Protocol, "-"), ready, feats, s.FunctionSuffix)
	}
	tw.Flush()
	printRoots(w, rep)
	for _, s := range rep.Servers {
		if s.Reason != "" && s.State != mcp.StateReady {
			fmt.Fprintf(w, "\n%s %s: %s\n", clean(s.Name), s.State, clean(s.Reason))
			printStderrTail(w, "  ", s.StderrTail)
		}
	}
}

// printStderrTail prints a failed server's last stderr lines, each
// indented and marked as the server's.
func printStderrTail(w io.Writer, indent, tail string) {
	if tail == "" {
		return
	}
	for _, l := range strings.Split(tail, "\n") {
		fmt.Fprintf(w, "%sstderr| %s\n", indent, clean(l))
	}
}

// printRoots says which directories each server is offered when it asks
// (roots/list): some servers, server-filesystem among them, serve those
// instead of the directories on their command line.
func printRoots(w io.Writer, rep serversReport) {
	var lines []string
	for _, s := range rep.Servers {
		if s.Roots == nil {
			continue
		}
		dirs := "none"
		if len(s.Roots) > 0 {
			dirs = strings.Join(s.Roots, ", ")
		}
		from := "the default"
		if s.OwnRoots {
			from = "its own \"roots\""
		}
		lines = append(lines, fmt.Sprintf("  %s: %s (%s)", clean(s.Name), clean(dirs), from))
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nroots offered when a server asks:")
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

func featureList(f mcp.Features) string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{f.Tools, "tools"}, {f.Resources, "resources"}, {f.Prompts, "prompts"}, {f.Completions, "completions"}, {f.Logging, "logging"}, {f.Skills, "skills"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	if !f.PeerInfoKnown {
		out = append(out, "peer-info-unknown")
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

// serverListing is one server's part of `howl ls`.
type serverListing struct {
	Name   string    `json:"name"`
	State  mcp.State `json:"state"`
	Reason string    `json:"reason,omitempty"`
	// StderrTail is the server's last stderr lines when it failed.
	StderrTail string `json:"stderr_tail,omitempty"`
	// Counts per listed kind; null for a kind whose listing failed (how
	// many there are is unknown, not zero).
	Counts   map[mcp.Kind]*int `json:"counts,omitempty"`
	Warnings []mcp.Warning     `json:"warnings,omitempty"`
}

// listing is `howl ls --json`: coverage first, then per-server counts and
// warnings, then every item. Items point into the servers' listings.
type listing struct {
	Coverage string            `json:"coverage"`
	Servers  []serverListing   `json:"servers"`
	Items    []*mcp.ListedItem `json:"items"`
	from     []*mcp.Listing
}

// close drops the servers' listings, which Items are read from.
func (l listing) close() {
	for _, from := range l.from {
		from.Close()
	}
}

func newLsCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	var server, kind string
	cmd := &cobra.Command{
		Use:   "ls [--server S] [--kind K]",
		Short: "List every tool, resource, resource template and prompt (every page)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var k mcp.Kind
			if kind != "" {
				var err error
				if k, err = mcp.ParseKind(kind); err != nil {
					return usageError{err}
				}
			}
			var names []string
			if server != "" {
				names = []string{server}
			}
			s, err := open(cmd.Context(), g, names...)
			if err != nil {
				return err
			}
			defer s.close()
			l, failed := buildListing(cmd.Context(), s, names, k)
			defer l.close()
			write := printListing
			if asJSON {
				write = writeListing
			}
			if err := write(stdout, l); err != nil {
				return err
			}
			if failed > 0 && failed == len(l.Servers) {
				return fmt.Errorf("no server could be listed (%d failed): see howl servers", failed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&server, "server", "", "list only this server")
	cmd.Flags().StringVar(&kind, "kind", "", "list only this kind: tool, resource, resource_template, prompt or skill")
	return cmd
}

func buildListing(ctx context.Context, s *session, names []string, k mcp.Kind) (listing, int) {
	var l listing
	failed, servers := 0, 0
	for _, st := range s.rt.Status() {
		if len(names) > 0 && st.Name != names[0] {
			continue
		}
		if st.State == mcp.StateStopped && st.Reason == "disabled in config" {
			continue
		}
		servers++
		cat, err := s.rt.Listing(ctx, st.Name)
		// The state after the listing: a server can die while it is
		// listed, and then it is failed, not ready.
		if now, ok := s.rt.ServerStatus(st.Name); ok {
			st = now
		}
		sl := serverListing{Name: st.Name, State: st.State, Reason: st.Reason}
		if st.State != mcp.StateReady {
			sl.StderrTail = st.StderrTail
		}
		if err != nil {
			failed++
			if sl.Reason == "" {
				sl.Reason = err.Error()
			}
			l.Servers = append(l.Servers, sl)
			continue
		}
		sl.Counts = map[mcp.Kind]*int{}
		for _, kk := range cat.Listed {
			if n, ok := cat.KnownCount(kk); ok {
				sl.Counts[kk] = &n
			} else {
				sl.Counts[kk] = nil
			}
		}
		l.from = append(l.from, cat)
		sl.Warnings = cat.Warnings
		l.Items = slices.Grow(l.Items, len(cat.Items))
		for _, it := range cat.Items {
			if k != "" && it.Kind() != k {
				continue
			}
			it.Off = it.Kind() == mcp.KindTool && s.rt.ToolOff(st.Name, it.ID)
			l.Items = append(l.Items, it)
		}
		l.Servers = append(l.Servers, sl)
	}
	mcp.SortListed(l.Items)
	if l.Items == nil {
		l.Items = []*mcp.ListedItem{}
	}
	what := "items"
	if k != "" {
		what = string(k) + " items"
	}
	l.Coverage = fmt.Sprintf("%d %s from %d of %d servers", len(l.Items), what, servers-failed, servers)
	warns := 0
	for _, sl := range l.Servers {
		warns += len(sl.Warnings)
	}
	if warns > 0 {
		l.Coverage += fmt.Sprintf("; %d listing warnings", warns)
	}
	if failed > 0 {
		l.Coverage += fmt.Sprintf("; %d servers failed", failed)
	}
	return l, failed
}

// writeListing writes l exactly as writeJSON would, an item at a time,
// through one buffer: the listing of a server with 120,000 items is 45 MB
// of JSON, which writeJSON built whole, indented whole and escaped whole.
func writeListing(w io.Writer, l listing) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head, err := indentJSON(struct {
		Coverage string          `json:"coverage"`
		Servers  []serverListing `json:"servers"`
	}{l.Coverage, l.Servers}, "")
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-len("\n}\n")])
	bw.WriteString(",\n  \"items\": [")
	// One writer and buffer for every item: 120,000 of each was most of
	// the garbage the listing made.
	iw := newItemWriter()
	var buf []byte
	for i, li := range l.Items {
		it, err := li.Item()
		if err != nil {
			return err
		}
		if buf, err = iw.appendItem(buf[:0], &it); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n" + itemIndent)
		bw.Write(buf) // escaped as it was written
	}
	if len(l.Items) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

func printListing(w io.Writer, l listing) error {
	fmt.Fprintln(w, l.Coverage)
	for _, s := range l.Servers {
		if s.State != mcp.StateReady {
			fmt.Fprintf(w, "  %s: %s %s\n", clean(s.Name), s.State, clean(s.Reason))
			printStderrTail(w, "    ", s.StderrTail)
		}
		for _, wn := range s.Warnings {
			fmt.Fprintf(w, "  %s: warning (%s): %s\n", clean(s.Name), wn.Kind, clean(wn.Reason))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tSERVER\tID\tDESCRIPTION")
	for _, li := range l.Items {
		it, err := li.Item()
		if err != nil { // the listing's temp file failed under it, as writeListing says
			tw.Flush()
			return err
		}
		desc := it.Description
		if it.Title != "" {
			desc = it.Title + ": " + desc
		}
		if it.Off {
			desc = "(switched off) " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.Kind, clean(it.Server), clean(truncate(it.ID, 60)), clean(truncate(desc, 80)))
	}
	return tw.Flush()
}

// openCatalog starts one server and lists its catalog as the model
// reaches it (without the tools the person switched off), so howl search
// and howl describe answer what mcp_search_ and mcp_describe_ do.
func openCatalog(ctx context.Context, g *globalFlags, server string) (*session, *mcp.Catalog, error) {
	s, err := open(ctx, g, server)
	if err != nil {
		return nil, nil, err
	}
	cat, err := s.rt.ModelCatalog(ctx, server)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	return s, cat, nil
}

// truncate cuts s to n runes with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func newSearchCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "search SERVER QUERY",
		Short: "Rank a server's tools, resources, templates and prompts against a query",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, -1)
			if err != nil {
				return err
			}
			s, cat, err := openCatalog(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			defer s.close()
			res, err := mcp.Search(cat, strings.Join(args[1:], " "), limit)
			if err != nil {
				return usageError{err}
			}
			if asJSON {
				return writeJSON(stdout, res)
			}
			fmt.Fprintln(stdout, res.Coverage)
			for _, w := range res.Warnings {
				fmt.Fprintf(stdout, "  warning (%s): %s\n", w.Kind, clean(w.Reason))
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SCORE\tKIND\tID\tDESCRIPTION")
			for _, h := range res.Results {
				fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\n", h.Score, h.Kind, clean(truncate(h.ID, 60)), clean(truncate(h.Description, 80)))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("results to show (default %d, max %d)", mcp.DefaultSearchLimit, mcp.MaxSearchLimit))
	return cmd
}

func newDescribeCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	var kind string
	cmd := &cobra.Command{
		Use:   "describe SERVER [--kind K] ID",
		Short: "Show one item in full: a tool's schema, a resource's metadata, a template's variables, a prompt's arguments",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, 2)
			if err != nil {
				return err
			}
			k, err := mcp.ParseKind(kind)
			if err != nil {
				return usageError{err}
			}
			s, cat, err := openCatalog(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			defer s.close()
			d, err := mcp.Describe(cat, k, args[1])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, d)
			}
			return printDescribe(stdout, d)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&kind, "kind", "tool", "tool, resource, resource_template, prompt or skill")
	return cmd
}

func printDescribe(w io.Writer, d mcp.DescribeResult) error {
	if d.Note != "" {
		fmt.Fprintf(w, "note: %s\n", d.Note)
	}
	fmt.Fprintf(w, "%s %s on %s\n", d.Kind, clean(d.ID), clean(d.Server))
	if d.Title != "" {
		fmt.Fprintf(w, "title: %s\n", clean(d.Title))
	}
	if d.Description != "" {
		fmt.Fprintf(w, "\n%s\n\n", strings.TrimSpace(cleanText(d.Description)))
	}
	if d.AppURI != "" && d.Kind == mcp.KindTool {
		fmt.Fprintf(w, "app: %s (howl app %s %s calls it and opens the app in the browser)\n", clean(d.AppURI), clean(d.Server), clean(d.ID))
	} else if d.AppURI != "" {
		fmt.Fprintln(w, "app: an MCP App's interface (opened through the tool that names it)")
	}
	if d.MIMEType != "" {
		fmt.Fprintf(w, "mime type: %s\n", clean(d.MIMEType))
	}
	if d.Size != nil {
		fmt.Fprintf(w, "size: %d bytes\n", *d.Size)
	}
	if len(d.Audience) > 0 {
		fmt.Fprintf(w, "audience: %s\n", clean(strings.Join(d.Audience, ", ")))
	}
	if len(d.Variables) > 0 {
		fmt.Fprintf(w, "variables: %s\n", clean(strings.Join(d.Variables, ", ")))
	}
	if d.Arguments != nil {
		if len(*d.Arguments) == 0 {
			fmt.Fprintln(w, "arguments: none")
		}
		for _, a := range *d.Arguments {
			req := "optional"
			if a.Required {
				req = "required"
			}
			fmt.Fprintf(w, "  %s (%s) %s\n", clean(a.Name), req, clean(a.Description))
		}
	}
	if len(d.InputSchema) > 0 {
		fmt.Fprintln(w, "input schema:")
		if err := writeJSON(w, d.InputSchema); err != nil {
			return err
		}
	}
	if len(d.Frontmatter) > 0 {
		fmt.Fprintln(w, "frontmatter:")
		if err := writeJSON(w, d.Frontmatter); err != nil {
			return err
		}
	}
	if d.Dynamic {
		fmt.Fprintln(w, "files: dynamic (the server publishes no digests: its content cannot be checked)")
	}
	for _, f := range d.Files {
		fmt.Fprintf(w, "  %s  %s  %s\n", clean(f.URI), render.HumanBytes(f.Size), clean(f.Digest))
	}
	fmt.Fprintf(w, "\n%s\n", d.Usage)
	return nil
}
