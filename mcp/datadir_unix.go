//go:build !windows

package mcp

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDataDir is ~/.local/share/howl (the XDG default, on macOS too).
func defaultDataDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("no home directory for howl's data (%v): set HOWL_DATA_DIR to a directory of yours", err)
	}
	return filepath.Join(home, ".local", "share", "howl"), nil
}
