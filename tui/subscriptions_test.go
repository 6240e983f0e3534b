package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/tui/common"
)

// subsHarness is demoLogHarness with the runtime itself, for asking what
// it follows.
func subsHarness(t *testing.T) (*harness, *eventPump, *mcp.Runtime) {
	t.Helper()
	hs, pump := demoLogHarness(t)
	return hs, pump, hs.rt.inner.(*mcp.Runtime)
}

// A subscription is the person's: a .call from the chat that replaces the
// viewer's document (it used to unsubscribe the resource on screen), and
// closing the viewer, keep it; the subscriptions dialog (U) counts its
// updates live, enter opens the current content, d ends it at the server.
func TestSubscriptionOutlivesTheViewersDocumentAndEndsOnlyWhenThePersonEndsIt(t *testing.T) {
	hs, pump, rt := subsHarness(t)
	hs.line(".read demo " + demo.LogURI)
	if !hs.m.viewer.Open() {
		t.Fatalf("the read did not open the viewer:\n%s", hs.view())
	}
	hs.keys("s")
	if got := rt.Subscriptions("demo"); len(got) != 1 || got[0] != demo.LogURI {
		t.Fatalf("s in the viewer: the runtime follows %v, want [%s]", got, demo.LogURI)
	}
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT}) // back to the chat, the log still in the viewer
	hs.line(".call demo " + demo.TouchTool + " uri=" + demo.LogURI)
	if v := hs.view(); !strings.Contains(v, "Sent notifications/resources/updated") {
		t.Fatalf("the .call did not reach a subscribed session:\n%s", v)
	}
	if got := rt.Subscriptions("demo"); len(got) != 1 {
		t.Fatalf("the .call's result replaced the viewer's document and ended the subscription (the runtime follows %v)", got)
	}
	hs.keys("esc")
	if got := rt.Subscriptions("demo"); len(got) != 1 {
		t.Fatalf("closing the viewer ended the subscription (the runtime follows %v)", got)
	}
	sub := func() *common.Subscription { return hs.m.com.Subs.Get("demo", demo.LogURI) }
	pump.waitFor(hs, "the touch's update to be counted", func() bool { return sub() != nil && sub().Updates >= 1 })

	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT}) // the chat's input would take the U
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("U")})
	v := hs.view()
	for _, want := range []string{"Subscriptions (1)", "demo  " + demo.LogURI, "1 update · last ", "at most 32 a server"} {
		if !strings.Contains(v, want) {
			t.Errorf("the subscriptions dialog lacks %q:\n%s", want, v)
		}
	}
	hs.keys("enter")
	if v := hs.view(); !hs.m.viewer.Open() || !strings.Contains(v, "● live · 1 update") {
		t.Fatalf("enter did not open the followed resource, live:\n%s", v)
	}
	hs.keys("esc")
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("U")})
	hs.keys("d")
	if v := hs.view(); !strings.Contains(v, "Subscriptions (0)") || !strings.Contains(v, "No subscriptions") {
		t.Errorf("d did not end the subscription:\n%s", v)
	}
	if got := rt.Subscriptions("demo"); len(got) != 0 {
		t.Errorf("d left the runtime following %v", got)
	}
}

// s on a resource in the catalog follows it without opening it; s again
// ends it. The bound per server is refused with its constant named.
func TestSubscribeFromTheCatalogAndTheBoundPerServer(t *testing.T) {
	hs, _, rt := subsHarness(t)
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT}) // to the catalog
	hs.keys("2")
	it := hs.m.selectedResource()
	if it == nil {
		t.Fatalf("no resource chosen on the resources tab:\n%s", hs.view())
	}
	hs.keys("s")
	if got := rt.Subscriptions("demo"); len(got) != 1 || got[0] != it.URI || hs.m.viewer.Open() {
		t.Fatalf("s in the catalog: the runtime follows %v (viewer open %v), want [%s]", got, hs.m.viewer.Open(), it.URI)
	}
	if !strings.Contains(hs.view(), "subscribed to "+it.URI) {
		t.Errorf("the status does not say it subscribed:\n%s", hs.view())
	}
	// The catalog marks the row and the detail pane says how it has changed.
	if v := hs.view(); !strings.Contains(v, "(subscribed)") || !strings.Contains(v, "followed") || !strings.Contains(v, "0 updates") {
		t.Errorf("the catalog does not mark the subscribed resource (row and details):\n%s", v)
	}
	hs.keys("s")
	if got := rt.Subscriptions("demo"); len(got) != 0 {
		t.Errorf("s again left the runtime following %v", got)
	}
	if v := hs.view(); strings.Contains(v, "(subscribed)") || strings.Contains(v, "followed") {
		t.Errorf("the catalog still marks a resource no longer followed:\n%s", v)
	}

	for i := range common.MaxSubscriptionsPerServer {
		hs.m.com.Subs.Add("demo", "demo://filler/"+string(rune('a'+i)), hs.m.com.Now())
	}
	hs.keys("s")
	if v := hs.view(); !strings.Contains(v, "MaxSubscriptionsPerServer = 32") {
		t.Errorf("the bound is not named:\n%s", v)
	}
	if got := rt.Subscriptions("demo"); len(got) != 0 {
		t.Errorf("a subscription past the bound reached the server: %v", got)
	}
}

