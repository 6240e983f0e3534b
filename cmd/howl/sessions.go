package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/render"
)

// openStore opens the session database at its default place.
func openStore(ctx context.Context) (*store.Store, error) {
	path, err := store.DefaultPath()
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, path)
}

// record stores an ask's turn in a session. A store that cannot be opened
// or written costs the person a warning, never the answer.
type record struct {
	st      *store.Store
	id      string // "" until the session exists
	servers []string
	stderr  io.Writer
	quiet   bool // --json: stderr carries nothing of howl's own
}

// openRecord loads the session --continue or --session names, or prepares
// a new one (created when the turn is saved, titled from the question).
func openRecord(ctx context.Context, o askOptions, servers []string, stderr io.Writer) (*record, *llm.Conversation, error) {
	rec := &record{stderr: stderr, quiet: o.json}
	conv := llm.NewConversation()
	if o.noSave && (o.resume || o.session != "") {
		return nil, nil, usagef("--no-save with --continue or --session: the turn would not be added to the session; drop one of them")
	}
	if o.noSave {
		return rec, conv, nil
	}
	st, err := openStore(ctx)
	if err != nil {
		if o.resume || o.session != "" {
			return nil, nil, fmt.Errorf("opening the session database to continue: %w", err)
		}
		fmt.Fprintf(stderr, "howl: this conversation will not be saved: %v\n", err)
		return rec, conv, nil
	}
	rec.st = st
	id := o.session
	if o.resume {
		latest, err := st.Latest(ctx)
		if err != nil {
			st.Close()
			return nil, nil, usageError{fmt.Errorf("--continue: %w: start one with howl ask \"...\"", err)}
		}
		id = latest.ID
	}
	if id != "" {
		loaded, err := st.Load(ctx, id)
		if err != nil {
			st.Close()
			if errors.Is(err, store.ErrNotFound) {
				return nil, nil, usageError{err}
			}
			return nil, nil, err
		}
		conv, rec.id = loaded, id
	}
	rec.servers = servers
	return rec, conv, nil
}

func (r *record) save(ctx context.Context, question, model string, msgs []llm.Message) {
	if r.st == nil || len(msgs) == 0 {
		return
	}
	// Saving must not be skipped because the person pressed Ctrl+C.
	ctx = context.WithoutCancel(ctx)
	var err error
	if r.id == "" {
		// The session is stored with its first turn, or not at all.
		var sess store.Session
		if sess, err = r.st.Create(ctx, question, model, r.servers, msgs); err == nil {
			r.id = sess.ID
		}
	} else {
		err = r.st.AppendTurn(ctx, r.id, msgs)
	}
	if err != nil {
		fmt.Fprintf(r.stderr, "howl: the conversation was not saved: %v\n", err)
		return
	}
	if !r.quiet {
		fmt.Fprintf(r.stderr, "howl: saved as session %s (continue it with howl ask --continue, or --session %s)\n", r.id, r.id)
	}
}

func (r *record) close() {
	if r != nil && r.st != nil {
		r.st.Close()
	}
}

func newSessionsCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, search, export, rename and delete stored conversations",
		Long: `Conversations are stored in SQLite at $HOWL_DATA_DIR/howl.db, else
<user data dir>/howl/howl.db, one session per conversation.`,
	}
	var asJSON bool
	var filter string
	list := &cobra.Command{
		Use: "list [--filter TEXT]", Short: "Sessions, newest first", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), func(st *store.Store) error {
				list, err := st.List(cmd.Context(), filter, 0)
				if err != nil {
					return err
				}
				if asJSON {
					if list == nil {
						list = []store.Session{}
					}
					return writeJSON(stdout, list)
				}
				tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTITLE")
				for _, s := range list {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"), s.Messages, clean(s.Title))
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&filter, "filter", "", "only titles containing this")
	search := &cobra.Command{
		Use: "search QUERY", Short: "Full-text search across every session", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), func(st *store.Store) error {
				res, err := st.Search(cmd.Context(), strings.Join(args, " "), 0)
				if err != nil {
					return usageError{err}
				}
				if asJSON {
					return writeJSON(stdout, res)
				}
				fmt.Fprintln(stdout, res.Coverage)
				for _, h := range res.Hits {
					fmt.Fprintf(stdout, "%s  %s  (%s)\n    %s\n", h.SessionID, clean(h.Title), h.Role, clean(h.Snippet))
				}
				return nil
			})
		},
	}
	var out string
	export := &cobra.Command{
		Use: "export ID [-o FILE]", Short: "Write a session as Markdown (tool calls as collapsible details)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), func(st *store.Store) error {
				w := stdout
				if out != "" {
					// It holds tool output: the person's alone, and never
					// written through a link planted where it goes.
					f, err := render.OpenPrivate(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
					if err != nil {
						return usagef("-o %s: %v", out, err)
					}
					defer f.Close()
					w = f
				}
				return notFoundIsUsage(st.Export(cmd.Context(), args[0], w))
			})
		},
	}
	export.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of stdout")
	rename := &cobra.Command{
		Use: "rename ID TITLE...", Short: "Retitle a session", Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), func(st *store.Store) error {
				return notFoundIsUsage(st.Rename(cmd.Context(), args[0], strings.Join(args[1:], " ")))
			})
		},
	}
	del := &cobra.Command{
		Use: "delete ID", Short: "Delete a session and its messages", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), func(st *store.Store) error {
				return notFoundIsUsage(st.Delete(cmd.Context(), args[0]))
			})
		},
	}
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list, search, export, rename, del)
	return cmd
}

func withStore(ctx context.Context, f func(*store.Store) error) error {
	st, err := openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(st)
}

func notFoundIsUsage(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return usageError{err}
	}
	return err
}
