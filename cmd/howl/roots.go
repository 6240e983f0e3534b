package main

import (
	"fmt"
	"os"

	"github.com/howl-mcp/howl/mcp"
)

// configRoots are the roots offered to servers that ask (roots/list): the
// config's top-level "roots", else the working directory. `"roots": []`
// offers none, which is how a server-filesystem entry keeps the
// directories on its command line (it replaces them with a client's
// non-empty roots). A malformed "roots" is reported and none are offered.
func configRoots(cfg *mcp.Config) []string {
	dirs, err := mcp.DefaultRoots(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "howl:", err)
		return nil
	}
	return dirs
}
