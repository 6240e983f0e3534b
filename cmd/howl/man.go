package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// newManCmd writes howl's man pages, made from the command tree (cobra's
// doc generator): howl.1 and one page per verb (howl-ls.1, ...).
func newManCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write howl's man pages (howl.1, howl-ls.1, ...) into DIR",
		Long: `Write howl's man pages, made from this command tree, into DIR (created if
missing). For example:

  howl man ~/.local/share/man/man1 && man howl

Release archives carry the same pages under manpages/.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("creating %s for the man pages: %w", dir, err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // pages that do not change from run to run
			markdownSafe(root)
			header := &doc.GenManHeader{Title: "HOWL", Section: "1", Source: "howl " + buildVersion(), Manual: "howl manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing the man pages into %s: %w", dir, err)
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "howl*.1"))
			fmt.Fprintf(stdout, "wrote %d man pages into %s (man howl)\n", len(pages), dir)
			return nil
		},
	}
}

// markdownSafe escapes "<" in the texts of every command and flag: the
// generator reads them as Markdown, where "<user config dir>" is an HTML
// tag that would vanish from the page. A flag shared by several commands
// is escaped once.
func markdownSafe(root *cobra.Command) {
	esc := strings.NewReplacer("<", `\<`)
	done := map[*pflag.Flag]bool{}
	flag := func(f *pflag.Flag) {
		if !done[f] {
			done[f] = true
			f.Usage = esc.Replace(f.Usage)
		}
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.Short, cmd.Long, cmd.Example = esc.Replace(cmd.Short), esc.Replace(cmd.Long), esc.Replace(cmd.Example)
		cmd.Flags().VisitAll(flag)
		cmd.PersistentFlags().VisitAll(flag)
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
}
