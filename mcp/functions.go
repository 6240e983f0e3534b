package mcp

// MetaCall is a meta-function name taken apart: which function, which server.
type MetaCall struct {
	// Prefix is one of PrefixSearch, PrefixDescribe, PrefixInvoke,
	// PrefixRead, PrefixPrompt.
	Prefix string
	// Server is the configured server name the suffix maps to.
	Server string
}

// ReadOnly reports whether the function only looks (search, describe,
// read, prompt) rather than calling a tool.
func (c MetaCall) ReadOnly() bool { return c.Prefix != PrefixInvoke }

// ParseMetaCall maps a function name a model sent to its meta-function and
// server, by prefix (strings.CutPrefix, never Replace) and the runtime's
// suffix table.
func (r *Runtime) ParseMetaCall(name string) (MetaCall, bool) {
	m, suffix, ok := matchMeta(name)
	if !ok {
		return MetaCall{}, false
	}
	server, found := r.serverBySuffix(suffix)
	return MetaCall{Prefix: m.prefix, Server: server}, found
}
