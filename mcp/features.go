package mcp

import mcpgo "github.com/mark3labs/mcp-go/mcp"

// Features is what a server advertised in its live handshake. They gate the
// meta-functions a model is offered and the kinds howl lists.
type Features struct {
	Name        string `json:"name"`
	Tools       bool   `json:"tools"`
	Resources   bool   `json:"resources"`
	Prompts     bool   `json:"prompts"`
	Completions bool   `json:"completions"`
	Logging     bool   `json:"logging"`
	// Subscribe: the server accepts resources/subscribe.
	Subscribe bool `json:"subscribe"`
	// Skills: the server declares the skills extension (SEP-2640).
	Skills bool `json:"skills,omitempty"`
	// PeerInfoKnown is false when the handshake told nothing about the
	// server (no server info and no capabilities). Such a server counts as
	// tools-capable: a handshake hiccup must not strip working tools.
	PeerInfoKnown bool `json:"peer_info_known"`
}

// ToolsCapable reports whether tools should be listed and invoked: the
// server advertises tools, or its peer info is unknown (fail-open).
func (f Features) ToolsCapable() bool { return f.Tools || !f.PeerInfoKnown }

func featuresFrom(name string, res *mcpgo.InitializeResult) Features {
	f := Features{Name: name}
	if res == nil {
		return f
	}
	caps := res.Capabilities
	f.Tools = caps.Tools != nil
	f.Resources = caps.Resources != nil
	f.Subscribe = caps.Resources != nil && caps.Resources.Subscribe
	f.Prompts = caps.Prompts != nil
	f.Completions = caps.Completions != nil
	f.Logging = caps.Logging != nil
	_, f.Skills = caps.Extensions[SkillsExtension]
	f.PeerInfoKnown = res.ServerInfo.Name != "" || f.Tools || f.Resources || f.Prompts ||
		f.Completions || f.Logging || caps.Experimental != nil || caps.Extensions != nil
	return f
}
