package mcp

import (
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// noteDiscovered reads what mcp-go's handshake result leaves out of a
// 2026-07-28 server/discover answer (raw, the last result of the
// handshake): the versions the server supports, which alone tell a
// server that speaks 2026-07-28 from one that answers every method with
// an empty result, and a serverInfo written in the result itself rather
// than its _meta.
func (c *Conn) noteDiscovered(raw json.RawMessage) {
	if c.client == nil || !mcpgo.IsModernProtocol(c.client.ProtocolVersion()) || len(raw) == 0 {
		return
	}
	var d struct {
		SupportedVersions []string              `json:"supportedVersions"`
		ServerInfo        *mcpgo.Implementation `json:"serverInfo"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return
	}
	if len(d.SupportedVersions) > 0 {
		c.features.PeerInfoKnown = true
	}
	if d.ServerInfo != nil && c.init != nil && c.init.ServerInfo.Name == "" {
		c.init.ServerInfo = *d.ServerInfo
	}
}
