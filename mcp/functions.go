package mcp

import "slices"

// MetaCall is a meta-function name taken apart: which function, which server.
type MetaCall struct {
	// Prefix is one of PrefixSearch, PrefixDescribe, PrefixInvoke,
	// PrefixRead, PrefixPrompt.
	Prefix string
	// Server is the configured server name the suffix (or, for the shared
	// set, the "server" argument) maps to; "" for an mcp_search of every
	// server.
	Server string
}

// ReadOnly reports whether the function only looks (search, describe,
// read, prompt) rather than calling a tool.
func (c MetaCall) ReadOnly() bool { return c.Prefix != PrefixInvoke }

// ParseMetaCall maps a function name a model sent, with its arguments as
// ParseMetaArgs read them, to its meta-function and server: by prefix
// (strings.CutPrefix, never Replace) and the runtime's suffix table, or,
// for the shared set, by the "server" argument, which must name an
// enabled server exactly. A shared mcp_search without a server searches
// every server (Server ""). It reports false for a name or server that
// dispatch would refuse.
func (r *Runtime) ParseMetaCall(name string, args MetaArgs) (MetaCall, bool) {
	m, suffix, ok := matchMeta(name)
	if !ok {
		return MetaCall{}, false
	}
	if suffix == "" {
		if args.Server == "" {
			return MetaCall{Prefix: m.prefix}, m.prefix == PrefixSearch
		}
		return MetaCall{Prefix: m.prefix, Server: args.Server}, slices.Contains(r.Names(), args.Server)
	}
	server, found, _ := r.serverBySuffix(suffix)
	return MetaCall{Prefix: m.prefix, Server: server}, found
}
