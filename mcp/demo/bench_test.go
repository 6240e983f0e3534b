package demo

import (
	"context"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkStart measures what time-to-ready costs on the server side: New,
// ServeStdio on pipes, and the client's first handshake (server/discover in
// the modern era, initialize in the legacy one).
func BenchmarkStart(b *testing.B) {
	for _, e := range eras {
		b.Run(e.name, func(b *testing.B) {
			for b.Loop() {
				serverIn, clientOut := io.Pipe()
				clientIn, serverOut := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				served := make(chan error, 1)
				go func() { served <- ServeStdio(ctx, New(Options{}), serverIn, serverOut) }()
				c := client.NewClient(transport.NewIO(clientIn, clientOut, nil), e.opts...)
				if err := c.Start(ctx); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = c.Close()
				go func() { _, _ = io.Copy(io.Discard, clientIn) }()
				<-served
				_ = serverOut.Close()
				cancel()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkNew measures building the standard demo server.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Options{})
	}
}

// BenchmarkNewScale100000 measures building the server for catalog-scale
// benchmarks: the generated items cost nothing until listed.
func BenchmarkNewScale100000(b *testing.B) {
	for b.Loop() {
		New(Options{Scale: 100000})
	}
}

// BenchmarkAppLog measures generating the 2 MiB log (done once per process,
// on first use).
func BenchmarkAppLog(b *testing.B) {
	b.SetBytes(LogSize)
	for b.Loop() {
		generateAppLog()
	}
}
