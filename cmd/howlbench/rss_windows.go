package main

import "os"

// peakRSSMB is 0 (unknown): Windows reports a process's times, not its
// memory, once it has ended.
func peakRSSMB(*os.ProcessState) float64 { return 0 }
