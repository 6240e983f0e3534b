package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

func TestCatalogMarksAppToolsAndAppResources(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	cat, err := rt.Catalog(context.Background(), "demo", false)
	if err != nil {
		t.Fatal(err)
	}
	dice, ok := cat.Lookup(KindTool, demo.DiceTool)
	if !ok || dice.AppURI != demo.DiceAppURI {
		t.Errorf("tool %s: app %q (found %v), want %q", demo.DiceTool, dice.AppURI, ok, demo.DiceAppURI)
	}
	if echo, _ := cat.Lookup(KindTool, demo.EchoTool); echo.AppURI != "" {
		t.Errorf("tool echo has no app, got %q", echo.AppURI)
	}
	res, ok := cat.Lookup(KindResource, demo.DiceAppURI)
	if !ok || res.AppURI != demo.DiceAppURI {
		t.Errorf("resource %s: app %q (found %v), want it marked an app", demo.DiceAppURI, res.AppURI, ok)
	}
	if d, err := Describe(cat, KindTool, demo.DiceTool); err != nil || d.AppURI != demo.DiceAppURI {
		t.Errorf("describe %s: app %q (%v), want %q", demo.DiceTool, d.AppURI, err, demo.DiceAppURI)
	}
	if log, _ := cat.Lookup(KindResource, demo.LogURI); log.AppURI != "" {
		t.Errorf("resource %s is no app, got %q", demo.LogURI, log.AppURI)
	}
}

func TestToolAppURIReadsTheNestedAndTheFlatKeyAndOnlyUIURIs(t *testing.T) {
	for _, c := range []struct{ meta, want string }{
		{`{"ui":{"resourceUri":"ui://a/b.html"}}`, "ui://a/b.html"},
		{`{"ui/resourceUri":"ui://flat"}`, "ui://flat"},
		{`{"ui":{"resourceUri":"https://evil.example/x"}}`, ""},
		{`{"ui":"nope"}`, ""},
		{`[]`, ""},
		{``, ""},
	} {
		if got, _ := toolAppMeta(json.RawMessage(c.meta)); got != c.want {
			t.Errorf("toolAppMeta(%s) = %q, want %q", c.meta, got, c.want)
		}
	}
	if !IsAppResource("demo://x", "text/html; profile=mcp-app") || IsAppResource("demo://x", "text/html") {
		t.Error("IsAppResource must go by ui:// or the extension's MIME type, not by HTML alone")
	}
}

func TestReadAppReturnsTheDemoHTMLAndItsEmptyCSP(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	v, err := rt.ReadApp(context.Background(), "demo", demo.DiceAppURI)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v.HTML), "ui/initialize") || len(v.CSP.ConnectDomains)+len(v.CSP.ResourceDomains) != 0 || !v.PrefersBorder {
		t.Errorf("ReadApp = %d bytes, csp %+v, border %v; want the dice app's HTML, no network, a border", len(v.HTML), v.CSP, v.PrefersBorder)
	}
	if _, err := rt.ReadApp(context.Background(), "demo", demo.LogURI); err == nil || !strings.Contains(err.Error(), "ui://") {
		t.Errorf("ReadApp of a demo:// resource: %v, want a refusal naming ui://", err)
	}
}

