package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// InfoType is the severity of a transient status message.
type InfoType int

// The severities, in increasing order.
const (
	InfoPlain InfoType = iota
	InfoWarn
	InfoError
)

// DefaultInfoTTL is how long a transient message stays in the status bar.
const DefaultInfoTTL = 4 * time.Second

// MaxStatusBytes bounds a status message, and a server's progress
// message, as kept: the bar shows one line, and a server's megabyte must
// not be kept (and cut again every frame) to show its first words.
const MaxStatusBytes = 1024

// InfoMsg is the one channel for transient messages: anything that wants
// to tell the person something returns one (see ReportInfo and friends).
type InfoMsg struct {
	Type InfoType
	Msg  string
	TTL  time.Duration
}

// clearInfoMsg ends the message it names, unless a newer one replaced it.
type clearInfoMsg struct{ id int }

// ReportInfo returns a command that shows msg in the status bar.
func ReportInfo(msg string) tea.Cmd { return report(InfoPlain, msg) }

// ReportWarn returns a command that shows a warning in the status bar.
func ReportWarn(msg string) tea.Cmd { return report(InfoWarn, msg) }

// ReportError returns a command that shows an error in the status bar.
func ReportError(err error) tea.Cmd { return report(InfoError, err.Error()) }

func report(t InfoType, msg string) tea.Cmd {
	return func() tea.Msg { return InfoMsg{Type: t, Msg: msg, TTL: DefaultInfoTTL} }
}

// spinnerFrames are the frames of every loading indicator; one root tick
// advances them all.
var spinnerFrames = spinner.MiniDot.Frames

// spinnerInterval is the time between spinner frames.
const spinnerInterval = 100 * time.Millisecond

// spinnerTickMsg advances the spinner.
type spinnerTickMsg struct{}

// statusBar is the bottom line: every server's state and item counts on
// the left, the transient message on the right.
type statusBar struct {
	com    *Common
	info   *InfoMsg
	infoID int
	// chat is the chat's segment: the model and the tokens used.
	chat string
}

// Set shows a transient message and returns the tick that clears it.
func (s *statusBar) Set(msg InfoMsg) tea.Cmd {
	s.infoID++
	msg.Msg = clipText(render.SanitizeLine(msg.Msg), MaxStatusBytes, "message")
	s.info = &msg
	ttl := msg.TTL
	if ttl <= 0 {
		ttl = DefaultInfoTTL
	}
	return s.com.Tick(ttl, clearInfoMsg{s.infoID})
}

// Clear ends the message id, if it is still the one shown.
func (s *statusBar) Clear(id int) {
	if id == s.infoID {
		s.info = nil
	}
}

// Render draws the bar at width w.
func (s *statusBar) Render(w int, servers []*serverState, frame int) string {
	st := s.com.Styles
	right := ""
	if s.info != nil {
		style := st.Status.Info
		switch s.info.Type {
		case InfoWarn:
			style = st.Status.Warn
		case InfoError:
			style = st.Status.Error
		}
		right = style.Render(truncate(s.info.Msg, max(w*2/3, 20)))
	}
	if p := progressStatus(s.com.Progress, frame); p != "" {
		if right != "" {
			right += st.Status.Counts.Render(" │ ")
		}
		right += st.Accent.Render(truncate(p, max(w/2, 20)))
	}
	if s.chat != "" {
		seg := st.Status.Counts.Render(truncate(s.chat, max(w/2, 12)))
		if right != "" {
			right += st.Status.Counts.Render(" │ ")
		}
		right += seg
	}
	room := w - ansi.StringWidthWc(right) - 1
	left := ""
	for _, detail := range []int{2, 1} {
		left = s.servers(servers, frame, detail, 0)
		if ansi.StringWidthWc(left) <= room {
			break
		}
	}
	if ansi.StringWidthWc(left) > room {
		// Share what is left among the failure reasons, so each failed
		// server still says why.
		base := ansi.StringWidthWc(s.servers(servers, frame, 1, -1))
		failed := 0
		for _, sv := range servers {
			if sv.status.State == mcp.StateFailed || sv.status.State == mcp.StateAuthRequired {
				failed++
			}
		}
		if failed > 0 {
			left = s.servers(servers, frame, 1, max((room-base)/failed-2, 8))
		}
	}
	left = truncate(left, max(room, 0))
	gap := w - ansi.StringWidthWc(left) - ansi.StringWidthWc(right)
	return fit(left+strings.Repeat(" ", max(gap, 0))+right, w)
}

// servers renders every server's segment: detail 2 has per-kind counts,
// 1 a total. reasonW > 0 cuts failure reasons to that width; -1 leaves
// them out.
func (s *statusBar) servers(servers []*serverState, frame, detail, reasonW int) string {
	st := s.com.Styles
	var parts []string
	for _, sv := range servers {
		name := st.Status.Server.Render(render.SanitizeLine(sv.name))
		var seg string
		switch sv.status.State {
		case mcp.StateReady:
			seg = name + " " + st.Status.Ready.Render("● ready")
			if sv.loading {
				seg += " " + st.Spinner.Render(spinnerFrames[frame%len(spinnerFrames)]) + st.Status.Counts.Render(" listing")
			} else if sv.loaded && detail > 0 {
				seg += " " + st.Status.Counts.Render(sv.countText(detail == 2))
			}
		case mcp.StateStarting, "":
			seg = name + " " + st.Status.Starting.Render(spinnerFrames[frame%len(spinnerFrames)]+" starting")
		case mcp.StateFailed, mcp.StateAuthRequired:
			seg = name + " " + st.Status.Failed.Render("✗ "+string(sv.status.State))
			if reason := render.SanitizeLine(sv.status.Reason); reason != "" && reasonW >= 0 {
				if reasonW > 0 {
					reason = truncate(reason, reasonW)
				}
				seg += st.Status.Failed.Render(": " + reason)
			}
		default:
			seg = name + " " + st.Status.Counts.Render("○ "+string(sv.status.State))
		}
		parts = append(parts, seg)
	}
	return " " + strings.Join(parts, st.Subtle.Render("  │  "))
}

// countText is "11 tools · 125 resources · ..." or "144 items".
func (sv *serverState) countText(long bool) string {
	total := 0
	var parts []string
	for i, k := range mcp.Kinds {
		n := len(sv.entries[i])
		total += n
		if sv.listed[k] {
			parts = append(parts, fmt.Sprintf("%d %s", n, kindNoun(k, n)))
		}
	}
	if long {
		return strings.Join(parts, " · ")
	}
	return fmt.Sprintf("%d items", total)
}

// kindNoun is the plural or singular noun of a kind.
func kindNoun(k mcp.Kind, n int) string {
	noun := map[mcp.Kind]string{mcp.KindTool: "tool", mcp.KindResource: "resource", mcp.KindTemplate: "template", mcp.KindPrompt: "prompt"}[k]
	if n != 1 {
		noun += "s"
	}
	return noun
}
