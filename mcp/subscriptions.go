package mcp

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// More events a Runtime emits.
const (
	// EventResourceUpdated: a subscribed resource changed (URI set).
	EventResourceUpdated EventKind = "resource-updated"
	// EventCatalogChanged: after a list_changed, the catalog was listed
	// again (Added and Removed hold catalog keys, "{kind}:{id}").
	EventCatalogChanged EventKind = "catalog-changed"
)

// CatalogRefreshDelay is how long the runtime waits after a list_changed
// notification before listing again, so a burst costs one listing.
const CatalogRefreshDelay = 200 * time.Millisecond

// CatalogRefreshMaxWait bounds how long a burst of list_changed can put
// the listing off: a server notifying every 199 ms, each notification
// restarting the wait, would otherwise never be listed again.
const CatalogRefreshMaxWait = 2 * time.Second

// CatalogRefreshGap is the least time between the end of a server's
// refresh and the start of its next: a server notifying every 250 ms
// (just past CatalogRefreshDelay) would otherwise have its whole catalog
// listed four times a second, up to MaxCatalogBytes a kind each time.
const CatalogRefreshGap = time.Second

// CatalogChange is what a refresh after list_changed found.
type CatalogChange struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Listing is the catalog the change was found in, for a pane to show
	// as it is: asked for again, it was often listed twice, since a
	// list_changed during the refresh keeps it out of the cache.
	Listing *Catalog `json:"-"`
}

// subscriptionBook is one connection's resource subscriptions.
type subscriptionBook struct {
	// relisten serializes relisten: two streams opened at once (the one a
	// server gets when it is ready, and a Subscribe's) would race, and the
	// later-started one, whatever its filter, would win.
	relisten sync.Mutex
	mu       sync.Mutex
	uris     map[string]map[string]bool // server -> uri set
	listen   map[string]listenStream    // server -> its modern listen stream
	// refreshes is each server's catalog refresh after list_changed.
	refreshes map[string]*refreshState
	// acked is signalled when a server acknowledges a listen stream.
	acked map[string]chan struct{}
	// stopped is set by stopListens (Close): no stream may open after it.
	stopped bool
}

// refreshState is one server's catalog refresh: the burst of
// list_changed it waits out, and whether a listing is under way. A
// server's refreshes never overlap: a slow listing that began first could
// otherwise end last and report the older catalog, so a burst during a
// listing schedules exactly one more refresh, after it. A server that is
// removed loses its state (forgetRefresh); a refresh still listing for it
// then finds the state gone and writes nothing back.
type refreshState struct {
	timer *time.Timer
	// seq numbers the armed timer: one stopped too late to keep its
	// function from running finds seq moved on, and does nothing.
	seq int
	// before is the catalog the first list_changed of a burst dropped:
	// the refresh diffs against it, so a burst reports every item it
	// added, not only the last notification's.
	before *Catalog
	// burst is when the pending burst began (zero: none; a listing under
	// way clears it, so one set while it runs asks for one more refresh
	// after it), refreshed when the last refresh ended
	// (CatalogRefreshMaxWait, CatalogRefreshGap).
	burst, refreshed time.Time
	running          bool // a listing is under way
}

// listenAckWait bounds how long relisten waits for a stream's
// acknowledgement before it goes on.
const listenAckWait = 2 * time.Second

// listenAcknowledged notes a server's notifications/subscriptions/acknowledged.
func (r *Runtime) listenAcknowledged(server string) {
	r.subs.mu.Lock()
	ch := r.subs.acked[server]
	r.subs.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Subscribe asks server to report changes to the resource at uri: a
// resources/subscribe on 2025-11-25 connections, a subscriptions/listen
// stream naming it on 2026-07-28 ones. Changes arrive as EventResourceUpdated.
func (r *Runtime) Subscribe(ctx context.Context, server, uri string) error {
	conn, err := r.Conn(server)
	if err != nil {
		return err
	}
	if !conn.features.Subscribe && !mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		return fmt.Errorf("server %s does not offer resource subscriptions (no resources.subscribe in its handshake)", server)
	}
	if !mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		//lint:ignore SA1019 legacy connections only, where resources/subscribe exists (Client.Listen is the modern way, below)
		if err := conn.client.Subscribe(ctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: uri}}); err != nil {
			return &ServerError{Server: server, Method: "resources/subscribe", Err: err}
		}
	}
	r.subs.mu.Lock()
	if r.subs.uris == nil {
		r.subs.uris = map[string]map[string]bool{}
	}
	if r.subs.uris[server] == nil {
		r.subs.uris[server] = map[string]bool{}
	}
	r.subs.uris[server][uri] = true
	r.subs.mu.Unlock()
	return r.relisten(conn, server)
}

