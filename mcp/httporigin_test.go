package mcp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// headerLog records the X-Api-Key and Authorization of every request a
// fixture got.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) note(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, fmt.Sprintf("%s %s X-Api-Key=%q Authorization=%q", r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization")))
}

func (l *headerLog) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.seen, "\n")
}

// A server whose every answer is a 307 to another host (127.0.0.1 to
// localhost): howl does not follow it, so the other host gets neither the
// entry's X-Api-Key nor its bearer token, and the server fails saying
// where it was sent and what to do, on streamable HTTP and legacy SSE.
func TestARedirectToAnotherHostCarriesNeitherTheEntrysHeadersNorItsToken(t *testing.T) {
	const key, bearer = "the-api-key", "the-bearer-token"
	for _, tr := range []Transport{TransportHTTP, TransportSSE} {
		t.Run(string(tr), func(t *testing.T) {
			var b headerLog
			srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b.note(r)
				http.NotFound(w, r)
			}))
			t.Cleanup(srvB.Close)
			elsewhere := strings.Replace(srvB.URL, "127.0.0.1", "localhost", 1) + "/mcp"
			srvA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere, http.StatusTemporaryRedirect)
			}))
			t.Cleanup(srvA.Close)
			url := srvA.URL + "/mcp"
			store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
			if err := store.Put(url, StoredToken{AccessToken: bearer}); err != nil {
				t.Fatal(err)
			}
			sc := ServerConfig{Name: "moved", Transport: tr, URL: url, Headers: map[string]string{"X-Api-Key": key}, Era: EraModern, StartTimeout: 20 * time.Second}
			rt := startRuntimeWith(t, RuntimeOptions{OAuth: OAuthOptions{Store: store}}, sc)
			st, _ := rt.ServerStatus("moved")
			if seen := b.all(); strings.Contains(seen, key) || strings.Contains(seen, bearer) {
				t.Errorf("the other host got the entry's credentials:\n%s", seen)
			}
			if st.State != StateFailed || !strings.Contains(st.Reason, url+" redirected to "+elsewhere) || !strings.Contains(st.Reason, `set "url"`) {
				t.Errorf("status %s %q: want failed, naming the redirect from %s to %s and the fix", st.State, st.Reason, url, elsewhere)
			}
		})
	}
}

// tapeListener keeps what its connections read, as a TLS server gets
// it: the bytes on the wire.
type tapeListener struct {
	net.Listener
	mu   sync.Mutex
	tape []byte
}

func (l *tapeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tapeConn{Conn: c, l: l}, nil
}

func (l *tapeListener) wire() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.tape)
}

type tapeConn struct {
	net.Conn
	l *tapeListener
}

func (c *tapeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.mu.Lock()
	c.l.tape = append(c.l.tape, p[:n]...)
	c.l.mu.Unlock()
	return n, err
}

// Close first takes what the client sent that the server did not read
// (a TLS server stops at a plain HTTP request's first bytes): what is
// already here, without waiting for more.
func (c *tapeConn) Close() error {
	_ = c.Conn.SetReadDeadline(time.Now())
	_, _ = io.Copy(io.Discard, c)
	return c.Conn.Close()
}

// A legacy SSE server on https whose endpoint event names plain http on
// the same host and port (mcp-go compares only the host): howl sends
// nothing there, so the entry's X-Api-Key never crosses the wire in
// clear, and the connection fails naming the endpoint.
func TestALegacySSEEndpointOnPlainHTTPIsRefusedBeforeAnythingIsSent(t *testing.T) {
	const key = "the-api-key"
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: http://%s/message\n\n", r.Host)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	tape := &tapeListener{Listener: srv.Listener}
	srv.Listener = tape
	srv.StartTLS()
	t.Cleanup(srv.Close)
	sc := ServerConfig{Name: "tls", Transport: TransportSSE, URL: srv.URL + "/sse", Headers: map[string]string{"X-Api-Key": key}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := dial(ctx, ctx, sc, dialOptions{era: EraLegacy, httpClient: srv.Client()})
	if err == nil {
		conn.Close()
	}
	endpoint := "http://" + strings.TrimPrefix(srv.URL, "https://") + "/message"
	if err == nil || !strings.Contains(err.Error(), "did not send to "+endpoint) || !strings.Contains(err.Error(), srv.URL+"/sse") {
		t.Errorf("dial: %v, want it to fail naming the endpoint %s and the configured url", err, endpoint)
	}
	srv.Close() // every connection closed: the tape is whole
	if strings.Contains(tape.wire(), key) {
		wire := tape.wire()
		at := strings.Index(wire, key)
		t.Errorf("the entry's X-Api-Key crossed the wire in clear: …%q…", wire[max(0, at-200):at+len(key)])
	}
}

// The authorizer signs only requests to its server's origin: were a
// request for another ever to reach it, the token would stay home.
func TestTheAuthorizerAddsTheTokenOnlyOnItsServersOrigin(t *testing.T) {
	const bearer = "the-bearer-token"
	var b headerLog
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.note(r) }))
	t.Cleanup(srvB.Close)
	url := strings.Replace(srvB.URL, "127.0.0.1", "localhost", 1) + "/mcp" // B's port, another host
	store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	if err := store.Put(url, StoredToken{AccessToken: bearer}); err != nil {
		t.Fatal(err)
	}
	a := newAuthorizer(context.Background(), ServerConfig{Name: "a", Transport: TransportHTTP, URL: url}, OAuthOptions{Store: store})
	for _, to := range []string{srvB.URL + "/mcp", url} {
		req, _ := http.NewRequest(http.MethodGet, to, nil)
		resp, err := a.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	got := strings.Split(b.all(), "\n")
	if len(got) != 2 || strings.Contains(got[0], bearer) || !strings.Contains(got[1], bearer) {
		t.Errorf("requests seen:\n%s\nwant the token on the second (%s) only, not the first (%s/mcp)", b.all(), url, srvB.URL)
	}
}
