// Package apphost is howl's host for MCP Apps (the io.modelcontextprotocol/ui
// extension, SEP-1865): it serves, on loopback only, a host page for each
// opened app behind an unguessable per-app token, loads the app's HTML in
// a sandboxed iframe under the CSP the resource declares (no network by
// default), and answers the app's JSON-RPC bridge: initialization with
// host context, tool input and result delivery, tools/call relayed to the
// same server after a permission decision, resources/read, ui/message,
// ui/open-link (the same URL rules as OAuth), size changes and teardown.
//
// The host side is written against the extension's published schema
// (@modelcontextprotocol/ext-apps 2.0.4, spec.types.d.ts): the package's
// own AppBridge is an ES module that imports the MCP TypeScript SDK and
// zod, so it cannot be embedded unmodified without a bundler.
package apphost

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the MCP Apps protocol version howl's host speaks.
const ProtocolVersion = "2026-01-26"

// Bounds on what an app can make howl hold or relay, named in their errors.
const (
	// MaxRequestBytes bounds one bridge message from an app.
	MaxRequestBytes = 1 << 20
	// MaxRelayBytes bounds one tool or resource result relayed to an app.
	MaxRelayBytes = 8 << 20
	// MaxMessageBytes bounds the text of one ui/message.
	MaxMessageBytes = 64 << 10
	// MaxModelContextBytes bounds one ui/update-model-context, as the
	// text the model reads with the person's next chat turn.
	MaxModelContextBytes = 16 << 10
	// MaxInFlight bounds the bridge requests one app has waiting on howl
	// at once (relayed calls running, questions asked): an app flooding
	// tools/call cannot make howl start more server calls than this.
	MaxInFlight = 32
	// TeardownWait bounds how long closing waits for the page to let the
	// app finish (ui/resource-teardown) before the app is dropped anyway.
	TeardownWait = 5 * time.Second
)

//go:embed host.html
var hostPage []byte

//go:embed host.js
var hostScript []byte

// Host serves every app howl opens, on one loopback listener.
type Host struct {
	ln       net.Listener
	srv      *http.Server
	hostport string
	served   chan struct{}

	mu   sync.Mutex
	apps map[[32]byte]*App
}

// New starts a host listening on 127.0.0.1 at a port the system picks.
func New() (*Host, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the MCP Apps host cannot listen on 127.0.0.1: %w", err)
	}
	h := &Host{ln: ln, hostport: ln.Addr().String(), served: make(chan struct{}), apps: map[[32]byte]*App{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(h.served)
		_ = h.srv.Serve(ln)
	}()
	return h, nil
}

// Addr is the listener's address (always on 127.0.0.1).
func (h *Host) Addr() net.Addr { return h.ln.Addr() }

// Close tears every open app down (each bounded by TeardownWait, all at
// once), then stops serving and waits for the server to end.
func (h *Host) Close() error {
	h.mu.Lock()
	apps := make([]*App, 0, len(h.apps))
	for _, a := range h.apps {
		apps = append(apps, a)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, a := range apps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Close()
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), TeardownWait)
	defer cancel()
	err := h.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = h.srv.Close()
	}
	<-h.served
	return err
}

// newToken returns 32 random bytes, base64url: the secret in an app's URL.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenKey is how apps are found: by the token's hash, so the lookup's
// timing says nothing about the token.
func tokenKey(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// ServeHTTP routes /app/<token>/<part>. A request to any other path, with
// an unknown token, or naming a host other than the listener's address
// (DNS rebinding) is refused.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Host != h.hostport {
		http.Error(w, "howl's MCP Apps host answers only requests to "+h.hostport, http.StatusMisdirectedRequest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/app/")
	token, part, _ := strings.Cut(rest, "/")
	if !ok || token == "" {
		http.Error(w, "not found: an app's address carries its token (/app/<token>/), printed by howl when it opens the app", http.StatusNotFound)
		return
	}
	h.mu.Lock()
	a := h.apps[tokenKey(token)]
	h.mu.Unlock()
	if a == nil {
		http.Error(w, "not found: no open app has this token (it was closed, or the address is wrong)", http.StatusNotFound)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	a.serve(w, r, part)
}

func (h *Host) remove(a *App) {
	h.mu.Lock()
	delete(h.apps, tokenKey(a.token))
	h.mu.Unlock()
}
