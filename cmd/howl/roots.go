package main

import (
	"fmt"
	"os"

	"github.com/howl-mcp/howl/mcp"
)

// configRoots is the config's top-level "roots", offered to servers that
// ask (roots/list). Without the key howl declares no roots: server-filesystem,
// for one, replaces the directories on its command line with a client's
// roots, so offering the working directory by default would change what an
// existing entry serves. A malformed "roots" is reported and ignored.
func configRoots(cfg *mcp.Config) []string {
	dirs, err := mcp.ConfigRoots(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "howl:", err)
		return nil
	}
	return dirs
}
