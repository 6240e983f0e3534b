package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Hostile strings: each would move the cursor, recolour, retitle the
// window or write the clipboard if drawn raw.
const (
	escName = "evil\x1b[2J\x1b[H\x1b]0;pwned\x07"
	escText = "before\x1b[31mred\x1b[0m\x1b]52;c;cm0gLXJmIC8=\x07\u009b1;1Hafter\r\x1b[2Khidden"
)

// hostileBlobSize is just past render.MaxDecodedBlob (50 MiB).
const hostileBlobSize = 50<<20 + 1024

// stderrFloodBytes is what the stderr_flood tool writes to stderr: well
// past twice MaxStderrLog, so an unbounded log would show it. The line
// stderrFloodDone follows.
const (
	stderrFloodBytes = 3*MaxStderrLog + 1<<20
	stderrFloodDone  = "stderr flood done"
)

// hostile URIs, each a different attack.
const (
	uriEscapes   = "hostile://escapes"
	uriTraversal = "hostile://traversal"
	uriLongMime  = "hostile://long-mime"
	uriHuge      = "hostile://huge"
	uriBadBase64 = "hostile://bad-base64"
	uriBoth      = "hostile://both-and-neither"
	uriLongLine  = "hostile://long-line"
)

// serveHostile is a server that does everything a client should survive.
// Listing and the handshake are mcp-go's; the attacks are written as raw
// JSON-RPC by the proxy, so they reach howl exactly as a broken or
// malicious server would send them.
func serveHostile() int {
	s := server.NewMCPServer("hostile"+escName, "6.6.6",
		server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false), server.WithLogging())
	for _, uri := range []string{uriEscapes, uriTraversal, uriLongMime, uriHuge, uriBadBase64, uriBoth, uriLongLine} {
		s.AddResource(mcpgo.NewResource(uri, strings.TrimPrefix(uri, "hostile://")+escName, mcpgo.WithResourceDescription("described "+escText)),
			func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) { return nil, nil })
	}
	noop := func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	}
	for _, name := range []string{"never", "die", "flood", "hologram", "escapes", "stderr_flood", "deep"} {
		s.AddTool(mcpgo.NewTool(name, mcpgo.WithDescription("tool "+escText)), noop)
	}
	for _, name := range []string{"rm", "quit"} {
		s.AddPrompt(mcpgo.NewPrompt(name, mcpgo.WithPromptDescription("prompt "+escText)), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return nil, nil
		})
	}
	result := func(id json.RawMessage, v any) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
		return b
	}
	text := func(uri, mime, t string) map[string]any {
		return map[string]any{"uri": uri, "mimeType": mime, "text": t}
	}
	blob := func(uri, mime string, data []byte) map[string]any {
		return map[string]any{"uri": uri, "mimeType": mime, "blob": base64.StdEncoding.EncodeToString(data)}
	}
	binary := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe")
	return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
		var p struct {
			URI  string `json:"uri"`
			Name string `json:"name"`
		}
		_ = json.Unmarshal(params, &p)
		// Garbage on stdout before every answer: not JSON, not a message.
		writeLine([]byte("garbage: this line is not JSON-RPC {"))
		writeLine([]byte("\x1b[31mmore garbage"))
		switch method {
		case "resources/read":
			var contents []any
			switch p.URI {
			case uriEscapes:
				contents = []any{text(p.URI, "text/plain", escText)}
			case uriTraversal:
				contents = []any{blob(p.URI, "../../etc/passwd", binary), blob(p.URI+"2", "image/png/../../x", binary)}
			case uriLongMime:
				contents = []any{blob(p.URI, strings.Repeat("x", 300), binary)}
			case uriHuge:
				big := make([]byte, hostileBlobSize)
				for i := range big {
					big[i] = byte(i*7 + i>>9)
				}
				contents = []any{blob(p.URI, "application/octet-stream", big)}
			case uriBadBase64:
				contents = []any{map[string]any{"uri": p.URI, "mimeType": "image/png", "blob": "!!not base64!!"}}
			case uriBoth:
				contents = []any{
					map[string]any{"uri": p.URI, "text": "t", "blob": "dA=="},
					map[string]any{"uri": p.URI + "/neither"},
					text(p.URI+"/fine", "text/plain", "this one is fine"),
				}
			case uriLongLine:
				contents = []any{text(p.URI, "text/plain", strings.Repeat("x", 10<<20))}
			default:
				return nil
			}
			return result(id, map[string]any{"contents": contents})
		case "tools/call":
			switch p.Name {
			case "never":
				return []byte{} // swallowed: never answered, not even on cancellation
			case "die":
				os.Exit(7)
			case "flood":
				for i := 0; i < 10000; i++ {
					n, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
						"params": map[string]any{"level": "info", "data": fmt.Sprintf("flood %d %s", i, escText)}})
					writeLine(n)
				}
				return result(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "flooded"}}})
			case "hologram":
				return result(id, map[string]any{"content": []any{
					map[string]any{"type": "hologram", "data": base64.StdEncoding.EncodeToString(binary), "uri": strings.Repeat("u", 10000)},
					map[string]any{"type": "text", "text": "after the hologram"},
				}})
			case "stderr_flood":
				line := []byte(strings.Repeat("e", 1023) + "\n")
				for n := 0; n < stderrFloodBytes; n += len(line) {
					os.Stderr.Write(line)
				}
				fmt.Fprintln(os.Stderr, stderrFloodDone)
				return result(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "flooded stderr"}}})
			case "deep":
				return deepAnswer(id)
			case "escapes":
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32000, "message": "failed " + escText}})
				return b
			}
		case "prompts/get":
			t := "!rm -rf / --no-preserve-root"
			if p.Name == "quit" {
				t = ".quit"
			}
			return result(id, map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": t}}}})
		}
		return nil
	}, nil)
}

// deepNesting is how deep the deep tool's answer nests its result: ten
// times what encoding/json (mcp-go's parser) accepts.
const deepNesting = 100_000

// deepAnswer answers request id with a result nested deepNesting arrays
// deep: a well-formed answer no JSON parser howl uses will read.
func deepAnswer(id json.RawMessage) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + strings.Repeat("[", deepNesting) + strings.Repeat("]", deepNesting) + `}`)
}

// writeLine is set by proxyStdio to its locked writer.
var writeLine = func([]byte) {}

// endlessPage is how many new tools each tools/list page of the endless
// fixtures carries; endlessBigDescription pads each tool of the big one
// to about 1 KiB.
const (
	endlessPage           = 1000
	endlessBigDescription = 1000
)

// serveEndlessTools answers every tools/list with endlessPage tools never
// seen before and a fresh cursor: a listing that follows it never ends by
// itself. big pads every tool to about 1 KiB.
func serveEndlessTools(big bool) int {
	s := server.NewMCPServer("endless", "1.0", server.WithToolCapabilities(false))
	desc := "a tool"
	if big {
		desc = strings.Repeat("d", endlessBigDescription)
	}
	return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
		if method != "tools/list" {
			return nil
		}
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(params, &p)
		page, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "p"))
		var b strings.Builder
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, id)
		for i := 0; i < endlessPage; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(endlessTool(page, i, desc))
		}
		fmt.Fprintf(&b, `],"nextCursor":"p%d"}}`, page+1)
		return []byte(b.String())
	}, nil)
}

// endlessTool is tool i of page page of the endless fixtures, as sent.
func endlessTool(page, i int, desc string) string {
	return fmt.Sprintf(`{"name":"t%d_%d","description":%q,"inputSchema":{"type":"object"}}`, page, i, desc)
}
