package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestTokenStoreWritesMode0600AndRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "tokens.json")
	s := NewTokenStore(path)
	want := StoredToken{AccessToken: "a", RefreshToken: "r", Expiry: time.Now().Add(time.Hour).Round(time.Second), ClientID: "c"}
	if err := s.Put("https://x/mcp", want); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if modesApply && st.Mode().Perm() != TokenFileMode {
		t.Fatalf("token file mode = %v, want %v", st.Mode().Perm(), os.FileMode(TokenFileMode))
	}
	got, ok, err := NewTokenStore(path).Get("https://x/mcp")
	if err != nil || !ok || got.AccessToken != "a" || got.RefreshToken != "r" || !got.Expiry.Equal(want.Expiry) {
		t.Fatalf("Get = %+v %v %v, want %+v", got, ok, err, want)
	}
	if err := s.Delete("https://x/mcp"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("https://x/mcp"); ok {
		t.Fatal("token still there after Delete")
	}
}

func TestDefaultTokenPathHonoursHowlConfigDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "howl-x")
	t.Setenv("HOWL_CONFIG_DIR", dir)
	if got, err := DefaultTokenPath(); got != filepath.Join(dir, "tokens.json") || err != nil {
		t.Fatalf("DefaultTokenPath = %q, %v", got, err)
	}
}

func TestPKCEChallengeIsS256OfVerifier(t *testing.T) {
	v, c := NewPKCE()
	if len(v) < 43 || len(v) > 128 {
		t.Fatalf("verifier length %d outside RFC 7636's 43..128", len(v))
	}
	sum := sha256.Sum256([]byte(v))
	if c != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Fatal("challenge is not BASE64URL(SHA256(verifier))")
	}
	if v2, _ := NewPKCE(); v2 == v {
		t.Fatal("two verifiers are equal")
	}
}

func TestParseChallengeReadsQuotedParameters(t *testing.T) {
	c := ParseChallenge([]string{`Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", error_description="a, b"`})
	if c.Error != "insufficient_scope" || c.Scope != "mcp:basic mcp:write" || c.ResourceMetadata != "http://h/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("ParseChallenge = %+v", c)
	}
}

// authFixture is an MCP server behind bearer auth plus its authorization
// server (path-based issuer /as), all on one httptest server.
type authFixture struct {
	srv       *httptest.Server
	mu        sync.Mutex
	valid     map[string]bool
	challenge string
	grants    []string // grant types the token endpoint saw
	scopes    []string // scope of each authorization request
	expiresIn int
	n         int
	// authEndpoint replaces the metadata's authorization_endpoint when set.
	authEndpoint string
	// metaIssuer replaces the metadata's issuer when set; issSupported
	// advertises iss in authorization responses; iss, when set, is the
	// iss the authorization response carries.
	metaIssuer   string
	issSupported bool
	iss          string
	// registrations are the bodies of the registration requests.
	registrations []map[string]any
	// dpop advertises DPoP (ES256 proofs) in the metadata.
	dpop bool
	// resource, when set, is the resource authorization requests must
	// name (default: this server's /mcp).
	resource string
}