// TestInteropEverythingKeepsTwoSubscriptionsWhileTheChatCallsTools runs the
// real server-everything: two of its documents followed (one from the
// viewer, one from the catalog), its toggle-subscriber-updates tool called
// from the chat (which shows the call's result in the viewer), and both
// subscriptions' updates counted in U until d ends each at the server.
func TestInteropEverythingKeepsTwoSubscriptionsWhileTheChatCallsTools(t *testing.T) {
	dir := os.Getenv("HOWL_INTEROP_DIR")
	if dir == "" {
		t.Skip("SKIPPED: interop peers not installed. To run: (cd .ci/interop && npm ci) && HOWL_INTEROP_DIR=$PWD/.ci/interop/node_modules go test ./tui -run Interop")
	}
	sc := mcp.ServerConfig{Name: "everything", Transport: mcp.TransportStdio, Command: "node",
		Args: []string{filepath.Join(dir, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}, StartTimeout: 30 * time.Second}
	pump := &eventPump{}
	rt := newRuntime(t, pump.push, sc)
	t.Cleanup(func() { rt.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cat, err := rt.Catalog(ctx, "everything", false)
	if err != nil {
		t.Fatal(err)
	}
	var docs []mcp.CatalogItem
	for _, it := range cat.Items {
		if it.Kind == mcp.KindResource && strings.HasPrefix(it.URI, "demo://resource/static/document/") {
			docs = append(docs, it)
		}
	}
	if len(docs) < 2 {
		t.Fatalf("server-everything lists %d static documents, want 2 or more", len(docs))
	}
	hs := newChatHarness(t, rt, []string{"everything"}, 140, 40, Options{})
	t.Cleanup(hs.dumpOnFailure)
	pump.deliver(hs)

	hs.line(".read everything " + docs[0].URI)
	hs.keys("s")
	hs.keys("esc") // back to the chat
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.keys("2")
	hs.selectItem(docs[1].ID)
	hs.keys("s")
	if got := rt.Subscriptions("everything"); len(got) != 2 {
		t.Fatalf("the runtime follows %v, want the two documents", got)
	}
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.line(".call everything toggle-subscriber-updates")
	if !strings.Contains(hs.view(), "Started simulated resource updated notifications") {
		t.Fatalf("the tool did not start the updates:\n%s", hs.view())
	}
	counted := func(uri string) bool { s := hs.m.com.Subs.Get("everything", uri); return s != nil && s.Updates >= 1 }
	pump.waitFor(hs, "an update of each document", func() bool { return counted(docs[0].URI) && counted(docs[1].URI) })
	hs.keys("esc")
	hs.line(".call everything toggle-subscriber-updates") // stops them
	hs.keys("esc")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlT})
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("U")})
	// The dialog's rows ("everything  URI  1 update · last …"), not the
	// detail pane behind it, which says the same of the chosen resource.
	dialogRows := func(v string) (n int) {
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, "everything  demo://") && strings.Contains(l, "· last ") {
				n++
			}
		}
		return n
	}
	if v := hs.view(); !strings.Contains(v, "Subscriptions (2)") || dialogRows(v) != 2 || strings.Contains(v, "none yet") {
		t.Fatalf("the dialog does not count both documents' updates:\n%s", v)
	}
	hs.keys("d", "d")
	if got := rt.Subscriptions("everything"); len(got) != 0 || !strings.Contains(hs.view(), "Subscriptions (0)") {
		t.Errorf("d twice left the runtime following %v:\n%s", got, hs.view())
	}
}
