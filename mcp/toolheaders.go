package mcp

import (
	"encoding/json"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Per-tool validity (SEP-2243): from 2026-07-28, a tool's parameters may
// carry x-mcp-header annotations, and over streamable HTTP their values
// travel as Mcp-Param-* headers too. A definition whose annotations break
// the rules (empty, not a header token, on a non-primitive, repeated)
// cannot be called correctly; such a tool is left out of the catalog with
// a warning naming it and why, and the server's other tools stay.

// mirrorsParamHeaders reports whether this connection sends tool
// parameters as headers: streamable HTTP at 2026-07-28 or later.
func (c *Conn) mirrorsParamHeaders() bool {
	if c.client == nil || !mcpgo.IsModernProtocol(c.client.ProtocolVersion()) {
		return false
	}
	_, ok := c.client.GetTransport().(*httpTap)
	return ok
}

// toolHeaderProblem says why a listed tool must be left out on this
// connection, or nil.
func (c *Conn) toolHeaderProblem(raw json.RawMessage) error {
	if !c.mirrorsParamHeaders() {
		return nil
	}
	var t struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if json.Unmarshal(raw, &t) != nil || len(t.InputSchema) == 0 {
		return nil
	}
	tool := mcpgo.Tool{Name: t.Name, RawInputSchema: t.InputSchema}
	if err := mcpgo.ValidateParamHeaderAnnotations(&tool); err != nil {
		return fmt.Errorf("tool %q left out: %v (an x-mcp-header annotation against SEP-2243: its headers could not be sent; the server must fix the definition)", t.Name, err)
	}
	return nil
}
