package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/render"
)

// The long-lines fixture serves resources whose answers are longer than
// spoolLineBytes, so howl's stdio transport spools them, and one whose
// answer is longer than MaxMessageBytes.
const (
	longBlobURI = "long://blob"
	longTextURI = "long://text"
	overMaxURI  = "long://over-max"
	longSize    = 3 << 20
)

// longBytes is the fixture's deterministic binary content.
func longBytes() []byte {
	b := make([]byte, longSize)
	rand.New(rand.NewSource(20)).Read(b)
	b[0] = 0 // not text
	return b
}

// longText is the fixture's text: numbered lines, with escapes in JSON.
func longText() string {
	var b strings.Builder
	for i := 0; b.Len() < longSize; i++ {
		fmt.Fprintf(&b, "line %d: \"quoted\" \\ tab\tend\n", i)
	}
	return b.String()
}

func serveLongLines() int {
	s := server.NewMCPServer("long-lines", "1.0", server.WithResourceCapabilities(false, false))
	s.AddResource(mcpgo.NewResource(longBlobURI, "blob"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return []mcpgo.ResourceContents{mcpgo.BlobResourceContents{URI: longBlobURI, MIMEType: "application/octet-stream", Blob: base64Std(longBytes())}}, nil
	})
	s.AddResource(mcpgo.NewResource(longTextURI, "text"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: longTextURI, MIMEType: "text/plain", Text: longText()}}, nil
	})
	s.AddResource(mcpgo.NewResource(overMaxURI, "over"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return nil, nil // answered by the proxy below
	})
	return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
		if method != "resources/read" || !bytes.Contains(params, []byte(overMaxURI)) {
			return nil
		}
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":[{"uri":%q,"blob":"`, id, overMaxURI)
		line := make([]byte, 0, MaxMessageBytes+64)
		line = append(line, head...)
		line = append(line, bytes.Repeat([]byte("QUFB"), (MaxMessageBytes-len(head))/4+1)...)
		return append(line, `"}]}}`...)
	}, nil)
}

// longRuntime starts the long-lines fixture in the given era.
func longRuntime(t *testing.T, era Era) (*Runtime, string) {
	t.Helper()
	sc := fixture("long-lines")
	sc.Era = era
	cache := t.TempDir()
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: cache, Spill: render.NewSpillStore(filepath.Join(cache, "spill"))})
	t.Cleanup(func() { rt.Close() })
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rt, cache
}

func TestLongAnswersArriveWholeOverStdioInBothEras(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			rt, cache := longRuntime(t, era)
			out, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+longBlobURI+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			var spill render.SpillResult
			if err := json.Unmarshal(out, &spill); err != nil || !spill.Spilled {
				t.Fatalf("not a spill: %s (%v)", out, err)
			}
			sum := sha256.Sum256(longBytes())
			if spill.SHA256 != hex.EncodeToString(sum[:]) || spill.SizeBytes != longSize {
				t.Errorf("spilled %d bytes, sha256 %s; want %d, %x", spill.SizeBytes, spill.SHA256, longSize, sum)
			}

			out, err = rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+longTextURI+`","offset":1000000,"max_bytes":200000}`))
			if err != nil {
				t.Fatal(err)
			}
			var page render.TextResult
			if err := json.Unmarshal(out, &page); err != nil {
				t.Fatal(err)
			}
			text := longText()
			if page.TotalBytes != len(text) || len(page.Text) < 100000 || page.Text != text[1000000:1000000+len(page.Text)] {
				t.Errorf("a page of %d bytes of %d that does not match the text at offset 1000000", len(page.Text), page.TotalBytes)
			}
			spooled, err := os.ReadDir(filepath.Join(cache, "spool"))
			if err != nil {
				t.Errorf("the %d-byte answers were not spooled: %v", longSize, err)
			}
			if len(spooled) != 0 {
				t.Errorf("spool files left behind: %v", spooled)
			}
		})
	}
}

