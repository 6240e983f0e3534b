package main

import (
	"context"
	"fmt"
	"io"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// runOverview is what `howl` with no verb prints when stdout is not a
// terminal: every server's state and what it offers, kind by kind, and the
// verbs to look further.
func runOverview(ctx context.Context, g *globalFlags, w io.Writer) error {
	s, err := open(ctx, g)
	if err != nil {
		return err
	}
	defer s.close()
	l, _ := buildListing(ctx, s, nil, "")
	defer l.close()
	fmt.Fprintf(w, "howl %s: %s (config: %s)\n\n", buildVersion(), l.Coverage, configSource(s.cfg))
	for _, sl := range l.Servers {
		if sl.State != mcp.StateReady {
			fmt.Fprintf(w, "  %-16s %s: %s\n", clean(sl.Name), sl.State, clean(sl.Reason))
			continue
		}
		fmt.Fprintf(w, "  %-16s ready: %s, %s, %s, %s\n", clean(sl.Name),
			countOf(sl, mcp.KindTool, "tool"), countOf(sl, mcp.KindResource, "resource"),
			countOf(sl, mcp.KindTemplate, "resource template"), countOf(sl, mcp.KindPrompt, "prompt"))
		for _, wn := range sl.Warnings {
			fmt.Fprintf(w, "  %-16s warning (%s): %s\n", "", wn.Kind, clean(wn.Reason))
		}
	}
	fmt.Fprint(w, `
Look further:
  howl ls [--server S] [--kind K]    every item, every page
  howl search S QUERY                ranked search over one server's catalog
  howl describe S [--kind K] ID      one item in full
  howl servers                       states, protocols, features, failures
`)
	return nil
}

// countOf is "3 tools", or "? prompts (listing failed)" when the server's
// listing of that kind failed: unknown is not zero.
func countOf(sl serverListing, k mcp.Kind, noun string) string {
	n, listed := sl.Counts[k]
	switch {
	case !listed:
		return render.Count(0, noun)
	case n == nil:
		return "? " + noun + "s (listing failed)"
	}
	return render.Count(*n, noun)
}
