package mcp

import (
	"context"
	"encoding/json"
	"os"
	"testing"
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
