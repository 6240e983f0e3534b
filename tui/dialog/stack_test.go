package dialog

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/tui/common"
)

// listStore answers each List with the next of lists.
type listStore struct {
	common.SessionStore
	mu    sync.Mutex
	lists [][]store.Session
}

func (s *listStore) List(context.Context, string, int) ([]store.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists[0]
	s.lists = s.lists[1:]
	return l, nil
}

// Two dialogs with a request each in flight, one over the other: each
// answer reaches its own dialog (found by owner, wherever it is in the
// stack), in whatever order the answers come; an answer to a dialog that
// closed reaches nobody.
func TestEachDialogOfTheStackGetsItsOwnAnswer(t *testing.T) {
	th := testTheme()
	st := &listStore{lists: [][]store.Session{
		{{ID: "a", Title: "asked by the lower dialog", Updated: time.Unix(0, 0)}},
		{{ID: "b", Title: "asked by the upper dialog", Updated: time.Unix(0, 0)}, {ID: "c", Title: "and another", Updated: time.Unix(0, 0)}},
	}}
	com := &common.Common{Ctx: context.Background(), Theme: th, Styles: th.Styles, Keys: common.DefaultKeyMap(), Store: st, Location: time.UTC}
	stack := NewStack(com)
	lower := NewSessions(com, nil)
	stack.Push(lower)
	first := lower.Open()() // the lower list, in flight
	upper := NewSessions(com, nil)
	stack.Push(upper)
	second := upper.Open()()
	for _, msg := range []tea.Msg{second, first} {
		r := msg.(common.Result)
		if d := stack.ByOwner(r.Owner); d != nil {
			d.HandleResult(r)
		}
	}
	render := func(d Dialog) string { return strings.Join(d.Render(100, 30), "\n") }
	if v := render(lower); !strings.Contains(v, "asked by the lower dialog") || strings.Contains(v, "upper") {
		t.Errorf("the lower dialog shows:\n%s", v)
	}
	if v := render(upper); !strings.Contains(v, "asked by the upper dialog") || !strings.Contains(v, "Sessions 2") {
		t.Errorf("the upper dialog shows:\n%s", v)
	}
	stack.Remove(lower)
	if stack.ByOwner(first.(common.Result).Owner) != nil {
		t.Error("a closed dialog's owner still reaches a dialog")
	}
}
