package tui

import (
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// The smallest terminal howl lays out; below it the whole screen asks to be
// made bigger instead of drawing a broken layout.
const (
	MinWidth  = 60
	MinHeight = 16
)

// The log pane's smallest height (its title and four lines), and the
// smallest body it leaves above itself.
const (
	minLogRows  = 5
	minBodyRows = 6
)

// wideWidth is the width from which the list stays beside a focused viewer.
const wideWidth = 100

// focusPane names the pane that receives keys.
type focusPane int

const (
	focusList  focusPane = iota
	focusRight           // the detail pane, or the viewer when one is open
)

// Rect is a screen rectangle in cells.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Empty reports whether r has no cells.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// LayoutState is the part of the model the layout depends on.
type LayoutState struct {
	ViewerOpen bool
	Focus      focusPane
	// HideHelp drops the help line (the help screen is open, say).
	HideHelp bool
	// Chat shows the chat instead of the catalog; InputH is the input
	// line's height in rows.
	Chat   bool
	InputH int
	// Logs shows the server log pane under the body.
	Logs bool
	// Banner keeps a row under the tab bar (the demo's "no config" line).
	Banner bool
}

// Layout places every region of the screen.
type Layout struct {
	Width, Height int
	// TooSmall: the terminal is below MinWidth x MinHeight and only the
	// "make me bigger" screen is drawn.
	TooSmall bool
	Tabs     Rect
	// Banner is the row under the tab bar, when the state asks for one.
	Banner Rect
	// List is empty when the viewer takes the whole body.
	List Rect
	// Right holds the detail pane, or the viewer when one is open.
	Right  Rect
	Help   Rect
	Status Rect
	// In chat mode: the transcript, the rule above the input, the input.
	Chat, Rule, Input Rect
	// Logs is the server log pane (its title row first), under the body.
	Logs Rect
}

// ComputeLayout is a pure function of the terminal size and the state.
// Rows from the top: the tab bar, the banner when there is one, the body
// (list beside detail or viewer), the help line, the status bar; with the
// log open, the log pane between the body and the help line. On a narrow terminal a focused viewer takes
// the whole body; focusing the list brings it back beside the viewer.
func ComputeLayout(w, h int, s LayoutState) Layout {
	l := Layout{Width: w, Height: h}
	if w < MinWidth || h < MinHeight {
		l.TooSmall = true
		return l
	}
	l.Tabs = Rect{0, 0, w, 1}
	top := 1 // the body's first row
	if s.Banner {
		l.Banner = Rect{0, 1, w, 1}
		top = 2
	}
	l.Status = Rect{0, h - 1, w, 1}
	bodyBottom := h - 1
	if !s.HideHelp {
		l.Help = Rect{0, h - 2, w, 1}
		bodyBottom = h - 2
	}
	if s.Logs {
		// The log takes two fifths of the body, at least minLogRows rows,
		// leaving the body at least minBodyRows.
		logH := common.Clamp((bodyBottom-top)*2/5, minLogRows, bodyBottom-top-minBodyRows)
		bodyBottom -= logH
		l.Logs = Rect{0, bodyBottom, w, logH}
	}
	body := Rect{0, top, w, bodyBottom - top}
	if s.Chat {
		// The chat fills the body; the input sits at its bottom under a
		// rule, growing up to maxInputLines rows.
		inputH := common.Clamp(s.InputH, 1, chat.MaxInputLines)
		l.Input = Rect{0, bodyBottom - inputH, w, inputH}
		l.Rule = Rect{0, l.Input.Y - 1, w, 1}
		l.Chat = Rect{0, top, w, l.Rule.Y - top}
		return l
	}
	if s.ViewerOpen && s.Focus == focusRight && w < wideWidth {
		l.Right = body
		return l
	}
	listW := common.Clamp(w*2/5, 28, 60)
	if s.ViewerOpen {
		listW = common.Clamp(w/3, 28, 48)
	}
	l.List = Rect{body.X, body.Y, listW, body.H}
	l.Right = Rect{body.X + listW, body.Y, w - listW, body.H}
	return l
}