// appMetaServer declares its apps' settings in the two places the
// extension allows: ui://fx/listed.html only in resources/list, and
// ui://fx/both.html in both (its content's must win). Its tools are
// callable by apps only, by the model only, and by both.
func appMetaServer() *server.MCPServer {
	s := server.NewMCPServer("app-meta", "1.0", server.WithResourceCapabilities(false, false), server.WithToolCapabilities(false))
	ui := func(m map[string]any) *mcpgo.Meta { return mcpgo.NewMetaFromMap(map[string]any{"ui": m}) }
	page := func(uri string, meta map[string]any, size int) server.ResourceHandlerFunc {
		html := "<!doctype html><p>app</p>"
		if size > 0 {
			html = "<!doctype html>" + strings.Repeat("x", size-len("<!doctype html>"))
		}
		return func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: AppMIMEType, Text: html, Meta: meta}}, nil
		}
	}
	s.AddResource(mcpgo.Resource{URI: "ui://fx/listed.html", Name: "listed", MIMEType: AppMIMEType,
		Meta: ui(map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.listed.example"}}, "permissions": map[string]any{"geolocation": map[string]any{}}, "prefersBorder": true})},
		page("ui://fx/listed.html", nil, 0))
	s.AddResource(mcpgo.Resource{URI: "ui://fx/both.html", Name: "both", MIMEType: AppMIMEType,
		Meta: ui(map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.listed.example"}}, "permissions": map[string]any{"camera": map[string]any{}}})},
		page("ui://fx/both.html", map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.content.example"}}, "permissions": map[string]any{}}}, 0))
	s.AddResource(mcpgo.Resource{URI: "ui://fx/malformed.html", Name: "malformed", MIMEType: AppMIMEType,
		Meta: ui(map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.listed.example"}}})},
		page("ui://fx/malformed.html", map[string]any{"ui": map[string]any{"permissions": map[string]any{"camera": true}, "domain": 5}}, 0))
	for uri, n := range map[string]int{"ui://fx/max.html": MaxAppHTMLBytes, "ui://fx/over.html": MaxAppHTMLBytes + 1} {
		s.AddResource(mcpgo.Resource{URI: uri, Name: uri, MIMEType: AppMIMEType}, page(uri, nil, n))
	}
	tool := func(name string, visibility ...any) {
		t := mcpgo.NewTool(name)
		if len(visibility) > 0 {
			t.Meta = ui(map[string]any{"visibility": visibility})
		}
		s.AddTool(t, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(name + " ran"), nil
		})
	}
	tool("for_apps", "app")
	tool("for_the_model", "model")
	tool("for_both")
	return s
}

// TestReadAppTakesWhatTheContentLeavesOutFromTheListing: the content's
// _meta.ui wins; what it does not declare comes from resources/list.
func TestReadAppTakesWhatTheContentLeavesOutFromTheListing(t *testing.T) {
	rt := startRuntime(t, fixture("app-meta"))
	ctx := context.Background()
	v, err := rt.ReadApp(ctx, "app-meta", "ui://fx/listed.html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.CSP.ConnectDomains, ",") != "https://api.listed.example" || v.Permissions.Geolocation == nil || !v.PrefersBorder {
		t.Errorf("an app declared only in the listing read as csp %+v, permissions %+v, border %v; want the listing's", v.CSP, v.Permissions, v.PrefersBorder)
	}
	v, err = rt.ReadApp(ctx, "app-meta", "ui://fx/both.html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.CSP.ConnectDomains, ",") != "https://api.content.example" || v.Permissions.Camera != nil {
		t.Errorf("an app declared in both read as csp %+v, permissions %+v; want the content's (no camera)", v.CSP, v.Permissions)
	}
	// A content _meta.ui that does not parse declares nothing: the app
	// still opens, with the listing's CSP and no permission granted.
	v, err = rt.ReadApp(ctx, "app-meta", "ui://fx/malformed.html")
	if err != nil || len(v.HTML) == 0 {
		t.Fatalf("an app whose content _meta.ui is malformed: %v, %d bytes of HTML; want it read", err, len(v.HTML))
	}
	if strings.Join(v.CSP.ConnectDomains, ",") != "https://api.listed.example" || v.Permissions.Camera != nil || v.Domain != "" {
		t.Errorf("the malformed app read as csp %+v, permissions %+v, domain %q; want the listing's CSP and nothing else", v.CSP, v.Permissions, v.Domain)
	}
}

// TestAnAppCallsOnlyToolsItsServerListsForApps: an app's call reaches the
// server only for a tool it lists whose visibility includes "app" and the
// person has not switched off; a tool the model alone may call, one the
// server does not list (another server's, say), or one switched off is
// refused before anything is sent.
func TestAnAppCallsOnlyToolsItsServerListsForApps(t *testing.T) {
	rt := startRuntime(t, fixture("app-meta"), fixture("demo"))
	ctx := context.Background()
	for _, tool := range []string{"for_apps", "for_both"} {
		if _, err := rt.AppCallTool(ctx, "app-meta", tool, nil); err != nil {
			t.Errorf("an app's call of %s: %v, want it run", tool, err)
		}
	}
	if _, err := rt.AppCallTool(ctx, "app-meta", "for_the_model", nil); err == nil || !strings.Contains(err.Error(), "not for apps") {
		t.Errorf("an app's call of a model-only tool: %v, want a refusal", err)
	}
	if _, err := rt.AppCallTool(ctx, "app-meta", demo.EchoTool, map[string]any{"message": "hi"}); err == nil || !strings.Contains(err.Error(), "an app calls only its own server's tools") {
		t.Errorf("an app's call of the demo's echo through app-meta: %v, want a refusal", err)
	}
	// A tool the person switched off is off for apps too, globs included.
	if err := rt.SetToolsOff("app-meta", []string{"for_b*"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.AppCallTool(ctx, "app-meta", "for_both", nil); err == nil || !strings.Contains(err.Error(), "switched off") {
		t.Errorf("an app's call of for_both, switched off: %v, want a refusal saying so", err)
	}
	if _, err := rt.AppCallTool(ctx, "app-meta", "for_apps", nil); err != nil {
		t.Errorf("an app's call of for_apps, still on: %v", err)
	}
}

// TestAnAppsHTMLIsBoundedByMaxAppHTMLBytes: an app of exactly
// MaxAppHTMLBytes opens; one byte more is refused, naming the bound.
func TestAnAppsHTMLIsBoundedByMaxAppHTMLBytes(t *testing.T) {
	rt := startRuntime(t, fixture("app-meta"))
	ctx := context.Background()
	if v, err := rt.ReadApp(ctx, "app-meta", "ui://fx/max.html"); err != nil || len(v.HTML) != MaxAppHTMLBytes {
		t.Errorf("an app of MaxAppHTMLBytes: %d bytes, %v; want it read whole", len(v.HTML), err)
	}
	if _, err := rt.ReadApp(ctx, "app-meta", "ui://fx/over.html"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("over howl's MaxAppHTMLBytes = %d", MaxAppHTMLBytes)) {
		t.Errorf("an app one byte over MaxAppHTMLBytes: %v, want a refusal naming the bound", err)
	}
}

// TestAListedAppMetaOverMaxAppMetaBytesIsNotKept: the catalog keeps a
// listed _meta.ui of MaxAppMetaBytes, and not one byte more.
func TestAListedAppMetaOverMaxAppMetaBytesIsNotKept(t *testing.T) {
	ui := func(n int) json.RawMessage {
		pad := `{"pad":"` + strings.Repeat("x", n-len(`{"pad":""}`)) + `"}`
		return json.RawMessage(`{"ui":` + pad + `}`)
	}
	if got := listedAppMeta(ui(MaxAppMetaBytes)); len(got) != MaxAppMetaBytes {
		t.Errorf("a _meta.ui of MaxAppMetaBytes kept %d bytes, want all", len(got))
	}
	if got := listedAppMeta(ui(MaxAppMetaBytes + 1)); got != nil {
		t.Errorf("a _meta.ui over MaxAppMetaBytes kept %d bytes, want none", len(got))
	}
}

// TestTheModelNeverFindsDescribesOrCallsAnAppOnlyTool: a tool whose
// _meta.ui.visibility leaves out "model" is its app's (the extension: the
// host hides it from the model). mcp_search never lists it, describe does
// not give its schema, invoke refuses with the reason; the tools the
// model may use stay found.
func TestTheModelNeverFindsDescribesOrCallsAnAppOnlyTool(t *testing.T) {
	for _, shape := range []FunctionShape{FunctionsPerServer, FunctionsShared} {
		rt := startReady(t, &Config{Servers: []ServerConfig{fixture("app-meta")}}, RuntimeOptions{Functions: shape})
		ctx := context.Background()
		sfx := FunctionSuffix("app-meta")
		search, describe, invoke := "mcp_search_"+sfx, "mcp_describe_"+sfx, "mcp_invoke_"+sfx
		server := ""
		if shape == FunctionsShared {
			search, describe, invoke, server = "mcp_search", "mcp_describe", "mcp_invoke", `"server":"app-meta",`
		}
		out, err := rt.CallMeta(ctx, search, json.RawMessage(`{`+server+`"query":"","limit":200}`))
		if err != nil {
			t.Fatalf("%s: search: %v", shape, err)
		}
		if strings.Contains(string(out), `"for_apps"`) || !strings.Contains(string(out), `"for_both"`) || !strings.Contains(string(out), `"for_the_model"`) {
			t.Errorf("%s: search lists the app-only tool or lacks the model's: %.600s", shape, out)
		}
		if out, err := rt.CallMeta(ctx, describe, json.RawMessage(`{`+server+`"tool":"for_apps"}`)); err == nil && strings.Contains(string(out), `"input_schema"`) {
			t.Errorf("%s: describe of the app-only tool: %s", shape, out)
		}
		out, err = rt.CallMeta(ctx, invoke, json.RawMessage(`{`+server+`"tool":"for_apps","arguments":{}}`))
		if msg := string(out) + fmt.Sprint(err); !strings.Contains(msg, "for its MCP App only") {
			t.Errorf("%s: invoking the app-only tool: %s %v, want a refusal saying it is the app's", shape, out, err)
		}
		if out, err := rt.CallMeta(ctx, invoke, json.RawMessage(`{`+server+`"tool":"for_both","arguments":{}}`)); err != nil || strings.Contains(string(out), "MCP App only") {
			t.Errorf("%s: invoking a tool for both: %s %v, want it run", shape, out, err)
		}
	}
}
