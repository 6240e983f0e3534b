package mcp

// EditDistance is the Levenshtein distance of a and b, in bytes: what
// "did you mean" suggestions across howl measure.
func EditDistance(a, b string) int { return editDistance(a, b) }
