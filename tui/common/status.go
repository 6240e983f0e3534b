package common

import (
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
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
var SpinnerFrames = spinner.MiniDot.Frames

// spinnerInterval is the time between spinner frames.
const SpinnerInterval = 100 * time.Millisecond