func newAuthFixture(t *testing.T) *authFixture {
	f := &authFixture{valid: map[string]bool{}, expiresIn: 3600}
	ms := server.NewMCPServer("authed", "1.0.0", server.WithToolCapabilities(false))
	ms.AddTool(mcpgo.NewTool("whoami"), func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("you"), nil
	})
	mcpH := server.NewStreamableHTTPServer(ms, server.WithStateLess(true))
	mux := http.NewServeMux()
	base := func() string { return f.srv.URL }
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		ok := f.valid[tok]
		f.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer scope="mcp:basic", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, base()))
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		mcpH.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(ProtectedResourceMetadata{Resource: base() + "/mcp", AuthorizationServers: []string{base() + "/as"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, r *http.Request) {
		authorize := base() + "/as/authorize"
		if f.authEndpoint != "" {
			authorize = f.authEndpoint
		}
		issuer := base() + "/as"
		if f.metaIssuer != "" {
			issuer = f.metaIssuer
		}
		_ = json.NewEncoder(w).Encode(AuthServerMetadata{
			Issuer: issuer, AuthorizationEndpoint: authorize, TokenEndpoint: base() + "/as/token",
			RegistrationEndpoint: base() + "/as/register", TokenEndpointAuthMethodsSupported: []string{"none"},
			CodeChallengeMethodsSupported: []string{"S256"}, IssParameterSupported: f.issSupported,
			DPoPSigningAlgValuesSupported: map[bool][]string{true: {"ES256"}}[f.dpop],
		})
	})
	mux.HandleFunc("/as/register", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.registrations = append(f.registrations, body)
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"client_id":"client-1"}`))
	})
	mux.HandleFunc("/as/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		resource := base() + "/mcp"
		if f.resource != "" {
			resource = f.resource
		}
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "client-1" || q.Get("resource") != resource {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.challenge = q.Get("code_challenge")
		f.scopes = append(f.scopes, q.Get("scope"))
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := to.Query()
		v.Set("code", "code-1")
		v.Set("state", q.Get("state"))
		if f.iss != "" {
			v.Set("iss", f.iss)
		}
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/as/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		g := r.PostForm.Get("grant_type")
		f.grants = append(f.grants, g)
		switch g {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge || r.PostForm.Get("code") != "code-1" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		case "refresh_token":
			if !strings.HasPrefix(r.PostForm.Get("refresh_token"), "refresh-") {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		f.n++
		tok := fmt.Sprintf("token-%d", f.n)
		f.valid[tok] = true
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": f.expiresIn, "refresh_token": fmt.Sprintf("refresh-%d", f.n)})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *authFixture) config() *Config {
	return &Config{Servers: []ServerConfig{{Name: "authed", Transport: TransportHTTP, URL: f.srv.URL + "/mcp", Era: EraLegacy, StartTimeout: 20 * time.Second}}}
}

// followRedirects is a headless browser: it follows the authorization
// server's redirect to howl's loopback callback.
func followRedirects(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func startAndWait(t *testing.T, rt *Runtime) Status {
	t.Helper()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	return waitAuthed(t, rt)
}

// waitAuthed waits until every server settles (30 s at most) and returns
// the fixture server's status.
func waitAuthed(t *testing.T, rt *Runtime) Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ := rt.ServerStatus("authed")
	return st
}

func TestRemoteServerWithoutLoginIsAuthRequiredWithTheFix(t *testing.T) {
	f := newAuthFixture(t)
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))}})
	defer rt.Close()
	st := startAndWait(t, rt)
	if st.State != StateAuthRequired || !strings.Contains(st.Reason, "run howl auth authed") {
		t.Fatalf("status = %s %q, want auth-required naming howl auth authed", st.State, st.Reason)
	}
	if _, err := rt.Conn("authed"); err == nil || !strings.Contains(err.Error(), "howl auth authed") {
		t.Fatalf("Conn error = %v", err)
	}
}

func TestLoginDiscoversRegistersUsesPKCEAndStoresTheToken(t *testing.T) {
	f := newAuthFixture(t)
	store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store, Login: true, OpenURL: followRedirects}})
	st := startAndWait(t, rt)
	if st.State != StateReady {
		rt.Close()
		t.Fatalf("status = %s %q, want ready after the login", st.State, st.Reason)
	}
	conn, _ := rt.Conn("authed")
	if raw, err := conn.CallRaw(context.Background(), "whoami", nil); err != nil || !strings.Contains(string(raw), "you") {
		t.Fatalf("call after login = %s, %v", raw, err)
	}
	rt.Close()
	tok, ok, err := store.Get(f.srv.URL + "/mcp")
	if err != nil || !ok || tok.AccessToken != "token-1" || tok.Scope != "mcp:basic" || tok.ClientID != "client-1" {
		t.Fatalf("stored token = %+v %v %v", tok, ok, err)
	}
	if fi, _ := os.Stat(store.Path()); modesApply && fi.Mode().Perm() != TokenFileMode {
		t.Fatalf("token file mode %v", fi.Mode().Perm())
	}

	// A later runtime, not allowed to log in, uses the stored token.
	rt2 := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store}})
	defer rt2.Close()
	if st := startAndWait(t, rt2); st.State != StateReady {
		t.Fatalf("with a stored token: %s %q", st.State, st.Reason)
	}
	if f.scopes[0] != "mcp:basic" {
		t.Fatalf("authorization scope = %q, want the challenge's mcp:basic", f.scopes[0])
	}
}

func TestExpiredTokenIsRefreshedWithoutALogin(t *testing.T) {
	f := newAuthFixture(t)
	f.expiresIn = 1 // within the 30 s margin: expired at once
	store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store, Login: true, OpenURL: followRedirects}})
	if st := startAndWait(t, rt); st.State != StateReady {
		rt.Close()
		t.Fatalf("login: %s %q", st.State, st.Reason)
	}
	rt.Close()
	rt2 := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store}})
	defer rt2.Close()
	if st := startAndWait(t, rt2); st.State != StateReady {
		t.Fatalf("refresh: %s %q", st.State, st.Reason)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.grants) < 2 || f.grants[0] != "authorization_code" || f.grants[1] != "refresh_token" {
		t.Fatalf("grants = %v, want a code grant then a refresh", f.grants)
	}
	tok, _, _ := store.Get(f.srv.URL + "/mcp")
	if tok.RefreshToken == "" || tok.AccessToken == "token-1" {
		t.Fatalf("stored token after refresh = %+v", tok)
	}
}

func TestDiscoverAuthRefusesMetadataForAnotherResource(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"resource":"https://evil.example.com/mcp","authorization_servers":["https://evil.example.com"]}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, err := DiscoverAuth(context.Background(), srv.Client(), srv.URL+"/mcp", Challenge{})
	if err == nil || !strings.Contains(err.Error(), "refusing to authorize") {
		t.Fatalf("DiscoverAuth = %v, want a refusal", err)
	}
}

func TestDiscoverAuthFallsBackToDefaultEndpoints(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	d, err := DiscoverAuth(context.Background(), srv.Client(), srv.URL+"/mcp", Challenge{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Fallback || d.Metadata.TokenEndpoint != srv.URL+"/token" || d.Resource != nil {
		t.Fatalf("discovery = %+v", d)
	}
}

func TestSelectScopeFollowsTheMCPStrategy(t *testing.T) {
	d := &AuthDiscovery{Resource: &ProtectedResourceMetadata{ScopesSupported: []string{"a", "b"}}, Metadata: AuthServerMetadata{ScopesSupported: []string{"a", "offline_access"}}}
	for _, tc := range []struct {
		ch         Challenge
		prev, want string
		d          *AuthDiscovery
	}{
		{Challenge{Scope: "x"}, "", "x offline_access", d},
		{Challenge{}, "", "a b offline_access", d},
		{Challenge{Scope: "a w"}, "a", "a w offline_access", d},
		{Challenge{}, "", "", &AuthDiscovery{}},
	} {
		if got := selectScope(tc.ch, tc.d, nil, tc.prev); got != tc.want {
			t.Errorf("selectScope(%+v, prev %q) = %q, want %q", tc.ch, tc.prev, got, tc.want)
		}
	}
}
