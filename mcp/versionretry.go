package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A 2026-07-28 server refuses a request whose protocol version it does not
// take with -32022 and the versions it does (data.supported); the client
// picks one and sends the request again (SEP-2575). mcp-go retries only
// when the version it picks differs from the one it sent, so a server that
// refused a version while listing it (a version check that failed on
// something else, or a server that asks every client to retry once) made
// it fall back to initialize, which a 2026-07-28 server does not speak.
// howl's transport sends such a request once more, with a new JSON-RPC id.

var versionRetries atomic.Int64

// versionRetry returns the request to send again after resp, when resp
// refused the request's own version while naming it as supported.
func versionRetry(r transport.JSONRPCRequest, resp *transport.JSONRPCResponse) (transport.JSONRPCRequest, bool) {
	if resp == nil || resp.Error == nil || resp.Error.Code != mcpgo.UNSUPPORTED_PROTOCOL_VERSION {
		return r, false
	}
	var data mcpgo.UnsupportedProtocolVersionData
	if b, err := json.Marshal(resp.Error.Data); err != nil || json.Unmarshal(b, &data) != nil {
		return r, false
	}
	sent := requestVersion(r)
	if sent == "" || !slices.Contains(data.Supported, sent) {
		return r, false
	}
	r.ID = mcpgo.NewRequestId(fmt.Sprintf("%v.retry%d", r.ID.Value(), versionRetries.Add(1)))
	return r, true
}

// requestVersion is the protocol version a request declares in its _meta.
func requestVersion(r transport.JSONRPCRequest) string {
	b, err := json.Marshal(r.Params)
	if err != nil {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(b, &p) == nil {
		_ = json.Unmarshal(p.Meta[mcpgo.MetaKeyProtocolVersion], &v)
	}
	return v
}
