package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// callMeta runs a meta-function the way the model would and returns its
// bytes. A refused call (bad arguments, unknown names) is a usage error.
func callMeta(ctx context.Context, s *session, prefix, server string, args any) ([]byte, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := s.rt.CallMeta(ctx, prefix+mcp.FunctionSuffix(server), b)
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		return nil, usageError{err}
	}
	if err != nil {
		if st, ok := s.rt.ServerStatus(server); ok && st.State == mcp.StateFailed && st.StderrTail != "" {
			return nil, withStderrTail{err, st.StderrTail}
		}
	}
	return out, err
}

// withStderrTail is the error of a request whose server failed, followed
// by the server's last stderr lines (as ls prints them): why it died is
// often only there.
type withStderrTail struct {
	err  error
	tail string
}

func (e withStderrTail) Error() string {
	var b strings.Builder
	b.WriteString(e.err.Error())
	b.WriteString("\n")
	printStderrTail(&b, "  ", e.tail)
	return strings.TrimSuffix(b.String(), "\n")
}

func (e withStderrTail) Unwrap() error { return e.err }

// readMeta opens server and asks its mcp_read_ function for req (a URI or
// a skill), with the paging flags: the bytes the model would receive.
func readMeta(cmd *cobra.Command, g *globalFlags, pg *paging, server string, req map[string]any) ([]byte, error) {
	s, err := open(cmd.Context(), g, server)
	if err != nil {
		return nil, err
	}
	defer s.close()
	pg.put(cmd, req)
	return callMeta(cmd.Context(), s, mcp.PrefixRead, server, req)
}

// emit prints the model's bytes exactly (plus one newline) for --json,
// except that characters a terminal could act on are \u-escaped (the same
// JSON), or a person's rendering otherwise.
func emit(w io.Writer, asJSON bool, out []byte, human func() error) error {
	if asJSON {
		_, err := w.Write(append(render.EscapeTerminalControls(out), '\n'))
		return err
	}
	return human()
}

// parsePairs turns k=v arguments into a map. A value may be wrapped in
// matching quotes, which are removed.
func parsePairs(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("argument %q is not key=value: write it like name=value (quote values with spaces: name=\"two words\")", p)
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out, nil
}

func newReadCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	var pairs []string
	var pg paging
	cmd := &cobra.Command{
		Use:   "read SERVER URI [--arg k=v]... [--pattern RE] [--offset N] [--max-bytes N]",
		Short: "Read a resource (or expand a template) through the content policy the model gets",
		Long: `Read a resource, or expand a resource template with --arg values, exactly as
mcp_read_<server> does for the model: text is paged (--offset, --max-bytes,
default 51200, clamped to 204800), --pattern keeps matching lines with 2 lines
of context, and binary content is saved to the spill directory, never printed.
With --json it prints the exact bytes the model would receive.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, 2)
			if err != nil {
				return err
			}
			vals, err := parsePairs(pairs)
			if err != nil {
				return err
			}
			req := map[string]any{"uri": args[1]}
			if len(vals) > 0 {
				req["arguments"] = vals
			}
			out, err := readMeta(cmd, g, &pg, args[0], req)
			if err != nil {
				return err
			}
			res, err := render.DecodeRead(out)
			if err != nil {
				return err
			}
			if err := emit(stdout, asJSON, out, func() error { return printRead(stdout, stderr, res) }); err != nil {
				return err
			}
			var failed []*render.ItemError
			for _, it := range res.Items {
				if e, ok := it.(*render.ItemError); ok {
					failed = append(failed, e)
				}
			}
			return notShown("the read of "+args[1], failed, res.ItemsTotal)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print exactly what the model would receive")
	cmd.Flags().StringArrayVar(&pairs, "arg", nil, "template variable, k=v (repeatable)")
	pg.flags(cmd)
	return cmd
}

// paging is the --pattern, --offset and --max-bytes of the verbs that read
// through mcp_read (read, skill).
type paging struct {
	pattern          string
	offset, maxBytes int
}

func (p *paging) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.pattern, "pattern", "", "RE2 regex: keep matching lines with 2 lines of context")
	cmd.Flags().IntVar(&p.offset, "offset", 0, "byte offset to page from (of the filtered text with --pattern)")
	cmd.Flags().IntVar(&p.maxBytes, "max-bytes", render.DefaultMaxBytes, fmt.Sprintf("page size in bytes (clamped to %d)", render.MaxSliceBytes))
}

// put adds the paging flags given to a mcp_read request.
func (p *paging) put(cmd *cobra.Command, req map[string]any) {
	if p.pattern != "" {
		req["pattern"] = p.pattern
	}
	if cmd.Flags().Changed("offset") {
		req["offset"] = p.offset
	}
	if cmd.Flags().Changed("max-bytes") {
		req["max_bytes"] = p.maxBytes
	}
}

// printRead renders a read for a person: text on stdout, coverage on
// stderr. Items that could not be shown are left to notShown.
func printRead(stdout, stderr io.Writer, res *render.ReadResult) error {
	if res.ItemsTotal != 1 {
		fmt.Fprintln(stderr, "howl:", cleanText(res.Note))
	}
	for _, it := range res.Items {
		if _, failed := it.(*render.ItemError); !failed {
			printItem(stdout, stderr, it)
		}
	}
	return nil
}

// maxNotShown bounds how many unshown items' reasons notShown quotes.
const maxNotShown = 3

// notShown is the error of a read or a tool call some of whose items could
// not be shown (a spill that failed, a malformed item): howl exits 1 and
// says why, for each item, whatever the output format. Nil when none failed.
func notShown(what string, failed []*render.ItemError, total int) error {
	if len(failed) == 0 {
		return nil
	}
	reasons := make([]string, 0, maxNotShown+1)
	for i, e := range failed {
		if i == maxNotShown {
			reasons = append(reasons, fmt.Sprintf("and %d more", len(failed)-maxNotShown))
			break
		}
		item := fmt.Sprintf("item %d", e.Index)
		if e.URI != "" {
			item += " (" + clean(e.URI) + ")"
		}
		reasons = append(reasons, item+": "+clean(e.Message))
	}
	return fmt.Errorf("%s is incomplete: %d of %d items could not be shown: %s", what, len(failed), total, strings.Join(reasons, "; "))
}

// printItem prints one rendered item (text, spill, error, omission marker).
func printItem(stdout, stderr io.Writer, item render.Item) {
	switch it := item.(type) {
	case *render.SpillResult:
		fmt.Fprintf(stdout, "%s: %s, %d bytes, sha256 %s, saved to %s\n", clean(it.URI), clean(it.MimeType), it.SizeBytes, it.SHA256, it.Path)
	case *render.ItemError:
		fmt.Fprintf(stderr, "howl: item %d (%s): %s\n", it.Index, clean(it.URI), cleanText(it.Message))
	case *render.OmittedItems:
		fmt.Fprintln(stderr, "howl:", cleanText(it.Note))
	case *render.TextResult:
		io.WriteString(stdout, cleanText(it.Text))
		if it.Text != "" && !strings.HasSuffix(it.Text, "\n") {
			fmt.Fprintln(stdout)
		}
		if it.Truncated || it.Note != "" {
			fmt.Fprintln(stderr, "howl:", cleanText(it.Note))
		}
	}
}

// printRawItem decodes and prints one rendered item inside a tool result.
func printRawItem(stdout, stderr io.Writer, raw json.RawMessage) {
	it, err := render.DecodeItem(raw)
	if err != nil {
		fmt.Fprintln(stderr, "howl:", err)
		return
	}
	printItem(stdout, stderr, it)
}

func newCallCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	var argsJSON string
	cmd := &cobra.Command{
		Use:   "call SERVER TOOL [k=v ... | --args JSON]",
		Short: "Call a tool, with its result bounded as the model gets it",
		Long: `Call a tool exactly as mcp_invoke_<server> does for the model: arguments are
checked against the tool's input schema first, and the result is bounded
(text over 204800 bytes sliced with a shown-of-total note, images and
binary saved to the spill directory). k=v values are converted to the
types the schema asks for (numbers, booleans, JSON for objects and arrays).
With --json it prints the exact bytes the model would receive.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, -1)
			if err != nil {
				return err
			}
			if argsJSON != "" && len(args) > 2 {
				return usagef("give the arguments as k=v pairs or as --args JSON, not both")
			}
			s, err := open(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			defer s.close()
			toolArgs, err := toolArguments(cmd.Context(), s, args[0], args[1], argsJSON, args[2:])
			if err != nil {
				return err
			}
			warnUnchecked(cmd.Context(), s, args[0], args[1], toolArgs, stderr)
			out, err := callMeta(cmd.Context(), s, mcp.PrefixInvoke, args[0], map[string]any{"tool": args[1], "arguments": toolArgs})
			if err != nil {
				return err
			}
			isErr, failed, total := printable(stdout, stderr, asJSON, out, s.rt.HoldsSpill)
			if isErr {
				return fmt.Errorf("tool %s reported an error", args[1])
			}
			return notShown("the result of tool "+clean(args[1]), failed, total)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print exactly what the model would receive")
	cmd.Flags().StringVar(&argsJSON, "args", "", "the arguments as one JSON object")
	return cmd
}

