package main

import (
	"fmt"
	"io"

	"github.com/howl-mcp/howl/mcp"
)

// configRoots are the roots offered to servers that ask (roots/list): the
// config's top-level "roots", else the working directory. `"roots": []`
// offers none, which is how a server-filesystem entry keeps the
// directories on its command line (it replaces them with a client's
// non-empty roots). A malformed "roots" is reported on w (the verb's
// stderr, whose writer sanitizes: the message names the config's path) and
// none are offered.
func configRoots(w io.Writer, cfg *mcp.Config) []string {
	dirs, err := mcp.DefaultRoots(cfg)
	if err != nil {
		fmt.Fprintln(w, "howl:", err)
		return nil
	}
	return dirs
}
