package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// newSkillCmd loads a skill of a server that offers skills (SEP-2640), or
// reads one of its files, exactly as mcp_read_<server> {"skill", "file"}
// does for the model: the file is read only now, and checked against the
// skill's listing (size, digest, and SKILL.md's frontmatter) before it is
// shown.
func newSkillCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	var pg paging
	cmd := &cobra.Command{
		Use:   "skill SERVER SKILL [FILE] [--pattern RE] [--offset N] [--max-bytes N]",
		Short: "Load a skill (its SKILL.md) or read one of its files, each checked against the skill's listing",
		Long: `Load a skill a server offers (howl ls --kind skill lists them, by name;
a skill is named by its name or its SKILL.md URI): its SKILL.md is read,
checked against the listing (size, sha256 digest, and the frontmatter field
by field) and printed, with the skill's other files. FILE reads one of those
(a path under the skill's directory, or its URI), checked the same way. A
file that does not match is not shown: the verb names it and exits 1.
With --json it prints the exact bytes mcp_read_<server> {"skill": ...}
gives the model.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 2, 3)
			if err != nil {
				return err
			}
			req := map[string]any{"skill": args[1]}
			if len(args) == 3 {
				req["file"] = args[2]
			}
			out, err := readMeta(cmd, g, &pg, args[0], req)
			if err != nil {
				return err
			}
			var sr mcp.SkillRead
			if err := json.Unmarshal(out, &sr); err != nil {
				return fmt.Errorf("reading the skill's result: %w", err)
			}
			res, err := render.DecodeRead(sr.Content)
			if err != nil {
				return err
			}
			return emit(stdout, asJSON, out, func() error {
				fmt.Fprintf(stderr, "howl: %s: checked: %s\n", cleanText(sr.URI), cleanText(sr.Verified))
				if err := printRead(stdout, stderr, res); err != nil {
					return err
				}
				for _, f := range sr.Files {
					fmt.Fprintf(stderr, "howl: file of the skill: %s (%s)\n", cleanText(f.URI), render.HumanBytes(f.Size))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print exactly what the model would receive")
	pg.flags(cmd)
	return cmd
}