func TestAnswerOverMaxMessageBytesFailsItsCallSayingSo(t *testing.T) {
	rt, _ := longRuntime(t, EraLegacy)
	_, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+overMaxURI+`"}`))
	if err == nil || !strings.Contains(err.Error(), "MaxMessageBytes") || !strings.Contains(err.Error(), fmt.Sprint(MaxMessageBytes)) {
		t.Fatalf("a %d-byte answer: %v", MaxMessageBytes, err)
	}
	// The connection is fine after it: the next line is read as usual.
	if _, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+longTextURI+`","max_bytes":10}`)); err != nil {
		t.Errorf("after the dropped answer: %v", err)
	}
}

// tracedLongRuntime starts the long-lines fixture with tracing on and
// returns the traces kept so far, on demand.
func tracedLongRuntime(t *testing.T, era Era) (*Runtime, func() []RPCTrace) {
	t.Helper()
	var mu sync.Mutex
	var traces []RPCTrace
	sc := fixture("long-lines")
	sc.Era = era
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: t.TempDir(), OnEvent: func(e Event) {
		if e.Kind == EventTrace {
			mu.Lock()
			traces = append(traces, *e.Trace)
			mu.Unlock()
		}
	}})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	rt.SetTracing(true)
	return rt, func() []RPCTrace {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(traces)
	}
}

func TestTraceCountsTheAnswerHowlReadNotTheStandInMcpGoParsed(t *testing.T) {
	rt, traced := tracedLongRuntime(t, EraLegacy)
	// The text is read whole; the blob is decoded from the spool file,
	// and the trace still counts the bytes the server sent.
	for _, uri := range []string{longTextURI, longBlobURI} {
		if _, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+uri+`","max_bytes":10}`)); err != nil {
			t.Fatal(err)
		}
	}
	traces := traced()
	long := 0
	for _, tr := range traces {
		if tr.Method == "resources/read" && tr.Bytes > longSize {
			long++
		}
	}
	if long != 2 {
		t.Errorf("%d resources/read traces of more than %d bytes, want 2: %+v", long, longSize, traces)
	}
}

// With the trace's bodies kept, a blob is read whole: the body traced is
// the server's bytes, never the placeholder the short copy would hold.
func TestATracedBodyIsTheBlobTheServerSent(t *testing.T) {
	rt, traced := tracedLongRuntime(t, "")
	rt.SetTraceBodies(true)
	if _, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", json.RawMessage(`{"uri":"`+longBlobURI+`"}`)); err != nil {
		t.Fatal(err)
	}
	traces := traced()
	for _, tr := range traces {
		if tr.Method != "resources/read" {
			continue
		}
		if bytes.Contains(tr.Response, []byte(placeholderPrefix)) || tr.ResponseBytes <= longSize {
			t.Errorf("the traced body is %d bytes and reads %.200s", tr.ResponseBytes, tr.Response)
		}
		return
	}
	t.Errorf("no resources/read trace: %+v", traces)
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// A request the connection's end failed is still named by waitingOn after
// it has returned: the exit watcher may ask only then, before the
// request's caller has said what it was, and the server's reason would
// lose "during tools/list" (TestTeatestAServerThatDiesWhileListedShowsFailed
// failed so in CI). A request its caller cancelled is forgotten.
func TestARequestTheConnectionsEndFailedIsStillNamedAfterItReturns(t *testing.T) {
	serverOut, stdout := io.Pipe()
	tr := newLineTransport(serverOut, nopWriteCloser{}, libLogger(nil), "")
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcpgo.NewRequestId(int64(1)), Method: "resources/read"})
		cancelled <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); tr.waitingOn() != "resources/read"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first request never became pending")
		}
	}
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled request returned %v", err)
	}
	if m := tr.waitingOn(); m != "" {
		t.Errorf("after its caller cancelled it, waitingOn names %q, want nothing", m)
	}
	failed := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcpgo.NewRequestId(int64(2)), Method: "tools/list"})
		failed <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); tr.waitingOn() != "tools/list"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tools/list never became pending")
		}
	}
	stdout.Close() // the server's stdout ends
	if err := <-failed; !errors.Is(err, transport.ErrTransportClosed) {
		t.Fatalf("tools/list returned %v, want the transport closed", err)
	}
	if m := tr.waitingOn(); m != "tools/list" {
		t.Errorf("after the connection's end failed it, waitingOn names %q, want tools/list", m)
	}
}
