package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/common"
)

// clearInfoMsg is the status bar's tick, due at at: it ends the message
// shown if its time is up.
type clearInfoMsg struct{ at time.Time }

// spinnerTickMsg advances the spinner.
type spinnerTickMsg struct{}

// statusBar is the bottom line: every server's state and item counts on
// the left, the transient message on the right.
type statusBar struct {
	com  *common.Common
	info *common.InfoMsg
	// until is when the message shown ends, armed when the earliest tick
	// pending is due (zero when none is). A message arms a tick only when
	// it ends before that one: a server's flood of notifications, each a
	// message, keeps one tick waiting, not a goroutine each for 4 s.
	until, armed time.Time
	// chat is the chat's segment: the model and the tokens used.
	chat string
	// apps counts the MCP Apps open in the browser.
	apps int
}

// Set shows a transient message for its TTL and returns the tick that
// ends it, unless a tick due no later is already waiting.
func (s *statusBar) Set(msg common.InfoMsg) tea.Cmd {
	msg.Msg = common.ClipText(render.SanitizeLine(msg.Msg), common.MaxStatusBytes, "message")
	s.info = &msg
	ttl := msg.TTL
	if ttl <= 0 {
		ttl = common.DefaultInfoTTL
	}
	s.until = s.com.Now().Add(ttl)
	if !s.armed.IsZero() && !s.until.Before(s.armed) {
		return nil
	}
	s.armed = s.until
	return s.com.Tick(ttl, clearInfoMsg{s.until})
}

// Clear handles a tick: the earliest pending one ends the message if its
// time is up, or waits out the rest of it; a later one left over from
// before is dropped.
func (s *statusBar) Clear(msg clearInfoMsg) tea.Cmd {
	if !msg.at.Equal(s.armed) {
		return nil
	}
	left := s.until.Sub(s.com.Now())
	if left <= 0 {
		s.info, s.armed = nil, time.Time{}
		return nil
	}
	s.armed = s.until
	return s.com.Tick(left, clearInfoMsg{s.until})
}

// Render draws the bar at width w. Every server's name and state stay
// readable: its counts shorten first ("14 tools · 125 resources", then
// "139 items", then none), then failure reasons, then the message on the
// right is cut; the states last, only when they alone do not fit.
func (s *statusBar) Render(w int, servers []*catalog.Server, frame int) string {
	st := s.com.Styles
	right := ""
	if s.info != nil && !s.MessageMoved(w, servers) {
		right = s.infoStyle().Render(common.Truncate(s.info.Msg, max(w*2/3, 20)))
	}
	if p := common.ProgressStatus(s.com.Progress, frame); p != "" {
		if right != "" {
			right += st.Status.Counts.Render(" │ ")
		}
		right += st.Accent.Render(common.Truncate(p, max(w/2, 20)))
	}
	if s.apps > 0 {
		mark := "● app open"
		if s.apps > 1 {
			mark = fmt.Sprintf("● %d apps open", s.apps)
		}
		if right != "" {
			right += st.Status.Counts.Render(" │ ")
		}
		right += st.Accent.Render(mark)
	}
	if s.chat != "" {
		seg := st.Status.Counts.Render(common.Truncate(s.chat, max(w/2, 12)))
		if right != "" {
			right += st.Status.Counts.Render(" │ ")
		}
		right += seg
	}
	// The states alone come before the message.
	states := ansi.StringWidthWc(s.servers(servers, frame, 0, -1))
	if ansi.StringWidthWc(right) > w-states-2 {
		right = common.Truncate(right, max(w-states-2, 0))
	}
	room := w - ansi.StringWidthWc(right) - 1
	left := ""
	for _, detail := range []int{2, 1, 0} {
		left = s.servers(servers, frame, detail, 0)
		if ansi.StringWidthWc(left) <= room {
			break
		}
	}
	if ansi.StringWidthWc(left) > room {
		// Share what is left among the failure reasons, so each failed
		// server still says why.
		failed := 0
		for _, sv := range servers {
			if sv.Status().State == mcp.StateFailed || sv.Status().State == mcp.StateAuthRequired {
				failed++
			}
		}
		for _, detail := range []int{1, 0} {
			left = s.servers(servers, frame, detail, -1)
			if each := (room-ansi.StringWidthWc(left))/max(failed, 1) - 2; failed > 0 && each >= 8 {
				left = s.servers(servers, frame, detail, each)
				break
			}
		}
	}
	left = common.Truncate(left, max(room, 0))
	gap := w - ansi.StringWidthWc(left) - ansi.StringWidthWc(right)
	return common.Fit(left+strings.Repeat(" ", max(gap, 0))+right, w)
}

// minMessageW is the least room the message keeps in the bar; with less,
// it moves to the help line (MessageMoved).
const minMessageW = 24

// MessageMoved reports whether the message needs the help line: the
// servers' states leave it less than minMessageW cells of the bar.
func (s *statusBar) MessageMoved(w int, servers []*catalog.Server) bool {
	return s.info != nil && w-ansi.StringWidthWc(s.servers(servers, 0, 0, -1))-2 < min(minMessageW, ansi.StringWidthWc(s.info.Msg))
}

// MessageLine is the message drawn on a line of its own, w cells wide.
func (s *statusBar) MessageLine(w int) string {
	return common.Fit(" "+s.infoStyle().Render(common.Truncate(s.info.Msg, w-1)), w)
}

// infoStyle is the message's style, by its type.
func (s *statusBar) infoStyle() lipgloss.Style {
	st := s.com.Styles
	switch s.info.Type {
	case common.InfoWarn:
		return st.Status.Warn
	case common.InfoError:
		return st.Status.Error
	}
	return st.Status.Info
}

// servers renders every server's segment: detail 2 has per-kind counts,
// 1 a total. reasonW > 0 cuts failure reasons to that width; -1 leaves
// them out.
func (s *statusBar) servers(servers []*catalog.Server, frame, detail, reasonW int) string {
	st := s.com.Styles
	var parts []string
	for _, sv := range servers {
		name := st.Status.Server.Render(render.SanitizeLine(sv.Name()))
		var seg string
		switch sv.Status().State {
		case mcp.StateReady:
			seg = name + " " + st.Status.Ready.Render("● ready")
			if sv.Loading() {
				seg += " " + st.Spinner.Render(common.SpinnerFrames[frame%len(common.SpinnerFrames)]) + st.Status.Counts.Render(" listing")
			} else if sv.Loaded() && detail > 0 {
				seg += " " + st.Status.Counts.Render(sv.CountText(detail == 2))
			}
		case mcp.StateStarting, "":
			seg = name + " " + st.Status.Starting.Render(common.SpinnerFrames[frame%len(common.SpinnerFrames)]+" starting")
		case mcp.StateFailed, mcp.StateAuthRequired:
			seg = name + " " + st.Status.Failed.Render("✗ "+string(sv.Status().State))
			if reason := render.SanitizeLine(sv.Status().Reason); reason != "" && reasonW >= 0 {
				if reasonW > 0 {
					reason = common.Truncate(reason, reasonW)
				}
				seg += st.Status.Failed.Render(": " + reason)
			}
		default:
			seg = name + " " + st.Status.Counts.Render("○ "+string(sv.Status().State))
		}
		parts = append(parts, seg)
	}
	return " " + strings.Join(parts, st.Subtle.Render("  │  "))
}
