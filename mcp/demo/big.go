package demo

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The big resources (Options.Big), for benchmarks that read large things.
const (
	// BigBlobURI is a BigBlobSize binary blob (not UTF-8).
	BigBlobURI = "demo://big/blob-50m"
	// BigBlobSize is exactly the render policy's decode ceiling (50 MiB).
	BigBlobSize = 50 << 20
	// BigTextURI is a BigTextResourceSize text resource: the app log repeated.
	BigTextURI = "demo://big/text-20m"
	// BigTextResourceSize is 20 MiB.
	BigTextResourceSize = 20 << 20
)

// addBig registers the big resources. Their bytes are built on each read
// (from the deterministic binary sample and the app log), so they cost
// nothing until read and nothing stays in memory after.
func (d *demoServer) addBig() {
	d.srv.AddResources(
		server.ServerResource{
			Resource: mcp.Resource{URI: BigBlobURI, Name: "blob-50m", Title: "50 MiB binary blob", MIMEType: "application/octet-stream",
				Description: "50 MiB of binary data, for benchmarks of reading big things.", Size: ptr(int64(BigBlobSize))},
			Handler: func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				b := make([]byte, 0, BigBlobSize)
				for len(b) < BigBlobSize {
					b = append(b, binaryData()[:min(BinarySize, BigBlobSize-len(b))]...)
				}
				return []mcp.ResourceContents{contents(BigBlobURI, "application/octet-stream", b, true)}, nil
			},
		},
		server.ServerResource{
			Resource: mcp.Resource{URI: BigTextURI, Name: "text-20m", Title: "20 MiB text", MIMEType: "text/plain",
				Description: "20 MiB of log text, for benchmarks of reading big things.", Size: ptr(int64(BigTextResourceSize))},
			Handler: func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				var b strings.Builder
				b.Grow(BigTextResourceSize)
				for b.Len() < BigTextResourceSize {
					log := appLog()
					b.Write(log[:min(len(log), BigTextResourceSize-b.Len())])
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: BigTextURI, MIMEType: "text/plain", Text: b.String()}}, nil
			},
		},
	)
}
