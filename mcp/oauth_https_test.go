package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCheckOAuthURLAllowsHTTPSAndPlainHTTPOnlyToThisMachine(t *testing.T) {
	for _, tc := range []struct {
		url, refused string // refused "" means allowed
	}{
		{"https://as.example.com/token", ""},
		{"http://127.0.0.1:8080/token", ""},
		{"http://127.9.9.9/token", ""},
		{"http://localhost:9000/token", ""},
		{"http://[::1]:9000/token", ""},
		{"http://evil.invalid/token", `is plain http to evil.invalid, which is not this machine`},
		{"http://10.0.0.1/token", `is plain http to 10.0.0.1`},
		{"http://127.0.0.1.evil.invalid/token", `is plain http to 127.0.0.1.evil.invalid`},
		{"ftp://as.example.com/token", `has scheme "ftp"`},
		{"https:///token", "names no host"},
	} {
		err := checkOAuthURL(tc.url, "the token_endpoint in the test")
		if tc.refused == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.url, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "the token_endpoint in the test") || !strings.Contains(err.Error(), oauthURLRule) {
			t.Errorf("%s: %v, want a refusal saying %q, where the URL came from and the rule", tc.url, err, tc.refused)
		}
	}
}

// metadataServer serves one MCP server's protected resource metadata and
// its authorization server's metadata on loopback; prm and meta edit
// them before they are sent. hits counts every request.
type metadataServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
	prm  func(*ProtectedResourceMetadata)
	meta func(*AuthServerMetadata)
}

func newMetadataServer(t *testing.T) *metadataServer {
	m := &metadataServer{prm: func(*ProtectedResourceMetadata) {}, meta: func(*AuthServerMetadata) {}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.hits = append(m.hits, r.URL.Path)
		m.mu.Unlock()
		base := m.srv.URL
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			prm := ProtectedResourceMetadata{Resource: base + "/mcp", AuthorizationServers: []string{base + "/as"}}
			m.prm(&prm)
			_ = json.NewEncoder(w).Encode(prm)
		case "/.well-known/oauth-authorization-server/as":
			meta := AuthServerMetadata{Issuer: base + "/as", AuthorizationEndpoint: base + "/as/authorize", TokenEndpoint: base + "/as/token", RegistrationEndpoint: base + "/as/register"}
			m.meta(&meta)
			_ = json.NewEncoder(w).Encode(meta)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func TestDiscoverAuthRefusesPlainHTTPToAnotherHostAndSaysWhereItCameFrom(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(m *metadataServer) (serverURL string, ch Challenge)
		url    string
		source func(m *metadataServer) string
	}{
		{"the authorization server the resource metadata names", func(m *metadataServer) (string, Challenge) {
			m.prm = func(p *ProtectedResourceMetadata) { p.AuthorizationServers = []string{"http://evil.invalid/as"} }
			return m.srv.URL + "/mcp", Challenge{}
		}, "http://evil.invalid/as", func(m *metadataServer) string {
			return "named by " + m.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		}},
		{"the resource_metadata of a challenge", func(m *metadataServer) (string, Challenge) {
			return m.srv.URL + "/mcp", Challenge{ResourceMetadata: "http://evil.invalid/.well-known/oauth-protected-resource"}
		}, "http://evil.invalid/.well-known/oauth-protected-resource", func(*metadataServer) string { return "the resource_metadata of the server's 401 challenge" }},
		{"the token endpoint", func(m *metadataServer) (string, Challenge) {
			m.meta = func(a *AuthServerMetadata) { a.TokenEndpoint = "http://evil.invalid/token" }
			return m.srv.URL + "/mcp", Challenge{}
		}, "http://evil.invalid/token", func(m *metadataServer) string {
			return "the token_endpoint in " + m.srv.URL + "/.well-known/oauth-authorization-server/as"
		}},
		{"the registration endpoint", func(m *metadataServer) (string, Challenge) {
			m.meta = func(a *AuthServerMetadata) { a.RegistrationEndpoint = "http://evil.invalid/register" }
			return m.srv.URL + "/mcp", Challenge{}
		}, "http://evil.invalid/register", func(m *metadataServer) string { return "the registration_endpoint in" }},
		{"the server itself", func(*metadataServer) (string, Challenge) {
			return "http://evil.invalid/mcp", Challenge{}
		}, "http://evil.invalid/mcp", func(*metadataServer) string { return "the server's url" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMetadataServer(t)
			serverURL, ch := tc.edit(m)
			d, err := DiscoverAuth(context.Background(), m.srv.Client(), serverURL, ch)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q, is plain http to evil.invalid", tc.url)) || !strings.Contains(err.Error(), tc.source(m)) {
				t.Fatalf("DiscoverAuth = %+v, %v; want %s refused, saying where it came from (%q)", d, err, tc.url, tc.source(m))
			}
		})
	}
}

func TestClientSecretIsNotSentToAPlainHTTPTokenEndpoint(t *testing.T) {
	m := newMetadataServer(t)
	m.meta = func(a *AuthServerMetadata) { a.TokenEndpoint = "http://evil.invalid/token" }
	sc := ServerConfig{Name: "m", Transport: TransportHTTP, URL: m.srv.URL + "/mcp", OAuth: &OAuthSettings{Grant: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret"}}
	a := newAuthorizer(context.Background(), sc, OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json"))})
	a.mu.Lock()
	err := a.loginLocked(context.Background(), Challenge{}, "")
	a.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), `"http://evil.invalid/token", is plain http`) {
		t.Fatalf("login = %v, want the token endpoint refused before the secret is sent", err)
	}
}

func TestTokenRequestDoesNotFollowARedirectToPlainHTTP(t *testing.T) {
	m := newMetadataServer(t)
	var mu sync.Mutex
	posted := 0
	inner := m.srv.Config.Handler
	m.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/as/token" {
			inner.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		posted++
		mu.Unlock()
		// 307 makes a client resend the POST body, the secret with it.
		http.Redirect(w, r, "http://evil.invalid/token", http.StatusTemporaryRedirect)
	})
	sc := ServerConfig{Name: "m", Transport: TransportHTTP, URL: m.srv.URL + "/mcp", OAuth: &OAuthSettings{Grant: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret"}}
	a := newAuthorizer(context.Background(), sc, OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json"))})
	a.mu.Lock()
	err := a.loginLocked(context.Background(), Challenge{}, "")
	a.mu.Unlock()
	want := fmt.Sprintf(`a redirect from %s/as/token, "http://evil.invalid/token", is plain http`, m.srv.URL)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("login = %v, want the redirect refused: %s", err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if posted != 1 {
		t.Fatalf("%d token requests at the loopback endpoint, want 1", posted)
	}
}
