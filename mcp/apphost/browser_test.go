package apphost

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// headlessChromium opens url in Debian's chromium until the test ends;
// without it the test skips loudly.
func headlessChromium(t *testing.T, url string) {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		msg := "SKIPPED LOUDLY: no chromium on PATH, so the app's CSP was not tried in a real browser (apt-get install chromium)"
		fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
		t.Skip(msg)
	}
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+chromiumProfile(t), url)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

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
			headlessChromium(t, a.URL())
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

// chromiumProfile is a fresh profile directory for one headless Chromium.
// Not t.TempDir: Chromium's helper processes can still be writing to it
// when the browser is killed, and TempDir's cleanup then fails the test;
// this one is removed best-effort once they had time to end.
func chromiumProfile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "howl-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}
