package mcp

// systemOpener opens a URL in the default browser.
var systemOpener = []string{"open"}
