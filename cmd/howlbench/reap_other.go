//go:build !linux

package main

// becomeSubreaper is Linux only: elsewhere a server's memory is counted in
// its client's, and the report says servers' peaks are unknown.
func becomeSubreaper() bool { return false }

func reapServer(string) float64 { return 0 }
