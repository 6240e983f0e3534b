package tui

import "testing"

func TestComputeLayoutPlacesEveryRegion(t *testing.T) {
	cases := []struct {
		name          string
		w, h          int
		state         LayoutState
		tooSmall      bool
		listW, rightW int
	}{
		{"below the minimum width", 59, 30, LayoutState{}, true, 0, 0},
		{"below the minimum height", 100, 15, LayoutState{}, true, 0, 0},
		{"the minimum", 60, 16, LayoutState{}, false, 28, 32},
		{"80x24 catalog", 80, 24, LayoutState{}, false, 32, 48},
		{"120x40 catalog", 120, 40, LayoutState{}, false, 48, 72},
		{"very wide caps the list", 300, 50, LayoutState{}, false, 60, 240},
		{"80x24 focused viewer takes the body", 80, 24, LayoutState{ViewerOpen: true, Focus: focusRight}, false, 0, 80},
		{"80x24 viewer with the list focused", 80, 24, LayoutState{ViewerOpen: true, Focus: focusList}, false, 28, 52},
		{"120x40 viewer keeps the list", 120, 40, LayoutState{ViewerOpen: true, Focus: focusRight}, false, 40, 80},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := ComputeLayout(c.w, c.h, c.state)
			if l.TooSmall != c.tooSmall {
				t.Fatalf("TooSmall = %v", l.TooSmall)
			}
			if c.tooSmall {
				return
			}
			if l.List.W != c.listW || l.Right.W != c.rightW {
				t.Errorf("list %d, right %d; want %d, %d", l.List.W, l.Right.W, c.listW, c.rightW)
			}
			// Rows: tabs, body, help, status, with no gap or overlap.
			if l.Tabs != (Rect{0, 0, c.w, 1}) || l.Status != (Rect{0, c.h - 1, c.w, 1}) || l.Help != (Rect{0, c.h - 2, c.w, 1}) {
				t.Errorf("chrome rows: tabs %v help %v status %v", l.Tabs, l.Help, l.Status)
			}
			if l.Right.Y != 1 || l.Right.H != c.h-3 || l.Right.X+l.Right.W != c.w {
				t.Errorf("right pane %v does not fill the body", l.Right)
			}
			if !l.List.Empty() && (l.List.X != 0 || l.List.X+l.List.W != l.Right.X || l.List.H != l.Right.H) {
				t.Errorf("list %v and right %v do not tile", l.List, l.Right)
			}
		})
	}
}

func TestComputeLayoutWithoutTheHelpLineGivesTheBodyARow(t *testing.T) {
	with := ComputeLayout(80, 24, LayoutState{})
	without := ComputeLayout(80, 24, LayoutState{HideHelp: true})
	if !without.Help.Empty() || without.Right.H != with.Right.H+1 {
		t.Errorf("help %v, body %d vs %d", without.Help, without.Right.H, with.Right.H)
	}
}

func TestChatLayoutStacksTranscriptRuleAndInput(t *testing.T) {
	for _, c := range []struct{ w, h, inputH, chatH int }{
		{60, 16, 1, 11},
		{60, 16, 99, 6}, // the input stops growing at maxInputLines
		{80, 24, 2, 18},
		{120, 40, 1, 35},
	} {
		l := ComputeLayout(c.w, c.h, LayoutState{Chat: true, InputH: c.inputH})
		if l.Chat.H != c.chatH || l.Chat.W != c.w {
			t.Errorf("%dx%d input %d: chat %+v, want height %d", c.w, c.h, c.inputH, l.Chat, c.chatH)
		}
		if l.Rule.Y != l.Chat.Y+l.Chat.H || l.Input.Y != l.Rule.Y+1 || l.Input.Y+l.Input.H != l.Help.Y {
			t.Errorf("%dx%d: regions overlap or leave gaps: %+v", c.w, c.h, l)
		}
		if !l.List.Empty() || !l.Right.Empty() {
			t.Errorf("%dx%d: the catalog panes are placed in chat mode", c.w, c.h)
		}
	}
}
