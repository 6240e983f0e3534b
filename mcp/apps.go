package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865): a tool
// names an HTML interface, a ui:// resource, that a host renders in a
// sandboxed frame. mcp/apphost is howl's host; this file is what the
// rest of mcp knows about apps: which items carry one and how to read it.
const (
	// AppExtension is the extension's identifier in client capabilities.
	AppExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of an app's HTML resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppScheme starts every app resource's URI.
	AppScheme = "ui://"
	// MaxAppHTMLBytes bounds an app's HTML document; a bigger one is refused.
	MaxAppHTMLBytes = 4 << 20
)

// IsAppResource reports whether a listed resource is an app's interface:
// a ui:// URI, or the extension's MIME type.
func IsAppResource(uri, mime string) bool {
	return strings.HasPrefix(uri, AppScheme) || isAppMIME(mime)
}

func isAppMIME(mime string) bool {
	return strings.EqualFold(strings.ReplaceAll(mime, " ", ""), AppMIMEType)
}

// toolAppMeta reads a tool's _meta once for what MCP Apps put there: the
// ui:// interface it declares (_meta.ui.resourceUri, or the older flat
// "ui/resourceUri"; "" when neither is a ui:// URI), and who may call it
// (_meta.ui.visibility: "model", "app"; nil for both).
func toolAppMeta(meta json.RawMessage) (uri string, visibility []string) {
	var m struct {
		UI struct {
			ResourceURI string   `json:"resourceUri"`
			Visibility  []string `json:"visibility"`
		} `json:"ui"`
		Flat string `json:"ui/resourceUri"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return "", nil
	}
	for _, u := range []string{m.UI.ResourceURI, m.Flat} {
		if strings.HasPrefix(u, AppScheme) {
			return u, m.UI.Visibility
		}
	}
	return "", m.UI.Visibility
}

// AppCallable reports whether an app may call the tool it: its
// _meta.ui.visibility, when it has one, must include "app".
func AppCallable(it CatalogItem) bool {
	return len(it.AppVisibility) == 0 || slices.Contains(it.AppVisibility, "app")
}

// ModelCallable reports whether the model may see and call the tool it:
// its _meta.ui.visibility, when it has one, must include "model" (a tool
// only its app calls, such as a dashboard's poll, is the app's).
func ModelCallable(it CatalogItem) bool {
	return len(it.AppVisibility) == 0 || slices.Contains(it.AppVisibility, "model")
}

// listedAppMeta keeps an app resource's listed _meta.ui, bounded: what is
// bigger than MaxAppMetaBytes is not kept (the content's own counts).
func listedAppMeta(meta json.RawMessage) json.RawMessage {
	var m struct {
		UI json.RawMessage `json:"ui"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil || len(m.UI) > MaxAppMetaBytes {
		return nil
	}
	return m.UI
}

// MaxAppMetaBytes bounds the listed _meta.ui howl keeps for an app resource.
const MaxAppMetaBytes = 64 << 10

// appUIMeta is an app resource's _meta.ui; a nil field was not declared.
type appUIMeta struct {
	CSP           *AppCSP         `json:"csp"`
	Permissions   *AppPermissions `json:"permissions"`
	PrefersBorder *bool           `json:"prefersBorder"`
	Domain        string          `json:"domain"`
}

// complete reports whether the content declared every field, so the
// listing has nothing to add.
func (m *appUIMeta) complete() bool {
	return m.CSP != nil && m.Permissions != nil && m.PrefersBorder != nil && m.Domain != ""
}

// fill takes from listed what m does not declare (the extension: hosts
// read the content's _meta.ui, with the resources/list entry as fallback).
func (m *appUIMeta) fill(listed json.RawMessage) {
	var l appUIMeta
	if len(listed) == 0 || json.Unmarshal(listed, &l) != nil {
		return
	}
	if m.CSP == nil {
		m.CSP = l.CSP
	}
	if m.Permissions == nil {
		m.Permissions = l.Permissions
	}
	if m.PrefersBorder == nil {
		m.PrefersBorder = l.PrefersBorder
	}
	if m.Domain == "" {
		m.Domain = l.Domain
	}
}

// AppPermissions are the browser features an app asks for
// (_meta.ui.permissions); a nil field is not asked for.
type AppPermissions struct {
	Camera         *struct{} `json:"camera,omitempty"`
	Microphone     *struct{} `json:"microphone,omitempty"`
	Geolocation    *struct{} `json:"geolocation,omitempty"`
	ClipboardWrite *struct{} `json:"clipboardWrite,omitempty"`
}

// AppCSP is the network an app asks for (_meta.ui.csp): origins for
// fetches, for static resources, for nested frames and for <base>.
// Empty lists mean none.
type AppCSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// AppView is an app's interface as read from its server.
type AppView struct {
	URI  string `json:"uri"`
	HTML []byte `json:"-"`
	// CSP is what the resource's _meta.ui.csp declares.
	CSP AppCSP `json:"csp"`
	// Permissions are the browser features it asks for.
	Permissions AppPermissions `json:"permissions"`
	// PrefersBorder is the resource's _meta.ui.prefersBorder.
	PrefersBorder bool `json:"prefers_border,omitempty"`
	// Domain is the dedicated origin it asks for (_meta.ui.domain): howl
	// serves every app from its own loopback origin and does not honour it.
	Domain string `json:"domain,omitempty"`
}

// ReadApp reads an app's ui:// resource and returns its HTML and the
// security settings its content's _meta.ui declares, each one the content
// leaves out taken from the resource's listed _meta.ui. A resource that is
// not HTML, or is bigger than MaxAppHTMLBytes, is refused.
func (r *Runtime) ReadApp(ctx context.Context, server, uri string) (AppView, error) {
	v := AppView{URI: uri}
	if !strings.HasPrefix(uri, AppScheme) {
		return v, fmt.Errorf("%q is not an app: an app's interface is a %s resource", uri, AppScheme)
	}
	items, err := r.ReadResourceRaw(ctx, server, uri)
	if err != nil {
		return v, err
	}
	for _, raw := range items {
		var c struct {
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
			Meta     struct {
				UI json.RawMessage `json:"ui"`
			} `json:"_meta"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		// A _meta.ui that does not parse ("permissions": {"camera": true})
		// declares nothing: the listing's, else the strictest, applies.
		// It does not cost the app its HTML.
		var ui appUIMeta
		if len(c.Meta.UI) > 0 && json.Unmarshal(c.Meta.UI, &ui) != nil {
			ui = appUIMeta{}
		}
		if mt := strings.ToLower(c.MIMEType); !isAppMIME(mt) && !strings.HasPrefix(mt, "text/html") {
			continue
		}
		switch {
		case c.Text != nil:
			v.HTML = []byte(*c.Text)
		case c.Blob != nil:
			if v.HTML, err = base64.StdEncoding.DecodeString(*c.Blob); err != nil {
				return v, &ServerError{Server: server, Method: "resources/read", Err: fmt.Errorf("app %s: its blob is not base64: %v", uri, err)}
			}
		default:
			continue
		}
		if len(v.HTML) > MaxAppHTMLBytes {
			return v, &ServerError{Server: server, Method: "resources/read", Err: fmt.Errorf("app %s is %d bytes of HTML, over howl's MaxAppHTMLBytes = %d: it is not opened", uri, len(v.HTML), MaxAppHTMLBytes)}
		}
		if !ui.complete() { // the listing's _meta.ui is the fallback, looked up only then
			if it, ok, _, err := r.Item(ctx, server, KindResource, uri); err == nil && ok {
				ui.fill(it.AppMeta)
			}
		}
		if ui.CSP != nil {
			v.CSP = *ui.CSP
		}
		if ui.Permissions != nil {
			v.Permissions = *ui.Permissions
		}
		v.PrefersBorder = ui.PrefersBorder != nil && *ui.PrefersBorder
		v.Domain = ui.Domain
		return v, nil
	}
	return v, &ServerError{Server: server, Method: "resources/read", Err: fmt.Errorf("app %s has no HTML content (%s or text/html): nothing to show", uri, AppMIMEType)}
}

// CallToolRaw calls a tool of server and returns the raw CallToolResult:
// tracked like every call (progress, timeout, a task when the tool
// requires one). The caller decides first whether the call may run, and
// bounds what it relays.
func (r *Runtime) CallToolRaw(ctx context.Context, server, tool string, args map[string]any) (json.RawMessage, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	it, _, _, _ := r.Item(ctx, server, KindTool, tool) // unlisted: no task support known
	return r.callTool(ctx, conn, server, tool, it.TaskSupport, args)
}

// AppCallTool is CallToolRaw for a call an app asks for: only a tool its
// own server lists, only one whose _meta.ui.visibility lets apps call it,
// and never one the person switched off ("disabledTools"), ever reaches
// the server.
func (r *Runtime) AppCallTool(ctx context.Context, server, tool string, args map[string]any) (json.RawMessage, error) {
	if r.ToolOff(server, tool) {
		return nil, fmt.Errorf("tool %s of %s is switched off by the person (\"disabledTools\"): an app cannot call it; switch it on with howl mcp enable %s %s", tool, server, server, tool)
	}
	it, ok, _, err := r.Item(ctx, server, KindTool, tool)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("%s lists no tool %q: an app calls only its own server's tools", server, tool)
	case !AppCallable(it):
		return nil, fmt.Errorf("tool %s of %s is not for apps (its _meta.ui.visibility is %q)", tool, server, it.AppVisibility)
	}
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	return r.callTool(ctx, conn, server, tool, it.TaskSupport, args)
}

// ReadResourceRaw reads a resource of server for an app and returns the
// raw items of its contents; the caller bounds what it relays. It is
// tracked like every read (in flight, idle timeout, how a server that
// died answering it ended).
func (r *Runtime) ReadResourceRaw(ctx context.Context, server, uri string) ([]json.RawMessage, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	return tracked(r, ctx, server, "resources/read", "resources/read", func(ctx context.Context) ([]json.RawMessage, error) {
		return conn.ReadRaw(ctx, uri)
	})
}
