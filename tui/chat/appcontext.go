package chat

import (
	"fmt"

	"github.com/howl-mcp/howl/tui/common"
)

// An open MCP App may tell the model its state (ui/update-model-context).
// The chat keeps each app's latest, replaced by its next update, and
// attaches what it holds to the person's next turn as a chip the person
// can open, then forgets it: the conversation holds it from then on. A
// closed app's context is dropped unsent. Each is at most
// apphost.MaxModelContextBytes, and there is one per open app.

// appContext is one app's latest model context, waiting for a turn.
type appContext struct {
	id          common.RequestID
	server, uri string
	text        string
}

// SetAppContext keeps text as the latest model context of the app id
// (server's interface uri), replacing its last; "" clears it.
func (c *Pane) SetAppContext(id common.RequestID, server, uri, text string) {
	c.DropAppContext(id)
	if text != "" {
		c.appCtx = append(c.appCtx, appContext{id: id, server: server, uri: uri, text: text})
	}
}

// DropAppContext forgets the app's context unsent (the app closed).
func (c *Pane) DropAppContext(id common.RequestID) {
	for i, a := range c.appCtx {
		if a.id == id {
			c.appCtx = append(c.appCtx[:i:i], c.appCtx[i+1:]...)
			return
		}
	}
}

// takeAppContexts hands the waiting contexts to a turn, oldest first.
func (c *Pane) takeAppContexts() []MentionAttachment {
	out := make([]MentionAttachment, 0, len(c.appCtx))
	for _, a := range c.appCtx {
		out = append(out, MentionAttachment{name: "app " + a.uri + " context", body: a.text,
			header: fmt.Sprintf("[context from the MCP App %s of server %s (ui/update-model-context): the app's state, sent by the app, not words of the person]", a.uri, a.server)})
	}
	c.appCtx = nil
	return out
}
