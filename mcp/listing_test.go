package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// oddItems are items a listing has to get right: escapes, a key in
// another case, a duplicate, malformed ones, annotations and schemas.
var oddItems = map[string][]string{
	"tools": {
		`{"name": "t\u00e9st", "title": "A \"quoted\" <title>", "description": "line\nbreak \u2028 \u202e", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}, "annotations": {"title": "ignored", "readOnlyHint": true}, "execution": {"taskSupport": "optional"}}`,
		`{"NAME": "upper", "Description": "keys in another case"}`,
		`{"name": "echo", "description": "a duplicate of the fixture's echo"}`,
		`{"name": 42}`,
		`{"description": "no name"}`,
		`[1, 2]`,
		`{"name": "bad-title", "title": 5}`,
	},
	"resources": {
		`{"uri": "file:///z", "name": "z", "mimeType": "text/plain", "size": 3, "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2026-01-01T00:00:00Z"}}`,
		`{"uri": "file:///a", "name": "again"}`,
		`{"uri": "file:///\/escaped", "title": null}`,
		`{"uri": "file:///bad-size", "size": "big"}`,
		`{"name": "no uri"}`,
	},
}

// serveOddListing serves a tool and a resource, and adds oddItems to what
// the server lists.
func serveOddListing() int {
	s := server.NewMCPServer("odd", "1.0", server.WithResourceCapabilities(false, false), server.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message")), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText(""), nil
	})
	s.AddResource(mcpgo.NewResource("file:///a", "a"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return nil, nil
	})
	return proxyStdio(s, func(string, json.RawMessage, json.RawMessage) []byte { return nil }, func(resp map[string]json.RawMessage) {
		var res map[string]json.RawMessage
		if json.Unmarshal(resp["result"], &res) != nil {
			return
		}
		for key, extra := range oddItems {
			if list, ok := res[key]; ok {
				var items []json.RawMessage
				_ = json.Unmarshal(list, &items)
				for _, it := range extra {
					items = append(items, json.RawMessage(it))
				}
				res[key], _ = json.Marshal(items)
			}
		}
		resp["result"], _ = json.Marshal(res)
	})
}

