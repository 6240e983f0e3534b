package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
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

// toolAppURI reads a tool's _meta for the app it declares:
// _meta.ui.resourceUri, or the extension's earlier flat key
// "ui/resourceUri". Only ui:// URIs count.
func toolAppURI(meta json.RawMessage) string {
	if len(meta) == 0 {
		return ""
	}
	var m struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
		Flat string `json:"ui/resourceUri"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	for _, u := range []string{m.UI.ResourceURI, m.Flat} {
		if strings.HasPrefix(u, AppScheme) {
			return u
		}
	}
	return ""
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
	// PrefersBorder is the resource's _meta.ui.prefersBorder.
	PrefersBorder bool `json:"prefers_border,omitempty"`
}

// ReadApp reads an app's ui:// resource and returns its HTML and the
// security settings its content's _meta.ui declares. A resource that is
// not HTML, or is bigger than MaxAppHTMLBytes, is refused.
func (r *Runtime) ReadApp(ctx context.Context, server, uri string) (AppView, error) {
	v := AppView{URI: uri}
	if !strings.HasPrefix(uri, AppScheme) {
		return v, fmt.Errorf("%q is not an app: an app's interface is a %s resource", uri, AppScheme)
	}
	conn, err := r.Conn(server)
	if err != nil {
		return v, err
	}
	items, err := conn.ReadRaw(ctx, uri)
	if err != nil {
		return v, err
	}
	for _, raw := range items {
		var c struct {
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
			Meta     struct {
				UI struct {
					CSP           AppCSP `json:"csp"`
					PrefersBorder bool   `json:"prefersBorder"`
				} `json:"ui"`
			} `json:"_meta"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
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
		v.CSP, v.PrefersBorder = c.Meta.UI.CSP, c.Meta.UI.PrefersBorder
		return v, nil
	}
	return v, &ServerError{Server: server, Method: "resources/read", Err: fmt.Errorf("app %s has no HTML content (%s or text/html): nothing to show", uri, AppMIMEType)}
}

// CallToolRaw calls a tool of server as an app asks it to and returns the
// raw CallToolResult: tracked like every call (progress, timeout, a task
// when the tool requires one). The caller decides first whether the call
// may run, and bounds what it relays.
func (r *Runtime) CallToolRaw(ctx context.Context, server, tool string, args map[string]any) (json.RawMessage, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	var taskSupport string
	if cat, err := r.Catalog(ctx, server, false); err == nil {
		if it, ok := cat.Lookup(KindTool, tool); ok {
			taskSupport = it.TaskSupport
		}
	}
	return r.callTool(ctx, conn, server, tool, taskSupport, args)
}

// ReadResourceRaw reads a resource of server for an app and returns the
// raw items of its contents; the caller bounds what it relays.
func (r *Runtime) ReadResourceRaw(ctx context.Context, server, uri string) ([]json.RawMessage, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return nil, err
	}
	return conn.ReadRaw(ctx, uri)
}
