//go:build race

package render

// raceEnabled reports that the race detector is on, which makes sync.Pool
// drop some of what is put back (regexp's matchers among them): counts of
// allocation do not hold then.
const raceEnabled = true
