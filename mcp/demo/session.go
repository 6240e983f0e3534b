package demo

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// stdioSession is the one client session of one ServeStdio call.
//
// mcp-go's own StdioServer keeps a single package-level session for the whole
// process: every stdio server in a process shares its notification channel,
// initialized flag, log level and writer, so two demo servers in one test
// binary would read each other's progress notifications. Each ServeStdio call
// here has its own session instead.
type stdioSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	level         atomic.Value // mcp.LoggingLevel
	clientInfo    atomic.Value // mcp.Implementation
	clientCaps    atomic.Value // mcp.ClientCapabilities
	version       atomic.Value // string
	asker         asker        // the session's own requests to the client

	mu sync.Mutex
	// subs counts, per URI, what subscribed it: a resources/subscribe, or
	// each open subscriptions/listen stream naming it. A client replacing
	// its stream opens the new one before the old one's clean-up runs, and
	// that clean-up must not take away a URI the new stream also names.
	subs map[string]int
	// filters are the open subscriptions/listen streams' filters, oldest
	// first; the newest is in effect. mcp-go sets a stream's filter when
	// it opens and an empty one when it ends, without saying which stream
	// ended: a replaced stream is the oldest, so an ending removes that one.
	// (A stream asking for nothing also sets an empty filter and can
	// remove an older stream's early; howl never opens one.)
	filters []mcp.SubscriptionFilter
}

// notificationBuffer is how many notifications may wait for the writer; when
// it is full mcp-go drops new ones rather than block a handler.
const notificationBuffer = 1024

// DefaultLogLevel is the level a stdio session starts at: the slow tool's
// info lines reach a client that never sent logging/setLevel.
const DefaultLogLevel = mcp.LoggingLevelInfo

var sessionCounter atomic.Int64

func newStdioSession() *stdioSession {
	s := &stdioSession{
		id:            "demo-stdio-" + strconv.FormatInt(sessionCounter.Add(1), 10),
		notifications: make(chan mcp.JSONRPCNotification, notificationBuffer),
		subs:          map[string]int{},
		asker:         asker{pending: map[string]chan askResponse{}},
	}
	s.level.Store(DefaultLogLevel)
	return s
}

var (
	_ server.ClientSession                    = (*stdioSession)(nil)
	_ server.SessionWithLogging               = (*stdioSession)(nil)
	_ server.SessionWithClientInfo            = (*stdioSession)(nil)
	_ server.SessionWithProtocolVersion       = (*stdioSession)(nil)
	_ server.SessionWithResourceSubscriptions = (*stdioSession)(nil)
	_ server.SessionWithSubscriptionFilter    = (*stdioSession)(nil)
)

// SessionID implements server.ClientSession.
func (s *stdioSession) SessionID() string { return s.id }

// NotificationChannel implements server.ClientSession.
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

// Initialize implements server.ClientSession.
func (s *stdioSession) Initialize() { s.initialized.Store(true) }

// Initialized implements server.ClientSession.
func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

// SetLogLevel implements server.SessionWithLogging.
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }

// GetLogLevel implements server.SessionWithLogging.
func (s *stdioSession) GetLogLevel() mcp.LoggingLevel { return s.level.Load().(mcp.LoggingLevel) }

// GetClientInfo implements server.SessionWithClientInfo.
func (s *stdioSession) GetClientInfo() mcp.Implementation {
	v, _ := s.clientInfo.Load().(mcp.Implementation)
	return v
}

// SetClientInfo implements server.SessionWithClientInfo.
func (s *stdioSession) SetClientInfo(info mcp.Implementation) { s.clientInfo.Store(info) }

// GetClientCapabilities implements server.SessionWithClientInfo.
func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	v, _ := s.clientCaps.Load().(mcp.ClientCapabilities)
	return v
}

// SetClientCapabilities implements server.SessionWithClientInfo.
func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) { s.clientCaps.Store(caps) }

// ProtocolVersion implements server.SessionWithProtocolVersion.
func (s *stdioSession) ProtocolVersion() string {
	v, _ := s.version.Load().(string)
	return v
}

// SetProtocolVersion records the version negotiated by initialize.
func (s *stdioSession) SetProtocolVersion(v string) { s.version.Store(v) }

// SubscribeToResource implements server.SessionWithResourceSubscriptions.
func (s *stdioSession) SubscribeToResource(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[uri]++
}

// UnsubscribeFromResource implements server.SessionWithResourceSubscriptions.
func (s *stdioSession) UnsubscribeFromResource(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[uri] > 1 {
		s.subs[uri]--
		return
	}
	delete(s.subs, uri)
}

// SubscribedResources implements server.SessionWithResourceSubscriptions.
func (s *stdioSession) SubscribedResources() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.subs))
	for uri := range s.subs {
		out = append(out, uri)
	}
	slices.Sort(out)
	return out
}

// IsSubscribedToResource implements server.SessionWithResourceSubscriptions.
func (s *stdioSession) IsSubscribedToResource(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[uri] > 0
}

// SetSubscriptionFilter implements server.SessionWithSubscriptionFilter.
func (s *stdioSession) SetSubscriptionFilter(f mcp.SubscriptionFilter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.IsEmpty() {
		if len(s.filters) > 0 {
			s.filters = s.filters[1:]
		}
		return
	}
	s.filters = append(s.filters, f)
}

// SubscriptionFilter implements server.SessionWithSubscriptionFilter.
func (s *stdioSession) SubscriptionFilter() (mcp.SubscriptionFilter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.filters) == 0 {
		return mcp.SubscriptionFilter{}, false
	}
	return s.filters[len(s.filters)-1], true
}
