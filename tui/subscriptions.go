package tui

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Resource subscriptions are the person's: the root keeps them
// (common.Subscriptions) and talks to the servers; the viewer, the catalog
// and the subscriptions dialog (U) ask with a common.SubscribeMsg. One
// lives until the person ends it, whatever the viewer shows.

// unsubscribeTimeout bounds the unsubscribe sent when the person ends a
// subscription: nobody waits for it, but it must end.
const unsubscribeTimeout = 5 * time.Second

// subscribedMsg is a server's answer to a subscribe (on) or unsubscribe.
type subscribedMsg struct {
	server, uri string
	on          bool
	err         error
}

// handleSubscribe starts or ends following a resource.
func (m *Model) handleSubscribe(msg common.SubscribeMsg) tea.Cmd {
	rt, ctx, server, uri := m.com.RT, m.com.Ctx, msg.Server, msg.URI
	shown := render.SanitizeLine(uri)
	if !msg.On {
		if !m.com.Subs.Remove(server, uri) {
			return common.ReportInfo("not subscribed to " + shown)
		}
		ctx = context.WithoutCancel(ctx)
		return tea.Batch(common.ReportInfo("unsubscribed from "+shown), common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, unsubscribeTimeout)
			defer cancel()
			return subscribedMsg{server: server, uri: uri, err: rt.Unsubscribe(ctx, server, uri)}
		}))
	}
	if m.com.Subs.Get(server, uri) != nil {
		return common.ReportInfo("already subscribed to " + shown + ": " + m.com.Keys.Subscriptions.Help().Key + " lists subscriptions")
	}
	if n := m.com.Subs.Count(server); n >= common.MaxSubscriptionsPerServer {
		// Short enough for the status line of a 100-column terminal.
		return common.ReportWarn(fmt.Sprintf("%s follows %d resources, MaxSubscriptionsPerServer = %d: %s lists them, %s ends one",
			render.SanitizeLine(server), n, common.MaxSubscriptionsPerServer, m.com.Keys.Subscriptions.Help().Key, m.com.Keys.EndSubscription.Help().Key))
	}
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		return subscribedMsg{server: server, uri: uri, on: true, err: rt.Subscribe(ctx, server, uri)}
	})
}

// handleSubscribed records a subscription the server accepted.
func (m *Model) handleSubscribed(msg subscribedMsg) tea.Cmd {
	shown := render.SanitizeLine(msg.uri)
	switch {
	case !msg.on && msg.err != nil:
		return common.ReportWarn(fmt.Sprintf("ending the subscription to %s: %v (howl no longer follows it)", shown, render.SanitizeLine(msg.err.Error())))
	case !msg.on:
		return nil
	case msg.err != nil:
		return common.ReportError(fmt.Errorf("subscribing to %s: %w", shown, msg.err))
	}
	m.com.Subs.Add(msg.server, msg.uri, m.com.Now())
	return common.ReportInfo("subscribed to " + shown + ": changes re-read it · " + m.com.Keys.Subscriptions.Help().Key + " lists subscriptions")
}

// subscribeSelected follows (or stops following) the catalog's chosen
// resource.
func (m *Model) subscribeSelected() tea.Cmd {
	it := m.selectedResource()
	if it == nil {
		return common.ReportWarn("only a resource can be subscribed to: choose one on the resources tab")
	}
	return common.RequestSubscribe(it.Server, it.URI, m.com.Subs.Get(it.Server, it.URI) == nil)
}

// selectedResource is the catalog's chosen item when it is a resource.
func (m *Model) selectedResource() *mcp.CatalogItem {
	e := m.catalog.Selected()
	if e == nil {
		return nil
	}
	it := e.Item()
	if it.Kind != mcp.KindResource || it.URI == "" {
		return nil
	}
	return &it
}
