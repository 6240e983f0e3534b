package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
		if got := toolAppURI(json.RawMessage(c.meta)); got != c.want {
			t.Errorf("toolAppURI(%s) = %q, want %q", c.meta, got, c.want)
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
