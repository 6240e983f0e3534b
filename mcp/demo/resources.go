package demo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/assets"
)

// fixedResource describes one listed resource whose content never changes.
type fixedResource struct {
	uri, name, title, description, mime string
	annotations                         *mcp.Annotations
	size                                int64 // -1: not announced
	blob                                bool  // serve as base64 blob, not text
	content                             func() ([]byte, error)
}

func asset(name string) func() ([]byte, error) {
	return func() ([]byte, error) { return fs.ReadFile(assets.Demo, "demo/"+name) }
}

func assetSize(name string) int64 {
	info, err := fs.Stat(assets.Demo, "demo/"+name)
	if err != nil {
		return -1
	}
	return info.Size()
}

func fixed(b []byte) func() ([]byte, error)       { return func() ([]byte, error) { return b, nil } }
func fixedString(s string) func() ([]byte, error) { return fixed([]byte(s)) }

func annotated(audience mcp.Role, priority float64) *mcp.Annotations {
	return &mcp.Annotations{Audience: []mcp.Role{audience}, Priority: &priority, LastModified: "2025-06-14T09:30:00Z"}
}

func fixedResources() []fixedResource {
	return []fixedResource{
		{
			uri: LogURI, name: "app.log", title: "Application log (2 MiB)", mime: "text/plain",
			description: "A day of orders-api logs: INFO and DEBUG traffic with WARN and ERROR lines, request ids and stack traces. " +
				"2 MiB, generated deterministically; read it in slices or filter it with a pattern.",
			annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}, Priority: ptr(0.6), LastModified: "2025-06-14T23:59:59Z"},
			size:        LogSize,
			content:     func() ([]byte, error) { return appLog(), nil },
		},
		{
			uri: JSONURI, name: "config.json", title: "Service configuration", mime: "application/json",
			description: "The orders-api configuration: nested objects, arrays, booleans and a null.",
			size:        assetSize("config.json"), content: asset("config.json"),
		},
		{
			uri: MarkdownURI, name: "readme.md", title: "Demo server guide", mime: "text/markdown",
			description: "What the demo server offers, as Markdown with headings, a table, a list and a fenced Go code block.",
			size:        assetSize("readme.md"), content: asset("readme.md"),
		},
		{
			uri: GoSourceURI, name: "server.go", title: "Orders service (Go source)", mime: "text/x-go",
			description: "A small, valid Go file: an in-memory order store and its HTTP handler.",
			size:        assetSize("server.go.txt"), content: asset("server.go.txt"),
		},
		{
			uri: PNGURI, name: "moon.png", title: "Moon over hills (PNG)", mime: "image/png",
			description: "A 64x64 colour PNG image: an amber moon over dark hills on a teal-to-violet sky.",
			size:        assetSize("moon.png"), blob: true, content: asset("moon.png"),
		},
		{
			uri: MislabeledURI, name: "release-notes.bin", title: "Release notes (mislabeled)", mime: "application/octet-stream",
			description: "Plain UTF-8 text served as an application/octet-stream blob, as a careless upload would be; sniff it before treating it as binary.",
			size:        assetSize("mislabeled.txt"), blob: true, content: asset("mislabeled.txt"),
		},
		{
			uri: BinaryURI, name: "random.bin", title: "Random bytes", mime: "application/octet-stream",
			description: "4 KiB of pseudo-random bytes: truly binary, not valid UTF-8.",
			size:        BinarySize, blob: true, content: func() ([]byte, error) { return binaryData(), nil },
		},
		{
			uri: UnicodeURI, name: "unicode.txt", title: "Unicode sampler", mime: "text/plain",
			description: "Multi-byte UTF-8 text: many scripts, right-to-left lines, emoji with ZWJ sequences, combining marks and zero-width characters.",
			size:        assetSize("unicode.txt"), content: asset("unicode.txt"),
		},
		{
			uri: EscapesURI, name: "terminal-escapes.txt", title: "Terminal escape sampler", mime: "text/plain",
			description: "Text full of ANSI/OSC escape sequences, C0/C1 control characters and a bidi override; a client must display it safely.",
			size:        int64(len(escapesText)), content: fixedString(escapesText),
		},
		{
			uri: CSVURI, name: "metrics.csv", title: "Daily metrics (CSV)", mime: "text/csv",
			description: "Requests, errors and latency percentiles for each of the 14 demo days.",
			size:        int64(len(csvText())), content: func() ([]byte, error) { return []byte(csvText()), nil },
		},
		{
			uri: EmptyURI, name: "empty.txt", title: "Empty file", mime: "text/plain",
			description: "A text file with no content at all (zero bytes).",
			size:        0, content: fixedString(""),
		},
		{
			uri: UntypedURI, name: "untyped", title: "Untyped resource",
			description: "A text resource that declares no MIME type; the client has to guess.",
			size:        int64(len(untypedText)), content: fixedString(untypedText),
		},
		{
			uri: BrokenURI, name: "broken", title: "Broken resource", mime: "text/plain",
			description: "Listed like any other resource, but every read fails with an error, to exercise error handling.",
			size:        -1,
			content: func() ([]byte, error) {
				return nil, errors.New(BrokenURI + " always fails to read: it exists to exercise error handling; read " + MarkdownURI + " instead")
			},
		},
		{
			uri: WelcomeURI, name: "welcome.txt", title: "Welcome (for you)", mime: "text/plain",
			description: "A short welcome meant for the person at the keyboard (audience: user).",
			annotations: annotated(mcp.RoleUser, 1),
			size:        int64(len(welcomeText)), content: fixedString(welcomeText),
		},
		{
			uri: AssistantGuideURI, name: "assistant-guide.md", title: "Guide for the assistant", mime: "text/markdown",
			description: "Hints meant for the model, not the person (audience: assistant).",
			annotations: annotated(mcp.RoleAssistant, 0.8),
			size:        int64(len(assistantGuideText)), content: fixedString(assistantGuideText),
		},
	}
}

