package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// modernFixture is a 2026-07-28 streamable HTTP server (mcp-go's) behind a
// recorder: it keeps each request's headers and body, refuses the first
// server/discover with -32022 while naming the version it was sent, and
// lists tools whose x-mcp-header annotations are good and bad.
type modernFixture struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []recordedRequest
}

type recordedRequest struct {
	Header http.Header
	Method string
	ID     json.RawMessage
	Params json.RawMessage
}

// fixtureTools are listed instead of what the mcp-go server has: one good
// tool with annotated parameters, one whose annotation is empty.
const fixtureTools = `[
 {"name":"routed","inputSchema":{"type":"object","properties":{
   "region":{"type":"string","x-mcp-header":"Region"},
   "note":{"type":"string","x-mcp-header":"Note"},
   "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
   "query":{"type":"string"}},"required":["region"]}},
 {"name":"broken","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}}]`

func newModernFixture(t *testing.T) *modernFixture {
	f := &modernFixture{}
	ms := server.NewMCPServer("modern", "1.0", server.WithToolCapabilities(false))
	for _, name := range []string{"routed", "broken"} {
		ms.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("called " + name), nil
		})
	}
	h := server.NewStreamableHTTPServer(ms, server.WithStateLess(true))
	refused := false
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		f.mu.Lock()
		f.reqs = append(f.reqs, recordedRequest{Header: r.Header.Clone(), Method: msg.Method, ID: msg.ID, Params: msg.Params})
		first := !refused && msg.Method == "server/discover"
		refused = refused || first
		f.mu.Unlock()
		switch {
		case first:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, msg.ID)
			return
		case msg.Method == "tools/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":%s}}`, msg.ID, fixtureTools)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *modernFixture) requests(method string) []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []recordedRequest
	for _, r := range f.reqs {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func startModern(t *testing.T, f *modernFixture) *Runtime {
	t.Helper()
	return startRuntime(t, ServerConfig{Name: "modern", Transport: TransportHTTP, URL: f.srv.URL + "/mcp", Era: EraModern, StartTimeout: 20 * time.Second})
}

func TestARefusedVersionTheServerListsIsRetriedOnceWithANewID(t *testing.T) {
	f := newModernFixture(t)
	rt := startModern(t, f)
	conn, err := rt.Conn("modern")
	if err != nil {
		t.Fatal(err)
	}
	if v := conn.ProtocolVersion(); v != "2026-07-28" {
		t.Fatalf("protocol %q, want 2026-07-28 after the retry (not a fall-back to initialize)", v)
	}
	if n := len(f.requests("initialize")); n != 0 {
		t.Fatalf("%d initialize requests to a 2026-07-28 server", n)
	}
	d := f.requests("server/discover")
	if len(d) != 2 || bytes.Equal(d[0].ID, d[1].ID) {
		t.Fatalf("discover requests %d (ids %s), want the refused one and one retry with another id", len(d), func() string {
			var ids []string
			for _, r := range d {
				ids = append(ids, string(r.ID))
			}
			return strings.Join(ids, ", ")
		}())
	}
	// Each request, the retry too, declares the version in its header and
	// _meta alike, with howl's identity and capabilities.
	f.mu.Lock()
	all := append([]recordedRequest(nil), f.reqs...)
	f.mu.Unlock()
	for _, r := range all {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(r.Params, &p)
		if r.Header.Get("Mcp-Protocol-Version") != "2026-07-28" || string(p.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
			p.Meta["io.modelcontextprotocol/clientInfo"] == nil || p.Meta["io.modelcontextprotocol/clientCapabilities"] == nil {
			t.Fatalf("%s: header %q, _meta %s: want the version in both, client info and capabilities", r.Method, r.Header.Get("Mcp-Protocol-Version"), r.Params)
		}
	}
}

func TestAToolWithABadHeaderAnnotationIsLeftOutAndTheOthersStay(t *testing.T) {
	f := newModernFixture(t)
	rt := startModern(t, f)
	ctx := context.Background()
	cat, err := rt.Catalog(ctx, "modern", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup(KindTool, "routed"); !ok {
		t.Fatalf("the good tool is gone: %+v", cat.Items)
	}
	if _, ok := cat.Lookup(KindTool, "broken"); ok {
		t.Fatal("the tool with an empty x-mcp-header is in the catalog")
	}
	if why := leftOut(cat, KindTool, "broken"); !strings.Contains(why, `tool "broken" left out`) || !strings.Contains(why, "non-empty") {
		t.Fatalf("warning for the bad tool = %q, want it named with the reason", why)
	}
	_, err = rt.CallMeta(ctx, "mcp_invoke_modern", json.RawMessage(`{"tool":"broken","arguments":{"v":"x"}}`))
	if err == nil || !strings.Contains(err.Error(), "left out") {
		t.Fatalf("calling the left-out tool: %v, want a refusal saying why", err)
	}
	if n := len(f.requests("tools/call")); n != 0 {
		t.Fatalf("the left-out tool was called (%d tools/call)", n)
	}
}

func TestAnnotatedParametersTravelAsHeadersAndANullIsNotGiven(t *testing.T) {
	f := newModernFixture(t)
	rt := startModern(t, f)
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_modern",
		json.RawMessage(`{"tool":"routed","arguments":{"region":"us-west1","note":" héllo ","verbose":null,"query":"SELECT 1"}}`))
	if err != nil || !strings.Contains(string(out), "called routed") {
		t.Fatalf("call = %s, %v", out, err)
	}
	calls := f.requests("tools/call")
	if len(calls) != 1 {
		t.Fatalf("%d tools/call requests", len(calls))
	}
	h := calls[0].Header
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "routed" || h.Get("Mcp-Param-Region") != "us-west1" ||
		h.Get("Mcp-Param-Note") != "=?base64?IGjDqWxsbyA=?=" {
		t.Fatalf("headers %v: want Mcp-Method, Mcp-Name, the region as is and the padded non-ASCII note in base64", h)
	}
	if _, ok := h["Mcp-Param-Verbose"]; ok {
		t.Fatal("a null argument was sent as a header")
	}
	if _, ok := h["Mcp-Param-Query"]; ok {
		t.Fatal("an unannotated parameter was sent as a header")
	}
	if bytes.Contains(calls[0].Params, []byte(`"verbose"`)) {
		t.Fatalf("the null optional argument went to the server: %s", calls[0].Params)
	}
}

func TestADiscoverAnswerNamingItsVersionsIsModernWithoutCapabilities(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		mu.Lock()
		methods = append(methods, msg.Method)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if msg.Method == "server/discover" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"bare","version":"1.0"}}}`, msg.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete"}}`, msg.ID)
	}))
	defer srv.Close()
	rt := startRuntime(t, ServerConfig{Name: "bare", Transport: TransportHTTP, URL: srv.URL, StartTimeout: 20 * time.Second})
	st, _ := rt.ServerStatus("bare")
	mu.Lock()
	defer mu.Unlock()
	if st.State != StateReady || st.Protocol != "2026-07-28" || strings.Contains(strings.Join(methods, " "), "initialize") {
		t.Fatalf("status %s %q protocol %q after %v: want ready at 2026-07-28 with no initialize", st.State, st.Reason, st.Protocol, methods)
	}
}

