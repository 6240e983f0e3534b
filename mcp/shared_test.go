package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// manyCatalogs makes servers catalogs of items tools each, named and
// described from a small vocabulary, so searches match across servers.
func manyCatalogs(servers, items int) []*Catalog {
	words := strings.Fields("file read write search list issue pull request branch commit user message channel query table row index log error metric trace deploy build test image page")
	var cats []*Catalog
	for s := range servers {
		cat := &Catalog{Server: fmt.Sprintf("server-%02d", s)}
		for i := range items {
			w1, w2, w3 := words[(i+s)%len(words)], words[(i*7+s*3)%len(words)], words[(i*13+5)%len(words)]
			id := fmt.Sprintf("%s_%s_%d", w1, w2, i)
			cat.Items = append(cat.Items, CatalogItem{Kind: KindTool, Server: cat.Server, ID: id, Name: id,
				Description: fmt.Sprintf("%s the %s of a %s, with paging and a filter", w1, w2, w3)})
		}
		cats = append(cats, cat)
	}
	return cats
}

// TestSearchOfEveryServerMergesByScoreAndNamesEachHitsServer: the hits
// of several catalogs come back best first, each with its server, and
// the coverage (first in the JSON) counts every catalog.
func TestSearchOfEveryServerMergesByScoreAndNamesEachHitsServer(t *testing.T) {
	cats := manyCatalogs(3, 40)
	cats[2].Items = append(cats[2].Items, CatalogItem{Kind: KindTool, Server: cats[2].Server, ID: "zebra_stripes", Name: "zebra_stripes", Description: "paints zebra stripes"})
	res, err := SearchCatalogs(cats, "zebra stripes", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Server != "server-02" || res.Results[0].ID != "zebra_stripes" {
		t.Fatalf("zebra: %+v", res.Results)
	}
	res, err = SearchCatalogs(cats, "issue", 5)
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]bool{}
	for i, h := range res.Results {
		servers[h.Server] = true
		if i > 0 && h.Score > res.Results[i-1].Score {
			t.Errorf("hit %d (%v) outranks hit %d", i, h.Score, i-1)
		}
	}
	if res.Shown != 5 || res.Matches <= 5 || len(servers) < 2 || res.CatalogSize != 121 {
		t.Errorf("issue: shown %d of %d from %v in %d items", res.Shown, res.Matches, servers, res.CatalogSize)
	}
	b, _ := json.Marshal(res)
	if !strings.HasPrefix(string(b), `{"coverage":"showing 5 of `) || !strings.Contains(res.Coverage, "across 3 servers with 121 items") {
		t.Errorf("coverage: %.200s", b)
	}
	if _, err := SearchCatalogs(cats, "x", -1); err == nil {
		t.Error("a negative limit was accepted")
	}
}

// BenchmarkSearchOfEveryServer is the search over 20 servers' catalogs,
// 10,000 items in all, the indexes built (as after a first search).
// Goal: under 10 ms.
func BenchmarkSearchOfEveryServer(b *testing.B) {
	cats := manyCatalogs(20, 500)
	if _, err := SearchCatalogs(cats, "warm", 0); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := SearchCatalogs(cats, "search issue in a log", 20); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTheSharedSetNeverFindsDescribesOrCallsASwitchedOffTool: the search
// of every server, and describe and invoke naming the server, treat a
// tool the person switched off as the per-server set does.
func TestTheSharedSetNeverFindsDescribesOrCallsASwitchedOffTool(t *testing.T) {
	sc := fixture("demo")
	sc.DisabledTools = []string{"echo"}
	other := fixture("demo")
	other.Name = "demo2" // a second demo, its echo on
	rt := startReady(t, &Config{Servers: []ServerConfig{sc, other}}, RuntimeOptions{Functions: FunctionsShared})
	ctx := context.Background()
	for _, q := range []string{`{"query":"echo"}`, `{"query":"","limit":200}`, `{"query":"echo","server":"demo"}`} {
		out, err := rt.CallMeta(ctx, "mcp_search", json.RawMessage(q))
		if err != nil {
			t.Fatalf("search %s: %v", q, err)
		}
		var res SearchResult
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("search %s: %v: %s", q, err, out)
		}
		for _, h := range res.Results {
			if h.Server == "demo" && h.Kind == KindTool && h.ID == "echo" {
				t.Errorf("search %s returned demo's switched-off echo", q)
			}
		}
		if q == `{"query":"echo"}` && !strings.Contains(string(out), `"server":"demo2"`) {
			t.Errorf("the other server's echo is still found: %.300s", out)
		}
	}
	out, err := rt.CallMeta(ctx, "mcp_invoke", json.RawMessage(`{"server":"demo","tool":"echo","arguments":{"message":"hi"}}`))
	if err == nil && !strings.Contains(string(out), "switched off") {
		t.Errorf("invoking demo's switched-off echo: %s", out)
	} else if err != nil && !strings.Contains(err.Error(), "switched off") {
		t.Errorf("invoking demo's switched-off echo fails without the reason: %v", err)
	}
	if out, err := rt.CallMeta(ctx, "mcp_describe", json.RawMessage(`{"server":"demo","tool":"echo"}`)); err == nil && strings.Contains(string(out), `"input_schema"`) {
		t.Errorf("describe of demo's switched-off echo: %s", out)
	}
}
