package common

import (
	"fmt"
	"strings"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func Percent(a, b int) int {
	if b <= 0 {
		return 100
	}
	return min(a*100/b, 100)
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return render.SanitizeLine(s)
}

func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// sizeText is "641 bytes" or "2.0 MiB (2097152 bytes)".
func SizeText(n int64) string {
	if n < 1024 {
		return render.Count(int(n), "byte")
	}
	return fmt.Sprintf("%s (%d bytes)", render.HumanBytes(n), n)
}

func OrDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clipText bounds a server's text to limit bytes, on a rune boundary,
// saying what was cut: "… (1.0 MiB line cut to 4.0 KiB)". The result
// never shares memory with s: a short line kept from a huge message must
// not keep the message alive.
func ClipText(s string, limit int, noun string) string {
	if len(s) <= limit {
		return strings.Clone(s)
	}
	cut := render.RuneBoundary(s, limit)
	return s[:cut] + fmt.Sprintf("… (%s %s cut to %s)", render.HumanBytes(int64(len(s))), noun, render.HumanBytes(int64(cut)))
}

// FormatTime shows a time in the TUI's time zone.
func (c *Common) FormatTime(t time.Time) string {
	loc := c.Location
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// CompleteTimeout is the bound of one completion request.
func (c *Common) CompleteTimeout() time.Duration {
	if c.CompletionTimeout > 0 {
		return c.CompletionTimeout
	}
	return mcp.CompletionTimeout
}

// LeftOutText says that a server's completion left values out for being
// over mcp.MaxCompletionValueBytes (mcp.Completion.TooLong), for the
// popups that offer the rest ("" when none was).
func LeftOutText(tooLong int) string {
	switch tooLong {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("1 value over %d KiB left out (MaxCompletionValueBytes)", mcp.MaxCompletionValueBytes>>10)
	}
	return fmt.Sprintf("%d values over %d KiB left out (MaxCompletionValueBytes)", tooLong, mcp.MaxCompletionValueBytes>>10)
}