func TestA2020SchemaIsDescribedAsSentAndANetworkRefIsNeverFetched(t *testing.T) {
	hits := 0
	var mu sync.Mutex
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		_, _ = w.Write([]byte(`{"type":"object"}`))
	}))
	defer canary.Close()
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,` +
		`"$defs":{"id":{"$anchor":"ident","type":"string","pattern":"^[a-z]+$"}},` +
		`"properties":{"id":{"$ref":"#/$defs/id"},"profile":{"$ref":"` + canary.URL + `/profile.json"}},` +
		`"allOf":[{"anyOf":[{"required":["id"]},{"required":["profile"]}]}],"if":{"required":["profile"]},"then":{"required":["id"]},"else":{}}`
	tool := CatalogItem{Kind: KindTool, Server: "s", ID: "lookup", Name: "lookup", Schema: json.RawMessage(schema)}
	cat := &Catalog{Server: "s", Listed: []Kind{KindTool}, Items: []CatalogItem{tool}}
	cat.buildIndex()
	d, err := Describe(cat, KindTool, "lookup")
	if err != nil || string(d.InputSchema) != schema {
		t.Fatalf("described schema %s, %v: want the server's bytes, every 2020-12 keyword kept", d.InputSchema, err)
	}
	err = cat.CheckArguments(tool, map[string]any{"id": "NOT valid"})
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Fatalf("the network $ref was fetched %d times", hits)
	}
	if err == nil {
		t.Fatal("a schema howl cannot fully read must say the arguments went unchecked")
	}
}
