package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ToolsOff returns the names and globs of server's tools the person
// switched off (its entry's "disabledTools", or SetToolsOff since).
func (r *Runtime) ToolsOff(server string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.servers[server]; ok {
		return slices.Clone(s.cfg.DisabledTools)
	}
	return nil
}

// ToolOff reports whether the person switched server's tool off.
func (r *Runtime) ToolOff(server, tool string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.servers[server]
	return ok && ToolOff(s.cfg.DisabledTools, tool)
}

// SetToolsOff replaces the switched-off tools of server for this
// runtime, from the next meta-function call on (the config file is
// written separately: SwitchServerEntry).
func (r *Runtime) SetToolsOff(server string, off []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.servers[server]
	if !ok {
		return fmt.Errorf("no server named %q: configured servers are %s", server, strings.Join(r.order, ", "))
	}
	s.cfg.DisabledTools = slices.Clone(off)
	s.modelCat, s.modelCatOf = nil, nil
	return nil
}

// ModelCatalog is server's catalog as the model reaches it: without the
// tools the person switched off, and without the tools an MCP App's
// server keeps for its app (_meta.ui.visibility without "model": the
// extension says the host hides them from the model). Search and describe
// read it; with no tool hidden it is Catalog itself.
func (r *Runtime) ModelCatalog(ctx context.Context, server string) (*Catalog, error) {
	cat, err := r.Catalog(ctx, server, false)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.servers[server]
	if s == nil { // a reload removed it since Catalog: its switches are gone too
		return nil, r.unknown(server)
	}
	if s.modelCatOf == cat && s.modelCat != nil {
		return s.modelCat, nil
	}
	off := s.cfg.DisabledTools
	hidden := func(it CatalogItem) bool {
		return it.Kind == KindTool && (ToolOff(off, it.ID) || !ModelCallable(it))
	}
	visible := cat
	if slices.ContainsFunc(cat.Items, hidden) {
		visible = &Catalog{Server: cat.Server, Listed: cat.Listed, Warnings: cat.Warnings, Failed: cat.Failed}
		for _, it := range cat.Items {
			if !hidden(it) {
				visible.Items = append(visible.Items, it)
			}
		}
	}
	s.modelCat, s.modelCatOf = visible, cat
	return visible, nil
}

// Switch switches server name off or on (no tools: its "disabled"), or
// some of its tools (names or globs: its "disabledTools"): in this
// runtime at once, and in the config file the entry came from, whose
// path it returns (EditFileOf: written in place, a project file keeps
// its trust). An entry from no file (the demo, --url, --stdio) changes
// for this run only, and file is "". Switching a server on that was
// disabled when howl started starts it.
func (r *Runtime) Switch(name string, tools []string, off bool) (file string, err error) {
	r.mu.Lock()
	s, ok := r.servers[name]
	var sc ServerConfig
	if ok {
		sc = s.cfg
	}
	r.mu.Unlock()
	if !ok {
		return "", r.unknown(name)
	}
	if sc.File != "" {
		var before, after []byte
		_, err := EditFileOf(sc.File, sc.Origin, nil, func(old []byte) ([]byte, error) {
			out, err := SwitchServerEntry(sc.File, old, name, tools, off)
			before, after = old, out
			return out, err
		})
		if err != nil {
			return "", err
		}
		r.mu.Lock()
		wrote := r.wrote
		r.mu.Unlock()
		if wrote != nil {
			wrote(sc.File, before, after)
		}
	}
	start := false
	r.mu.Lock()
	if len(tools) > 0 {
		s.cfg.DisabledTools = switchTools(s.cfg.DisabledTools, tools, off)
		s.modelCat, s.modelCatOf = nil, nil
	} else {
		s.cfg.Disabled = off
		if !off && s.status.State == StateStopped && s.status.Reason == "disabled in config" {
			s.status.Reason, start = "", true
		}
	}
	r.mu.Unlock()
	if start {
		if err := r.start(name); err != nil {
			return sc.File, err
		}
	}
	return sc.File, nil
}
