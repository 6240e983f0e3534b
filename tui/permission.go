package tui

import (
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/dialog"
)

// openPermission opens the dialog for a request that arrived with a turn's
// events.
func (m *Model) openPermission(req *chat.PermissionRequest) {
	m.dialogs.Push(dialog.NewPermission(m.com, req, m.chat.CanPersist()))
}