// resubscribeTimeout bounds each resources/subscribe sent again after a
// reconnect.
const resubscribeTimeout = 5 * time.Second

// resubscribe asks a (re)connected 2025-11-25 server again for the
// resources subscribed on the connection it replaces: a subscription lasts
// until the person ends it, and a new connection starts with none. (A
// 2026-07-28 connection's listen stream names them when it opens.) Best
// effort: a refusal is reported on the server's log, the rest still go.
func (r *Runtime) resubscribe(server string, conn *Conn) {
	if mcpgo.IsModernProtocol(conn.ProtocolVersion()) || !conn.features.Subscribe {
		return
	}
	for _, uri := range r.Subscriptions(server) {
		ctx, cancel := context.WithTimeout(r.lifetime, resubscribeTimeout)
		//lint:ignore SA1019 legacy connections only, where resources/subscribe exists
		err := conn.client.Subscribe(ctx, mcpgo.SubscribeRequest{Params: mcpgo.SubscribeParams{URI: uri}})
		cancel()
		if err != nil {
			r.emit(Event{Kind: EventStderr, Server: server, Line: "howl: subscribing again to " + uri + " after the reconnect: " + err.Error()})
		}
	}
}

// Unsubscribe stops reports for uri.
func (r *Runtime) Unsubscribe(ctx context.Context, server, uri string) error {
	conn, err := r.Conn(server)
	if err != nil {
		return err
	}
	if !mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		//lint:ignore SA1019 legacy connections only, where resources/unsubscribe exists
		if err := conn.client.Unsubscribe(ctx, mcpgo.UnsubscribeRequest{Params: mcpgo.UnsubscribeParams{URI: uri}}); err != nil {
			return &ServerError{Server: server, Method: "resources/unsubscribe", Err: err}
		}
	}
	r.subs.mu.Lock()
	delete(r.subs.uris[server], uri)
	r.subs.mu.Unlock()
	return r.relisten(conn, server)
}

