//go:build race

package mcp

// raceEnabled reports that the race detector is on, which makes a
// 100 000-question flood take minutes instead of seconds.
const raceEnabled = true
