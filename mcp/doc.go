// Package mcp is howl's side of the Model Context Protocol: configuration,
// the runtime that owns one connection per server, the unified catalog of
// tools, resources, resource templates and prompts, and the search and
// describe functions that the model's meta-functions, the headless verbs
// and the TUI all share. It imports no UI code.
//
// mcp-go parses results strictly (one unknown content block fails a whole
// page), so howl keeps the raw JSON-RPC result of every request (see the
// transport taps in conn.go) and parses it item by item: a malformed item
// fails alone.
package mcp
