package common

import (
	"fmt"
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// MaxSubscriptionsPerServer bounds the resources followed on one server at
// once: each costs the server a watch and howl a re-read per change, and a
// person follows a handful. It appears in the refusal's message.
const MaxSubscriptionsPerServer = 32

// Subscription is one resource the person follows: it lives until the
// person ends it (s in the viewer, d in the subscriptions dialog), whatever
// the viewer shows, or until howl quits.
type Subscription struct {
	Server, URI string
	// Updates counts the changes the server reported; Last is when the
	// latest came (zero: none yet), Since when the subscription began.
	Updates     int
	Last, Since time.Time
}

// Subscriptions are the live subscriptions of every server. Only Update
// changes them; the viewer and the subscriptions dialog draw from them.
type Subscriptions struct {
	list []*Subscription
}

// Get is the subscription to uri on server, or nil.
func (b *Subscriptions) Get(server, uri string) *Subscription {
	if b == nil {
		return nil
	}
	for _, s := range b.list {
		if s.Server == server && s.URI == uri {
			return s
		}
	}
	return nil
}

// List is every subscription, by server then URI.
func (b *Subscriptions) List() []Subscription {
	if b == nil {
		return nil
	}
	out := make([]Subscription, len(b.list))
	for i, s := range b.list {
		out[i] = *s
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].URI < out[j].URI
	})
	return out
}

// Count is how many subscriptions server has.
func (b *Subscriptions) Count(server string) int {
	n := 0
	for _, s := range b.list {
		if s.Server == server {
			n++
		}
	}
	return n
}

// Add records a subscription the server accepted (once).
func (b *Subscriptions) Add(server, uri string, now time.Time) *Subscription {
	if s := b.Get(server, uri); s != nil {
		return s
	}
	s := &Subscription{Server: server, URI: uri, Since: now}
	b.list = append(b.list, s)
	return s
}

// Remove forgets a subscription; it reports whether there was one.
func (b *Subscriptions) Remove(server, uri string) bool {
	for i, s := range b.list {
		if s.Server == server && s.URI == uri {
			b.list = append(b.list[:i], b.list[i+1:]...)
			return true
		}
	}
	return false
}

// Updated counts a change the server reported; it reports whether the
// resource is followed (a late change to an ended one is not counted).
func (b *Subscriptions) Updated(server, uri string, at time.Time) bool {
	s := b.Get(server, uri)
	if s == nil {
		return false
	}
	s.Updates++
	s.Last = at
	return true
}

// SubscribeMsg asks the root to start (On) or end following a resource:
// the viewer, the catalog and the subscriptions dialog send it, the root
// talks to the server and keeps the book.
type SubscribeMsg struct {
	Server, URI string
	On          bool
}

// RequestSubscribe returns the command that sends a SubscribeMsg.
func RequestSubscribe(server, uri string, on bool) tea.Cmd {
	return func() tea.Msg { return SubscribeMsg{Server: server, URI: uri, On: on} }
}

// SubscriptionStats is a subscription's updates and the time of the last
// one ("2 updates · last 14:03:10", "0 updates · last none yet"), as the
// subscriptions dialog and the detail pane show it.
func (c *Common) SubscriptionStats(s Subscription) string {
	n := fmt.Sprintf("%d updates", s.Updates)
	if s.Updates == 1 {
		n = "1 update"
	}
	last := "none yet"
	if !s.Last.IsZero() {
		t := s.Last
		if c.Location != nil {
			t = t.In(c.Location)
		}
		last = t.Format("15:04:05")
	}
	return n + " · last " + last
}
