package render

import "fmt"

// Count is "1 item" or "3 items": n and the noun, with an s unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// HumanBytes formats a byte count for a person: 641 B, 4.0 KiB, 2.0 MiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// RuneBoundary is the largest character boundary of s at or before n: where
// a cut at n bytes may fall without splitting a UTF-8 sequence.
func RuneBoundary(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return max(n, 0)
}

// Ellipsize cuts s to at most n bytes at a character boundary and marks a
// cut with "…" (the mark is beyond the n bytes).
func Ellipsize(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:RuneBoundary(s, n)] + "…"
}