func ptr[T any](v T) *T { return &v }

// resource builds the listing entry.
func (f fixedResource) resource() mcp.Resource {
	r := mcp.Resource{URI: f.uri, Name: f.name, Title: f.title, Description: f.description, MIMEType: f.mime}
	if f.annotations != nil {
		r.Annotations = f.annotations
	}
	if f.size >= 0 {
		r.Size = ptr(f.size)
	}
	return r
}

// read serves the content as text or as a base64 blob.
func (f fixedResource) read(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	data, err := f.content()
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{contents(f.uri, f.mime, data, f.blob)}, nil
}

func contents(uri, mime string, data []byte, blob bool) mcp.ResourceContents {
	if blob {
		return mcp.BlobResourceContents{URI: uri, MIMEType: mime, Blob: base64.StdEncoding.EncodeToString(data)}
	}
	return mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: string(data)}
}

func (d *demoServer) addResources() {
	fixed := fixedResources()
	all := make([]server.ServerResource, 0, len(fixed)+NoteCount)
	for _, f := range fixed {
		all = append(all, server.ServerResource{Resource: f.resource(), Handler: f.read})
	}
	for i, n := range notes() {
		all = append(all, server.ServerResource{
			Resource: mcp.Resource{
				URI:         NoteURI(i + 1),
				Name:        n.name,
				Title:       n.title,
				Description: "Team note " + noteNumber(i+1) + " (Markdown), one of " + fmt.Sprint(NoteCount) + " generated notes.",
				MIMEType:    "text/markdown",
				Size:        ptr(int64(len(n.text))),
			},
			Handler: readNote,
		})
	}
	d.srv.AddResources(all...)
}

func readNote(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	for i, n := range notes() {
		if NoteURI(i+1) == uri {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: n.text}}, nil
		}
	}
	return nil, fmt.Errorf("no note at %q: notes run from %s to %s", uri, NoteURI(1), NoteURI(NoteCount))
}

// noteIndex returns the 1-based number of the note named id ("note-007" or
// its URI), or 0.
func noteIndex(id string) int {
	id = strings.TrimPrefix(id, NoteURIPrefix)
	for i, n := range notes() {
		if n.name == id {
			return i + 1
		}
	}
	return 0
}
