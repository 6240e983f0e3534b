package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// tickLog is a status bar whose clock the test moves and whose ticks it
// delivers by hand.
type tickLog struct {
	now   time.Time
	ticks []clearInfoMsg
	bar   statusBar
}

func newTickLog() *tickLog {
	l := &tickLog{now: time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)}
	l.bar.com = &common.Common{
		Clock: func() time.Time { return l.now },
		Tick: func(_ time.Duration, msg tea.Msg) tea.Cmd {
			l.ticks = append(l.ticks, msg.(clearInfoMsg))
			return func() tea.Msg { return msg }
		},
	}
	return l
}

// fire delivers the i-th tick at its due time.
func (l *tickLog) fire(i int) {
	l.now = l.ticks[i].at
	l.bar.Clear(l.ticks[i])
}

// A flood of messages (a server's notifications, each one) waits on one
// tick, not one each, and the last message still shows for its whole
// time: the tick that comes early waits out the rest with one more.
func TestAFloodOfStatusMessagesKeepsOneTickWaiting(t *testing.T) {
	l := newTickLog()
	for i := range 10_000 {
		l.now = l.now.Add(100 * time.Microsecond)
		l.bar.Set(common.InfoMsg{Msg: "demo: file:///x was updated", TTL: common.DefaultInfoTTL})
		if len(l.ticks) != 1 {
			t.Fatalf("after %d messages, %d ticks are waiting, want 1", i+1, len(l.ticks))
		}
	}
	last := l.now
	l.fire(0)
	if l.bar.info == nil || len(l.ticks) != 2 {
		t.Fatalf("the first tick ended a message shown 1 s ago (or armed no other): info %v, %d ticks", l.bar.info, len(l.ticks))
	}
	l.fire(1)
	if l.bar.info != nil || !l.now.Equal(last.Add(common.DefaultInfoTTL)) {
		t.Errorf("the last message ended at %v, want %v after it came", l.now.Sub(last), common.DefaultInfoTTL)
	}
}

// A short message after a long one ends on its own time, and the long
// one's tick, left over, changes nothing when it comes.
func TestAShortStatusMessageAfterALongOneEndsOnItsOwnTime(t *testing.T) {
	l := newTickLog()
	l.bar.Set(common.InfoMsg{Msg: "config not reloaded", TTL: 20 * time.Second})
	l.bar.Set(common.InfoMsg{Msg: "reconnecting demo", TTL: common.DefaultInfoTTL})
	if len(l.ticks) != 2 {
		t.Fatalf("%d ticks, want the long message's and the short one's", len(l.ticks))
	}
	l.fire(1)
	if l.bar.info != nil {
		t.Errorf("the short message still shows after its %v", common.DefaultInfoTTL)
	}
	l.bar.Set(common.InfoMsg{Msg: "copied", TTL: common.DefaultInfoTTL})
	l.fire(0)
	if l.bar.info == nil || l.bar.info.Msg != "copied" {
		t.Errorf("the long message's leftover tick ended a newer message 4 s early: %v", l.bar.info)
	}
}
