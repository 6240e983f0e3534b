package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/howl-mcp/howl/render"
)

// hostileRuntime starts the hostile fixture and the demo side by side; the
// demo must keep working whatever the hostile server does.
func hostileRuntime(t *testing.T, onEvent func(Event)) (*Runtime, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "cache", "mcp-resources")
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("hostile"), fixture("demo")}},
		RuntimeOptions{CacheDir: t.TempDir(), Spill: render.NewSpillStore(root), LogLevel: "info", OnEvent: onEvent})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	for _, n := range []string{"hostile", "demo"} {
		if st, _ := rt.ServerStatus(n); st.State != StateReady {
			t.Fatalf("%s: %s %s", n, st.State, st.Reason)
		}
	}
	return rt, root
}

// hasControl reports a C0 (but newline and tab), DEL or C1 control.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// demoStillWorks is the check every hostile case ends with.
func demoStillWorks(t *testing.T, rt *Runtime) {
	t.Helper()
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"echo","arguments":{"message":"still here"}}`))
	if err != nil || !strings.Contains(string(out), "still here") {
		t.Errorf("the demo server stopped working: %s %v", out, err)
	}
}

// peakHeap runs f while sampling the heap, and returns the peak growth.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base.HeapAlloc {
		return p - base.HeapAlloc
	}
	return 0
}

func TestHostileEscapeSequencesStayDataAndSanitizeAway(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	cat, err := rt.Catalog(context.Background(), "hostile", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Items) == 0 {
		t.Fatal("nothing listed")
	}
	for _, it := range cat.Items {
		for _, s := range []string{it.Name, it.Description, it.Title} {
			if hasControl(render.SanitizeLine(s)) {
				t.Errorf("%s: sanitizer left a control in %q", it.ID, render.SanitizeLine(s))
			}
		}
	}
	// What the model receives is JSON: controls arrive escaped, never raw.
	for _, call := range [][2]string{
		{"mcp_search_hostile", `{"query":"evil"}`},
		{"mcp_read_hostile", `{"uri":"` + uriEscapes + `"}`},
	} {
		out, err := rt.CallMeta(context.Background(), call[0], json.RawMessage(call[1]))
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(string(out), "\x1b\x07") {
			t.Errorf("%s: a raw control byte reached the model's bytes: %q", call[0], out)
		}
	}
	_, err = rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"escapes"}`))
	var se *ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "failed before") {
		t.Errorf("a tool error should carry the server's own message: %v", err)
	}
	if hasControl(strings.ReplaceAll(render.Sanitize(err.Error()), "\n", "")) {
		t.Error("sanitized error text still holds controls")
	}
	demoStillWorks(t, rt)
}

func TestHostileBlobMimesCannotWriteOutsideTheSpillDirectory(t *testing.T) {
	rt, root := hostileRuntime(t, nil)
	for _, uri := range []string{uriTraversal, uriLongMime} {
		out, err := rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uri+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"spilled":true`) {
			t.Errorf("%s not spilled: %s", uri, out)
		}
	}
	cache := filepath.Dir(root)
	files := 0
	filepath.WalkDir(filepath.Dir(cache), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, "..") || filepath.Ext(p) != ".bin" || strings.Count(rel, string(filepath.Separator)) != 1 {
			t.Errorf("spill wrote %s (want <root>/<server>/<sha>.bin)", p)
		}
		return nil
	})
	if files == 0 {
		t.Error("no spill file written")
	}
	demoStillWorks(t, rt)
}

func TestHostileBlobPastTheCeilingIsRefusedInBoundedMemory(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	var out []byte
	var err error
	grew := peakHeap(func() {
		out, err = rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriHuge+`"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"code":"blob_too_large"`) || !strings.Contains(string(out), "52428800") {
		t.Errorf("want a blob_too_large item citing the 52428800-byte ceiling: %.300s", out)
	}
	b64 := uint64(hostileBlobSize) * 4 / 3
	t.Logf("peak heap growth reading a %d MiB blob (%d MiB of base64): %d MiB", hostileBlobSize>>20, b64>>20, grew>>20)
	// The JSON line, the transport's copy of its result and mcp-go's typed
	// parse each hold the base64 once; render adds nothing proportional.
	if grew > 5*b64 {
		t.Errorf("heap grew %d MiB for %d MiB of base64: not bounded by a small multiple", grew>>20, b64>>20)
	}
	demoStillWorks(t, rt)
}

func TestHostileMalformedItemsFailAlone(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	out, err := rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriBoth+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		ItemsTotal int               `json:"items_total"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.ItemsTotal != 3 || len(env.Items) != 3 {
		t.Fatalf("want three items: %s", out)
	}
	if !strings.Contains(string(env.Items[0]), "invalid_content") || !strings.Contains(string(env.Items[1]), "invalid_content") || !strings.Contains(string(env.Items[2]), "this one is fine") {
		t.Errorf("both/neither must fail alone, the fine item must render: %s", out)
	}
	out, err = rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriBadBase64+`"}`))
	if err != nil || !strings.Contains(string(out), `"code":"invalid_base64"`) {
		t.Errorf("invalid base64: %s %v", out, err)
	}
	out, err = rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"hologram"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "after the hologram") || strings.Contains(string(out), "iVBOR") || strings.Contains(string(out), `"data":"`) || strings.Contains(string(out), strings.Repeat("u", 5000)) {
		t.Errorf("unknown content type: must pass bounded, clamped, base64-free: %.500s", out)
	}
	demoStillWorks(t, rt)
}