// toolArguments are a tool call's arguments: --args JSON as it is, or
// k=v pairs typed by the tool's schema.
func toolArguments(ctx context.Context, s *session, server, tool, argsJSON string, kv []string) (json.RawMessage, error) {
	if argsJSON != "" {
		if !json.Valid([]byte(argsJSON)) {
			return nil, usagef("--args %q is not valid JSON: write an object like '{\"a\": 1}'", argsJSON)
		}
		return json.RawMessage(argsJSON), nil
	}
	pairs, err := parsePairs(kv)
	if err != nil {
		return nil, err
	}
	return json.Marshal(coercePairs(ctx, s, server, tool, pairs))
}

// warnUnchecked says on stderr when howl will not check a call's
// arguments against the tool's schema (the call still goes ahead, as it
// does for the model: the server checks them).
func warnUnchecked(ctx context.Context, s *session, server, tool string, raw json.RawMessage, stderr io.Writer) {
	it, ok, cat, err := s.rt.Item(ctx, server, mcp.KindTool, tool)
	var args map[string]any
	if err != nil || !ok || json.Unmarshal(raw, &args) != nil {
		return
	}
	var ue *mcp.UncheckedError
	if errors.As(cat.CheckArguments(it, args), &ue) {
		fmt.Fprintf(stderr, "howl: warning: %s\n", render.SanitizeLine(ue.Reason))
	}
}

// coercePairs types k=v strings by the tool's schema, as `.call` in the
// chat does (mcp.TypeKeyValues); a value that does not parse stays a
// string (the schema check then names the problem).
func coercePairs(ctx context.Context, s *session, server, tool string, pairs map[string]string) map[string]any {
	var schema json.RawMessage
	if it, ok, _, err := s.rt.Item(ctx, server, mcp.KindTool, tool); err == nil && ok {
		schema = it.Schema
	}
	return mcp.TypeKeyValues(schema, pairs)
}

