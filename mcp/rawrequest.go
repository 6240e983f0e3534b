package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// requestMeta is the 2026-07-28 _meta every request of a connection
// carries (SEP-2575): its protocol version, howl's identity and the
// capabilities it declared. mcp-go adds it to the requests it has methods
// for; howl adds it to the ones it sends itself (an extension's methods).
func requestMeta(c *Conn, o dialOptions) map[string]any {
	if !mcpgo.IsModernProtocol(c.client.ProtocolVersion()) {
		return nil
	}
	caps := c.client.GetClientCapabilities()
	if o.roots != nil && caps.Roots == nil {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}
	}
	if o.sample != nil && caps.Sampling == nil {
		caps.Sampling = &mcpgo.SamplingCapability{}
	}
	return map[string]any{
		mcpgo.MetaKeyProtocolVersion:    c.client.ProtocolVersion(),
		mcpgo.MetaKeyClientInfo:         o.clientInfo,
		mcpgo.MetaKeyClientCapabilities: caps,
	}
}

var rawRequestIDs atomic.Int64

// request sends one request mcp-go has no method for and returns its raw
// result: with the connection's _meta and, over HTTP, the Mcp-Method
// header (the transport adds the version header). Its id is a string, so
// it cannot collide with mcp-go's numbered ones.
func (c *Conn) request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	return c.rawResult(ctx, method, func(ctx context.Context) error {
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		if c.meta != nil {
			p["_meta"] = c.meta
		}
		h := http.Header{}
		h.Set(mcpgo.HeaderMethod, method)
		resp, err := c.client.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcpgo.JSONRPC_VERSION,
			ID:      mcpgo.NewRequestId(fmt.Sprintf("howl-%d", rawRequestIDs.Add(1))),
			Method:  method, Params: p, Header: h,
		})
		if err != nil {
			return err
		}
		if resp.Error != nil {
			return resp.Error.AsError()
		}
		return nil
	})
}