func TestHostileTenMiBLineIsPagedInBoundedMemory(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	var out []byte
	var err error
	grew := peakHeap(func() {
		out, err = rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriLongLine+`"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	var r render.TextResult
	if err := json.Unmarshal(out, &r); err != nil || r.TotalBytes != 10<<20 || len(r.Text) != render.DefaultMaxBytes || r.NextOffset == nil {
		t.Errorf("want the first %d bytes of %d with a next_offset: %.200s", render.DefaultMaxBytes, 10<<20, out)
	}
	t.Logf("peak heap growth reading a 10 MiB line: %d MiB", grew>>20)
	if grew > 60<<20 {
		t.Errorf("heap grew %d MiB for a 10 MiB line", grew>>20)
	}
	out, _ = rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriLongLine+`","pattern":"x{5}"}`))
	if len(out) > render.MaxResponseBytes {
		t.Errorf("a pattern over one 10 MiB line returned %d bytes", len(out))
	}
}

func TestHostilePromptTextIsReturnedNeverRun(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	for name, want := range map[string]string{"rm": "[user]\n!rm -rf /", "quit": "[user]\n.quit"} {
		out, err := rt.CallMeta(context.Background(), "mcp_prompt_hostile", json.RawMessage(`{"prompt":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var pr PromptResult
		_ = json.Unmarshal(out, &pr)
		if !strings.HasPrefix(pr.Text, want) || pr.Role != "user" {
			t.Errorf("%s: text %q, want it to start %q as a user block", name, pr.Text, want)
		}
	}
	demoStillWorks(t, rt)
}

func TestHostileToolThatNeverAnswersIsCancellable(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := rt.CallMeta(ctx, "mcp_invoke_hostile", json.RawMessage(`{"tool":"never"}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
	t.Logf("never-answering call returned %v after its 500ms deadline", time.Since(began)-500*time.Millisecond)
	// The hostile server still answers other requests, and so does the demo.
	if _, err := rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriEscapes+`"}`)); err != nil {
		t.Errorf("hostile server stuck after an unanswered call: %v", err)
	}
	demoStillWorks(t, rt)
}

func TestHostileServerExitingMidCallFailsFastAndReconnects(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	began := time.Now()
	_, err := rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"die"}`))
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "connection closed") {
		t.Errorf("err = %v, want the closed connection named", err)
	}
	t.Logf("a call whose server exits returned in %v", took)
	if took > 3*time.Second {
		t.Errorf("took %v", took)
	}
	waitState(t, rt, "hostile", StateFailed)
	st, _ := rt.ServerStatus("hostile")
	if !strings.Contains(st.Reason, "exited with status 7") {
		t.Errorf("reason %q does not say how it ended", st.Reason)
	}
	demoStillWorks(t, rt)
	if err := rt.Reconnect("hostile"); err != nil {
		t.Fatal(err)
	}
	_ = rt.Wait(context.Background())
	if _, err := rt.Catalog(context.Background(), "hostile", false); err != nil {
		t.Errorf("after reconnect: %v", err)
	}
}

func TestServerKilledMidCallFailsWithinASecondAndReconnects(t *testing.T) {
	rt, _ := demoRuntime(t)
	conn, _ := rt.Conn("demo")
	done := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"slow","arguments":{"duration_ms":30000,"steps":100}}`))
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the call reach the server
	killed := time.Now()
	_ = conn.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case err := <-done:
		t.Logf("call failed %v after SIGKILL: %v", time.Since(killed), err)
		if err == nil {
			t.Error("the call succeeded on a killed server")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call never failed")
	}
	waitState(t, rt.Runtime, "demo", StateFailed)
	st, _ := rt.ServerStatus("demo")
	if !strings.Contains(st.Reason, killedReasonWords) {
		t.Errorf("reason = %q", st.Reason)
	}
	if err := rt.Reconnect("demo"); err != nil {
		t.Fatal(err)
	}
	_ = rt.Wait(context.Background())
	demoStillWorks(t, rt.Runtime)
}

func waitState(t *testing.T, rt *Runtime, name string, want State) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := rt.ServerStatus(name); st.State == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, _ := rt.ServerStatus(name)
	t.Fatalf("%s: state %s (%s), want %s", name, st.State, st.Reason, want)
}

func TestHostileLogFloodIsDeliveredWithoutStallingAnything(t *testing.T) {
	var logs atomic.Int64
	rt, _ := hostileRuntime(t, func(e Event) {
		if e.Server == "hostile" && e.Method == "notifications/message" {
			logs.Add(1)
		}
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the demo keeps answering while the flood runs
		defer wg.Done()
		for i := 0; i < 5; i++ {
			demoStillWorks(t, rt)
		}
	}()
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_hostile", json.RawMessage(`{"tool":"flood"}`))
	wg.Wait()
	if err != nil || !strings.Contains(string(out), "flooded") {
		t.Fatalf("flood call: %s %v", out, err)
	}
	if n := logs.Load(); n != 10000 {
		t.Errorf("delivered %d of 10000 log notifications", n)
	}
}
