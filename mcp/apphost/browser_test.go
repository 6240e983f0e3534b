package apphost

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/mcptest"

	"github.com/howl-mcp/howl/mcp"
)

// probeApp is an app that, once initialized, fetches probe and loads it
// as an image, then posts whether the fetch got through.
const probeApp = `<!doctype html><body><script>
const send = (m) => parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*");
window.addEventListener("message", (e) => {
  const m = e.data;
  if (!m || m.id !== 1 || !m.result) return;
  send({ method: "ui/notifications/initialized", params: {} });
  const img = new Image(); img.src = PROBE + "/img";
  fetch(PROBE + "/fetch").then(() => "reached", () => "blocked").then((r) =>
    send({ id: 2, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "probe " + r }] } }));
});
send({ id: 1, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "probe", version: "1" }, appCapabilities: {} } });
</script></body>`

func TestAnAppCannotReachTheNetworkUnlessItsCSPNamesTheOrigin(t *testing.T) {
	var hits atomic.Int64
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "ok")
	}))
	defer probe.Close()
	for _, c := range []struct {
		name     string
		csp      mcp.AppCSP
		want     string
		wantHits bool
	}{
		{"no CSP declared", mcp.AppCSP{}, "probe blocked", false},
		{"the probe's origin declared", mcp.AppCSP{ConnectDomains: []string{probe.URL}, ResourceDomains: []string{probe.URL}}, "probe reached", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := hits.Load()
			h, err := New()
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			got := make(chan string, 1)
			html := strings.Replace(probeApp, "PROBE", fmt.Sprintf("%q", probe.URL), 2)
			a, err := h.Open(Spec{Server: "none", View: mcp.AppView{URI: "ui://test/probe.html", HTML: []byte(html), CSP: c.csp},
				Message: func(_ context.Context, text string) error {
					select {
					case got <- text:
					default:
					}
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			mcptest.OpenInChromium(t, mcptest.Chromium(t, "the app's CSP"), a.URL())
			select {
			case text := <-got:
				if text != c.want {
					t.Errorf("the app said %q, want %q", text, c.want)
				}
			case <-time.After(90 * time.Second):
				t.Fatal("the probe app never reported")
			}
			if reached := hits.Load() > before; reached != c.wantHits {
				t.Errorf("the probe server was reached: %v, want %v", reached, c.wantHits)
			}
		})
	}
}
