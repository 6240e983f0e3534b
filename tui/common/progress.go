package common

import (
	"fmt"
	"math"
	"strings"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// progressBoard is the latest progress of every request a pane waits on,
// by owner. A pane says when it starts waiting (Begin) and when the
// request ends (Done); progress for any other owner (a finished request,
// one nobody here made) is not kept, so every entry has an end and none
// goes on a timer: a slow request keeps its line.
type ProgressBoard struct {
	waiting map[string]bool
	entries map[string]*progressEntry
	seq     int
}

type progressEntry struct {
	p mcp.Progress
	// seq orders entries by their latest update.
	seq int
}

// Begin notes that a pane waits on owner's request.
func (b *ProgressBoard) Begin(owner string) {
	if b.waiting == nil {
		b.waiting = map[string]bool{}
	}
	b.waiting[owner] = true
}

// Apply records a progress notification; it reports whether a pane waits
// on the request (false: dropped).
func (b *ProgressBoard) Apply(p mcp.Progress) bool {
	if !b.waiting[p.Owner] {
		return false
	}
	if b.entries == nil {
		b.entries = map[string]*progressEntry{}
	}
	b.seq++
	b.entries[p.Owner] = &progressEntry{p: p, seq: b.seq}
	return true
}

// Done ends the wait on owner's request and forgets its progress.
func (b *ProgressBoard) Done(owner string) {
	delete(b.waiting, owner)
	delete(b.entries, owner)
}

// Get returns owner's latest progress.
func (b *ProgressBoard) Get(owner string) (mcp.Progress, bool) {
	e, ok := b.entries[owner]
	if !ok {
		return mcp.Progress{}, false
	}
	return e.p, true
}

// Len is how many requests are reporting progress.
func (b *ProgressBoard) Len() int { return len(b.entries) }

// Latest returns the most recently updated progress.
func (b *ProgressBoard) Latest() (mcp.Progress, bool) {
	var best *progressEntry
	for _, e := range b.entries {
		if best == nil || e.seq > best.seq {
			best = e
		}
	}
	if best == nil {
		return mcp.Progress{}, false
	}
	return best.p, true
}

// progressBarCells is the width of a progress bar's inside.
const progressBarCells = 12

// progressText is one line for a request's progress: a bar and the count
// when the total is known ("▕██████░░░░░░▏ 3/6"), a spinner frame and the
// count otherwise, then the server's message (sanitized).
func ProgressText(p mcp.Progress, frame int) string {
	var b strings.Builder
	if p.Total > 0 {
		frac := math.Max(0, math.Min(p.Progress/p.Total, 1))
		full := int(math.Round(frac * progressBarCells))
		b.WriteString("▕" + strings.Repeat("█", full) + strings.Repeat("░", progressBarCells-full) + "▏ ")
		b.WriteString(mcp.FormatNumber(p.Progress) + "/" + mcp.FormatNumber(p.Total))
	} else {
		b.WriteString(SpinnerFrames[frame%len(SpinnerFrames)] + " ")
		if p.Task != "" {
			b.WriteString("task")
		} else {
			b.WriteString(mcp.FormatNumber(p.Progress))
		}
	}
	if msg := strings.TrimSpace(render.SanitizeLine(p.Message)); msg != "" {
		b.WriteString(" " + msg)
	}
	return b.String()
}

// progressStatus is the status bar's progress segment: the latest request's
// progress, its server, and how many more are reporting.
func ProgressStatus(b *ProgressBoard, frame int) string {
	p, ok := b.Latest()
	if !ok {
		return ""
	}
	s := render.SanitizeLine(p.Server) + " " + ProgressText(p, frame)
	if n := b.Len() - 1; n > 0 {
		s += fmt.Sprintf(" (+%d more)", n)
	}
	return s
}
