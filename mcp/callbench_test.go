package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// BenchmarkCallMetaEcho is one mcp_invoke round trip to the demo server over
// stdio: schema check, call, bounding. Parallel runs GOMAXPROCS*8 in flight.
func BenchmarkCallMetaEcho(b *testing.B) {
	sc := fixture("demo")
	if os.Getenv("BENCH_LEGACY") != "" {
		sc.Era = EraLegacy
	}
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	args := json.RawMessage(`{"tool":"echo","arguments":{"message":"hello"}}`)
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", args); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkListCatalog100k lists the demo server with 100,000 generated
// resources and 10,000 generated tools and prompts (120,000 items, pages
// of 100) over stdio: the pages are read, checked and parsed once each.
func BenchmarkListCatalog100k(b *testing.B) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo-scale-100k")}}, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		cat, err := rt.Catalog(context.Background(), "demo-scale-100k", true)
		if err != nil || len(cat.Items) < 120_000 {
			b.Fatalf("%v, %d items", err, len(cat.Items))
		}
	}
}

// forget drops what the runtime has listed of server, so the next call
// looks its tool up from nothing, as a fresh `howl call` does.
func (r *Runtime) forget(server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.servers[server].catalog, r.servers[server].kinds = nil, nil
}

// BenchmarkCallWithoutListing100k is one `howl call echo` on a server of
// 120,000 items with nothing listed yet: the tool's schema comes from
// the first page of tools alone (it took a listing of every kind).
func BenchmarkCallWithoutListing100k(b *testing.B) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo-scale-100k")}}, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	args := json.RawMessage(`{"tool":"echo","arguments":{"message":"hello"}}`)
	b.ReportAllocs()
	for b.Loop() {
		rt.forget("demo-scale-100k")
		if _, err := rt.CallMeta(context.Background(), "mcp_invoke_demo-scale-100k", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPromptWithoutListing100k is one `howl prompt` of the last of
// 10,000 prompts on a server of 120,000 items with nothing listed yet: one
// prompts/get (it listed prompts page by page, 100 pages, to check the
// arguments first).
func BenchmarkPromptWithoutListing100k(b *testing.B) {
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo-scale-100k")}}, RuntimeOptions{CacheDir: b.TempDir()})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	args := json.RawMessage(`{"prompt":"` + demo.GreetingPrompt + `"}`)
	b.ReportAllocs()
	for b.Loop() {
		rt.forget("demo-scale-100k")
		if _, err := rt.CallMeta(context.Background(), "mcp_prompt_demo-scale-100k", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadBlob50MiB reads the demo's 50 MiB blob over stdio and
// spills it: B/op is what holding the 67 MiB answer costs (about once).
func BenchmarkReadBlob50MiB(b *testing.B) {
	dir := b.TempDir()
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo-big")}}, RuntimeOptions{CacheDir: dir, Spill: render.NewSpillStore(filepath.Join(dir, "spill"))})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	args := json.RawMessage(`{"uri":"` + demo.BigBlobURI + `"}`)
	b.ReportAllocs()
	for b.Loop() {
		out, err := rt.CallMeta(context.Background(), "mcp_read_demo-big", args)
		if err != nil || !bytes.Contains(out, []byte(`"spilled":true`)) {
			b.Fatalf("%s %v", out, err)
		}
	}
}