// Subscriptions lists the URIs subscribed on server, sorted.
func (r *Runtime) Subscriptions(server string) []string {
	r.subs.mu.Lock()
	defer r.subs.mu.Unlock()
	var out []string
	for u := range r.subs.uris[server] {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// forgetSubscriptions drops what the runtime remembers of a server a
// reload removed: a server added later under its name starts with no
// subscriptions of the old one's.
func (r *Runtime) forgetSubscriptions(server string) {
	r.subs.mu.Lock()
	defer r.subs.mu.Unlock()
	delete(r.subs.uris, server)
	r.forgetRefreshLocked(server)
}

// forgetRefresh drops server's pending catalog refresh (its connection
// was stopped: the catalog the burst was about is gone with it).
func (r *Runtime) forgetRefresh(server string) {
	r.subs.mu.Lock()
	defer r.subs.mu.Unlock()
	r.forgetRefreshLocked(server)
}

func (r *Runtime) forgetRefreshLocked(server string) {
	if st := r.subs.refreshes[server]; st != nil {
		if st.timer != nil {
			st.timer.Stop()
		}
		delete(r.subs.refreshes, server)
	}
}

// relisten (modern connections only) replaces the subscriptions/listen
// stream with one naming the current subscriptions. The stream ends when
// the connection or the runtime closes.
func (r *Runtime) relisten(conn *Conn, server string) error {
	if !mcpgo.IsModernProtocol(conn.ProtocolVersion()) {
		return nil
	}
	r.subs.relisten.Lock()
	defer r.subs.relisten.Unlock()
	// The stream names howl's own record of the subscriptions, not
	// mcp-go's pending filter: mcp-go's Listen overwrites that filter from
	// its goroutine when a stream opens, so a Subscribe made while the
	// first stream was opening was lost, and the new stream never asked.
	var filter mcpgo.SubscriptionFilter
	filter.ResourceSubscriptions = r.Subscriptions(server)
	// A 2026-07-28 server sends list_changed only to a stream that asks
	// for it, so the stream always does, for what the server can change.
	filter.ToolsListChanged, filter.PromptsListChanged, filter.ResourcesListChanged = listChangedKinds(conn)
	r.subs.mu.Lock()
	if r.subs.stopped {
		r.subs.mu.Unlock()
		return nil
	}
	if r.subs.listen == nil {
		r.subs.listen = map[string]listenStream{}
	}
	old, had := r.subs.listen[server]
	if had && old.conn == conn && reflect.DeepEqual(old.filter, filter) {
		r.subs.mu.Unlock()
		return nil // the stream asks for this already: replacing it only races the server
	}
	delete(r.subs.listen, server)
	r.subs.mu.Unlock()
	if had {
		old.stop()
	}
	if filter.IsEmpty() {
		return nil
	}
	ack := make(chan struct{}, 1)
	r.subs.mu.Lock()
	if r.subs.acked == nil {
		r.subs.acked = map[string]chan struct{}{}
	}
	r.subs.acked[server] = ack
	r.subs.mu.Unlock()
	stop, err := conn.client.ListenAsync(r.lifetime, filter, func(err error) {
		r.emit(Event{Kind: EventStderr, Server: server, Line: "howl: subscriptions/listen ended: " + err.Error()})
	})
	if err != nil {
		return &ServerError{Server: server, Method: "subscriptions/listen", Err: err}
	}
	r.subs.mu.Lock()
	if r.subs.stopped { // Close ran while the stream opened: nobody else will end it
		r.subs.mu.Unlock()
		stop()
		return nil
	}
	r.subs.listen[server] = listenStream{stop: stop, conn: conn, filter: filter}
	r.subs.mu.Unlock()
	// Wait for the server to establish the stream: replacing one it has
	// not started yet races its cancellation against its start, and a
	// server can lose that race (keep the old filter, never ack the new).
	t := time.NewTimer(listenAckWait)
	defer t.Stop()
	select {
	case <-ack:
	case <-t.C:
	case <-r.lifetime.Done():
	}
	return nil
}

// listenStream is one server's open subscriptions/listen stream.
type listenStream struct {
	stop   func()
	conn   *Conn
	filter mcpgo.SubscriptionFilter
}

// listChangedKinds says which list_changed notifications a server can
// send: the kinds whose capability says listChanged (all three when the
// handshake told nothing).
func listChangedKinds(conn *Conn) (tools, prompts, resources bool) {
	if conn.init == nil {
		return true, true, true
	}
	caps := conn.init.Capabilities
	tools = caps.Tools != nil && caps.Tools.ListChanged
	prompts = caps.Prompts != nil && caps.Prompts.ListChanged
	resources = caps.Resources != nil && caps.Resources.ListChanged
	return tools, prompts, resources
}

// stopListens ends every modern listen stream (on Close).
func (r *Runtime) stopListens() {
	r.subs.mu.Lock()
	r.subs.stopped = true
	stops := r.subs.listen
	r.subs.listen = nil
	refreshes := r.subs.refreshes
	r.subs.refreshes = nil
	r.subs.mu.Unlock()
	for _, st := range refreshes {
		if st.timer != nil {
			st.timer.Stop()
		}
	}
	for _, s := range stops {
		s.stop()
	}
}

// refreshWait is how long a list_changed at now waits for its listing:
// CatalogRefreshDelay, but no later than CatalogRefreshMaxWait after the
// burst's first notification (first), and no sooner than
// CatalogRefreshGap after the last refresh ended (last; zero when none).
func refreshWait(now, first, last time.Time) time.Duration {
	due := now.Add(CatalogRefreshDelay)
	if limit := first.Add(CatalogRefreshMaxWait); due.After(limit) {
		due = limit
	}
	if !last.IsZero() && due.Before(last.Add(CatalogRefreshGap)) {
		due = last.Add(CatalogRefreshGap)
	}
	return max(due.Sub(now), 0)
}

// scheduleRefresh lists server's catalog again CatalogRefreshDelay after
// the last list_changed (see refreshWait for the bounds of a burst), and
// emits EventCatalogChanged with the difference. A list_changed during a
// listing schedules one more refresh, once that listing ends.
// old is the catalog the notification dropped (nil when none was cached).
func (r *Runtime) scheduleRefresh(server string, old *Catalog) {
	r.subs.mu.Lock()
	defer r.subs.mu.Unlock()
	if r.subs.stopped {
		return // Close stopped the timers; a new one would outlive them
	}
	if r.subs.refreshes == nil {
		r.subs.refreshes = map[string]*refreshState{}
	}
	st := r.subs.refreshes[server]
	if st == nil {
		st = &refreshState{}
		r.subs.refreshes[server] = st
	}
	if st.before == nil {
		st.before = old
	}
	now := time.Now()
	if st.burst.IsZero() {
		st.burst = now
	}
	if st.running {
		return // refreshDone arms the timer for the burst
	}
	r.armRefresh(server, st, now)
}

// armRefresh (r.subs.mu held) sets st's timer for the burst under way.
func (r *Runtime) armRefresh(server string, st *refreshState, now time.Time) {
	if st.timer != nil {
		st.timer.Stop()
	}
	st.seq++
	seq := st.seq
	st.timer = time.AfterFunc(refreshWait(now, st.burst, st.refreshed), func() { r.refreshCatalog(server, st, seq) })
}

// refreshCatalog is a refresh's timer firing: it lists server's catalog
// and reports the difference, unless the timer was replaced or the server
// forgotten meanwhile.
func (r *Runtime) refreshCatalog(server string, st *refreshState, seq int) {
	r.subs.mu.Lock()
	if r.subs.stopped || r.subs.refreshes[server] != st || st.seq != seq || st.running {
		r.subs.mu.Unlock()
		return
	}
	old := st.before
	st.before, st.burst, st.timer, st.running = nil, time.Time{}, nil, true
	r.subs.mu.Unlock()
	var cat *Catalog
	defer func() { r.refreshDone(server, st, cat) }()
	r.mu.Lock()
	closed := r.closed
	if !closed {
		r.wg.Add(1)
	}
	r.mu.Unlock()
	if closed {
		return
	}
	defer r.wg.Done()
	ctx, cancel := context.WithTimeout(r.lifetime, 30*time.Second)
	defer cancel()
	// A listing since the drop is fresh (catGen keeps older ones out).
	listed, err := r.Catalog(ctx, server, false)
	if err != nil {
		return
	}
	r.subs.mu.Lock()
	gone := r.subs.refreshes[server] != st
	r.subs.mu.Unlock()
	if gone {
		return // removed while it listed: nothing of it is reported
	}
	cat = listed
	change := diffCatalogs(old, cat)
	change.Listing = cat
	r.emit(Event{Kind: EventCatalogChanged, Server: server, Change: &change})
}

// refreshDone ends a refresh: it starts the gap to the next, and arms the
// one a list_changed during the listing asked for, diffing against the
// catalog just reported (the notification found none cached to drop).
// A server forgotten meanwhile stays forgotten.
func (r *Runtime) refreshDone(server string, st *refreshState, cat *Catalog) {
	r.subs.mu.Lock()
	defer r.subs.mu.Unlock()
	st.running = false
	if r.subs.stopped || r.subs.refreshes[server] != st {
		return
	}
	now := time.Now()
	st.refreshed = now
	if !st.burst.IsZero() { // a list_changed came during the listing
		if st.before == nil {
			st.before = cat
		}
		r.armRefresh(server, st, now)
	}
}

func diffCatalogs(old, cur *Catalog) CatalogChange {
	before := map[string]bool{}
	if old != nil {
		for _, it := range old.Items {
			before[it.Key()] = true
		}
	}
	var ch CatalogChange
	now := map[string]bool{}
	for _, it := range cur.Items {
		k := it.Key()
		now[k] = true
		if old != nil && !before[k] {
			ch.Added = append(ch.Added, k)
		}
	}
	for k := range before {
		if !now[k] {
			ch.Removed = append(ch.Removed, k)
		}
	}
	sort.Strings(ch.Added)
	sort.Strings(ch.Removed)
	return ch
}