// printable prints a bounded tool result and reports whether it is an
// error result, and which of its content items could not be shown (an
// ItemError stands where their spill or resource would be, and in place of
// a spill pointer to a path holds says howl did not save, which the server
// wrote itself) out of how many.
func printable(stdout, stderr io.Writer, asJSON bool, out []byte, holds func(path string) bool) (isErr bool, failed []*render.ItemError, total int) {
	var res struct {
		Coverage *struct {
			Note string `json:"note"`
		} `json:"howl_coverage"`
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	_ = json.Unmarshal(out, &res)
	type contentItem struct {
		Type     string          `json:"type"`
		HowlNote string          `json:"howl_note"`
		Text     *string         `json:"text"`
		Spill    json.RawMessage `json:"spill"`
		URI      string          `json:"uri"`
		Name     string          `json:"name"`
		Resource json.RawMessage `json:"resource"`
		// failed is the ItemError in the place of its spill or resource.
		failed *render.ItemError
	}
	items := make([]contentItem, len(res.Content))
	for i, c := range res.Content {
		it := &items[i]
		_ = json.Unmarshal(c, it)
		for _, raw := range []json.RawMessage{it.Spill, it.Resource} {
			if raw == nil {
				continue
			}
			d, err := render.DecodeItem(raw)
			if err != nil {
				continue
			}
			if sp, ok := d.(*render.SpillResult); ok && !holds(sp.Path) {
				d = render.ForeignSpill(sp)
			}
			if e, ok := d.(*render.ItemError); ok {
				it.failed = e
				failed = append(failed, e)
			}
		}
	}
	if asJSON {
		stdout.Write(append(render.EscapeTerminalControls(out), '\n'))
		return res.IsError, failed, len(res.Content)
	}
	if res.Coverage != nil {
		fmt.Fprintln(stderr, "howl:", cleanText(res.Coverage.Note))
	}
	for _, it := range items {
		if it.failed != nil {
			continue // notShown says why
		}
		if it.HowlNote != "" {
			fmt.Fprintln(stderr, "howl:", cleanText(it.HowlNote))
		}
		switch {
		case it.Spill != nil:
			printRawItem(stdout, stderr, it.Spill)
		case it.Resource != nil:
			printRawItem(stdout, stderr, it.Resource)
		case it.Type == "resource_link":
			fmt.Fprintf(stdout, "[resource link: %s %s]\n", clean(it.URI), clean(it.Name))
		case it.Text != nil:
			io.WriteString(stdout, cleanText(*it.Text))
			if !strings.HasSuffix(*it.Text, "\n") {
				fmt.Fprintln(stdout)
			}
		default:
			fmt.Fprintf(stdout, "[%s content]\n", clean(it.Type))
		}
	}
	if len(res.Content) == 0 && len(res.StructuredContent) > 0 {
		writeJSON(stdout, res.StructuredContent)
	}
	return res.IsError, failed, len(res.Content)
}

func newPromptCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompt SERVER NAME [k=v ...]",
		Short: "Get a prompt, flattened into one labelled user block (never executed)",
		Long: `Get a prompt exactly as mcp_prompt_<server> does for the model: every message
is labelled [user] or [assistant] in one user block, embedded text is
bounded and binary saved to the spill directory. Prompt text is only ever
printed, never run. Values may be quoted: topic="two words". On a terminal,
missing required arguments are asked for one by one; otherwise they are
listed and howl exits 2.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, -1)
			if err != nil {
				return err
			}
			vals, err := parsePairs(args[2:])
			if err != nil {
				return err
			}
			s, err := open(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			defer s.close()
			if g.term.interactive {
				if err := askMissing(cmd.Context(), s, g.term, args[0], args[1], vals); err != nil {
					return err
				}
			}
			out, err := callMeta(cmd.Context(), s, mcp.PrefixPrompt, args[0], map[string]any{"prompt": args[1], "arguments": vals})
			if err != nil {
				return err
			}
			return emit(stdout, asJSON, out, func() error {
				var pr mcp.PromptResult
				if err := json.Unmarshal(out, &pr); err != nil {
					return err
				}
				fmt.Fprintln(stderr, "howl:", cleanText(pr.Note))
				io.WriteString(stdout, cleanText(pr.Text)+"\n")
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print exactly what the model would receive")
	return cmd
}

// isTerminal reports whether r is a terminal a person types into. A
// character device is not enough: /dev/null is one, and taking it for a
// terminal asked every server question of nobody.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// askMissing asks, one by one, for required arguments not given.
func askMissing(ctx context.Context, s *session, t *terminal, server, prompt string, vals map[string]string) error {
	it, ok, _, err := s.rt.Item(ctx, server, mcp.KindPrompt, prompt)
	if err != nil {
		return err
	}
	if !ok {
		return nil // the call names the problem
	}
	// The terminal's reader, which a server's question may share: a second
	// buffer on stdin would swallow lines typed ahead for it.
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range mcp.MissingArguments(it, vals) {
		desc := ""
		if a.Description != "" {
			desc = " (" + clean(a.Description) + ")"
		}
		fmt.Fprintf(t.out, "%s%s: ", clean(a.Name), desc)
		line, err := t.readLine(ctx)
		if err != nil && line == "" {
			return usagef("no value for required argument %q", a.Name)
		}
		vals[a.Name] = strings.TrimRight(line, "\r\n")
	}
	return nil
}

func newToolsCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON bool
	var server string
	cmd := &cobra.Command{
		Use:   "tools [--server S]",
		Short: "Print the function declarations a model gets (the gated meta-functions) and what they cost in bytes and tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			if server != "" {
				names = []string{server}
			}
			s, err := open(cmd.Context(), g, names...)
			if err != nil {
				return err
			}
			defer s.close()
			shape, err := mcp.ConfigFunctions(s.cfg)
			if err != nil {
				return err
			}
			rep := declarationCosts(shape, s.rt.ServerFeatures(), s.rt.Declarations(), g.model)
			if asJSON {
				return writeJSON(stdout, rep)
			}
			for _, d := range rep.Declarations {
				fmt.Fprintf(stdout, "%s\n  %s\n", d.Name, d.Description)
			}
			for _, n := range s.rt.Names() {
				if off := s.rt.ToolsOff(n); len(off) > 0 {
					fmt.Fprintf(stdout, "(%s: tools switched off, not found, described or called by the model: %s)\n", clean(n), clean(strings.Join(off, ", ")))
				}
			}
			fmt.Fprintln(stdout, rep.Summary)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&server, "server", "", "only this server's functions")
	return cmd
}