// TestListingShowsWhatTheCatalogShows holds the lean listing of `howl ls`
// (each item's bytes kept, parsed again when shown) to the catalog: the
// same items, the same warnings, in the same order, and so the same JSON.
func TestListingShowsWhatTheCatalogShows(t *testing.T) {
	for _, name := range []string{"odd-listing", "degraded", "demo"} {
		rt := startRuntime(t, fixture(name))
		ctx := context.Background()
		lean, err := rt.Listing(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer lean.Close()
		if _, err := rt.Catalog(ctx, name, false); err != nil {
			t.Fatal(err)
		}
		cached, err := rt.Listing(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if lean.Items[0].parsed != nil || cached.Items[0].parsed == nil {
			t.Fatalf("%s: the first listing must keep bytes, the second use the cached catalog", name)
		}
		got, err := json.MarshalIndent(lean, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.MarshalIndent(cached, "", " ")
		if string(got) != string(want) {
			t.Errorf("%s: the lean listing\n%s\nthe catalog's\n%s", name, got, want)
		}
		if name == "odd-listing" {
			for _, w := range []string{`duplicate tool \"echo\" skipped`, `duplicate resource \"file:///a\" skipped`, `tools[4] skipped`, `resources[5] skipped`, `not a size in bytes`, `\"title\" is not a string`, `"tést"`, `file:////escaped`, `"upper"`} {
				if !strings.Contains(string(got), w) {
					t.Errorf("the odd listing lacks %s:\n%s", w, got)
				}
			}
		}
	}
}

// TestListedItemsReadBackInAnyOrder reads a store's items back in and out
// of the order they were written, from a temp file and, when none can be
// made, from memory; a closed listing leaves no file.
func TestListedItemsReadBackInAnyOrder(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "a-file")
	os.WriteFile(blocked, nil, 0o600)
	for _, where := range []string{filepath.Join(dir, "spool"), blocked} {
		s := newPageStore(where)
		l := &kindListing{kind: KindPrompt, src: &itemSource{server: "s", kind: KindPrompt, store: s}}
		var want []string
		for p := range 3 {
			var elems [][]byte
			var keep []int
			var ids []string
			for i := range 40 {
				id := fmt.Sprintf("p%d-%d-%s", p, i, strings.Repeat("x", i*i*7))
				if i == 39 {
					id += strings.Repeat("y", pageStoreBlock) // longer than a block
				}
				elems = append(elems, []byte(`{"name": "`+id+`"}`))
				if i%3 != 1 {
					keep, ids, want = append(keep, i), append(ids, id), append(want, id)
				}
			}
			l.keepLean(elems, keep, ids)
		}
		var items []*ListedItem
		for _, p := range l.listed {
			for i := range p {
				items = append(items, &p[i])
			}
		}
		for _, order := range [][]int{{0, 1, 2, 3, 4, 50, 51, 10, 70, 5, 79, 0}, nil} {
			if order == nil {
				for i := range items {
					order = append(order, len(items)-1-i)
				}
			}
			for _, i := range order {
				it, err := items[i].Item()
				if err != nil || it.ID != want[i] {
					t.Fatalf("%s: item %d read back as %q (%v), want %q", where, i, it.ID, err, want[i])
				}
			}
		}
		if (s.f != nil) != (where != blocked) {
			t.Errorf("%s: file %v, want one only where a directory can be made", where, s.f)
		}
		s.close()
		if left, _ := filepath.Glob(filepath.Join(where, "*")); len(left) > 0 {
			t.Errorf("a closed listing left %v", left)
		}
	}
}

// listingFiles are the listing files with a name in the spool directory
// of a runtime whose cache is cache.
func listingFiles(t *testing.T, cache string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(spoolDir(cache), "listing-*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// TestAListingsFileHasNoNameWhileOpenOrAfter: the file a listing keeps
// its items in is unlinked as it is made, so the spool directory holds no
// listing file while the listing is read (on Unix; Windows deletes it on
// close), nor after it is closed.
func TestAListingsFileHasNoNameWhileOpenOrAfter(t *testing.T) {
	rt := startRuntime(t, fixture("demo"))
	cache := rt.opts.CacheDir
	l, err := rt.Listing(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if l.store.f == nil {
		t.Fatalf("the listing is kept in memory (%v): want a file, to check it has no name", l.store.err)
	}
	if _, err := l.Items[len(l.Items)-1].Item(); err != nil {
		t.Fatalf("the open listing's last item does not read back: %v", err)
	}
	if left := listingFiles(t, cache); openTempsHaveNoName && len(left) > 0 {
		t.Errorf("an open listing's file has a name, which a kill would leave behind: %v", left)
	}
	l.Close()
	if left := listingFiles(t, cache); len(left) > 0 {
		t.Errorf("a closed listing left %v", left)
	}
}

// Where the stalled lister and its server meet the test.
const (
	stalledCacheEnv  = "HOWL_TEST_STALLED_CACHE"
	stalledMarkerEnv = "HOWL_TEST_STALLED_MARKER"
)

// serveStalledListing lists one tool and a cursor, then never answers
// the next page: it writes the marker file instead, once the first page
// is in howl's listing file.
func serveStalledListing() int {
	marker := os.Getenv(stalledMarkerEnv)
	return proxyStdio(gatedServer(true, false, false), func(method string, id, params json.RawMessage) []byte {
		if method != "tools/list" {
			return nil
		}
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Cursor == "" {
			return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"first","inputSchema":{"type":"object"}}],"nextCursor":"more"}}`, id))
		}
		_ = os.WriteFile(marker, []byte("page 2 asked"), 0o600)
		return []byte{} // unanswered
	}, nil)
}

// listStalled is a howl that lists the stalled server until it is killed.
func listStalled() int {
	sc := fixture("stalled-listing")
	sc.Env[stalledMarkerEnv] = os.Getenv(stalledMarkerEnv)
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: os.Getenv(stalledCacheEnv)})
	if err := rt.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	if err := rt.Wait(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err := rt.Listing(ctx, "stalled-listing") // waits for page 2 forever
	fmt.Fprintln(os.Stderr, "the stalled listing ended:", err)
	return 1
}

// TestAListingKilledMidwayLeavesNoFile: a howl killed while a listing's
// first page is in its file and the second has not come leaves no
// listing file behind.
func TestAListingKilledMidwayLeavesNoFile(t *testing.T) {
	cache, marker := t.TempDir(), filepath.Join(t.TempDir(), "marker")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fixtureEnv+"=stalled-lister", stalledCacheEnv+"="+cache, stalledMarkerEnv+"="+marker)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the lister ended before its listing stalled (%v): %s", err, stderr.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("the stalled server was never asked for its second page: %s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if left := listingFiles(t, cache); len(left) > 0 {
		t.Errorf("a howl killed mid-listing left %v", left)
	}
}

// TestAPageNeverAnsweredEndsTheListingAfterTheServersTimeout: a server
// that answers page 1 and never page 2 no longer keeps a listing (and
// "listing…" on screen) waiting for ever: after the entry's "timeout" the
// page fails, the first page's item is kept, and the warning names the
// bound and the fix.
func TestAPageNeverAnsweredEndsTheListingAfterTheServersTimeout(t *testing.T) {
	sc := fixture("stalled-listing")
	sc.Env[stalledMarkerEnv] = filepath.Join(t.TempDir(), "asked")
	sc.CallTimeout = 300 * time.Millisecond
	rt := startRuntime(t, sc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cat, err := rt.Catalog(ctx, "stalled-listing", false)
	if err != nil {
		t.Fatalf("the listing failed as a whole (%v); want page 2's failure as a warning", err)
	}
	if cat.Count(KindTool) != 1 {
		t.Errorf("%d tools kept, want the first page's one", cat.Count(KindTool))
	}
	var said []string
	for _, w := range cat.Warnings {
		said = append(said, w.Reason)
	}
	if got := strings.Join(said, "; "); !strings.Contains(got, "page 2 failed (no answer within 300ms") || !strings.Contains(got, `raise "timeout"`) {
		t.Errorf("the warnings say %q; want page 2's failure, its timeout and the fix", got)
	}
}

// A timeout that is "none" (a negative RuntimeOptions.CallTimeout) or a
// number of seconds past time.Duration's range lets a listing run; both
// failed every page at once.
func TestAListingRunsUnderATimeoutOfNoneOrOfAHugeNumber(t *testing.T) {
	if d, ok := parseCallTimeout(1e12); !ok || d <= 0 {
		t.Errorf(`"timeout": 1e12 read as %v`, d)
	}
	sc := fixture("demo")
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: t.TempDir(), CallTimeout: -1})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	cat, err := rt.Catalog(context.Background(), "demo", false)
	if err != nil || len(cat.Warnings) > 0 || len(cat.Items) == 0 {
		t.Fatalf("listing with no timeout: %v, warnings %v, %d items", err, cat.Warnings, len(cat.Items))
	}
}
