//go:build !darwin && !windows

package mcp

// systemOpener opens a URL in the desktop's default browser.
var systemOpener = []string{"xdg-open"}
