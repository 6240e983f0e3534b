package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// loginRuntime starts f's server in a runtime allowed to log in through a
// headless browser, and returns its status once settled.
func loginRuntime(t *testing.T, f *authFixture) (*Runtime, Status) {
	t.Helper()
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "tokens.json")), Login: true, OpenURL: followRedirects}})
	t.Cleanup(func() { rt.Close() })
	return rt, startAndWait(t, rt)
}

func TestLoginChecksTheIssuerOfTheAuthorizationResponse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		supported bool
		iss       func(f *authFixture) string // "" leaves iss out
		refused   string                      // "" means the login works
	}{
		{"the right iss is accepted", true, func(f *authFixture) string { return f.srv.URL + "/as" }, ""},
		{"no iss from a server that does not promise one is accepted", false, nil, ""},
		{"another issuer is refused", true, func(*authFixture) string { return "https://evil.example.com" }, `came back from issuer "https://evil.example.com", not http://127.0.0.1`},
		{"another issuer is refused even when none was promised", false, func(*authFixture) string { return "https://evil.example.com" }, "RFC 9207"},
		{"a missing iss that was promised is refused", true, nil, "without the iss"},
		{"a trailing slash is another issuer: no normalization", true, func(f *authFixture) string { return f.srv.URL + "/as/" }, "RFC 9207"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newAuthFixture(t)
			f.issSupported = tc.supported
			if tc.iss != nil {
				f.iss = tc.iss(f)
			}
			rt, st := loginRuntime(t, f)
			if tc.refused == "" {
				if st.State != StateReady {
					t.Fatalf("status = %s %q, want ready", st.State, st.Reason)
				}
				return
			}
			if st.State != StateAuthRequired || !strings.Contains(st.Reason, tc.refused) || !strings.Contains(st.Reason, "run howl auth authed") {
				t.Fatalf("status = %s %q, want auth-required saying %q and the fix", st.State, st.Reason, tc.refused)
			}
			f.mu.Lock()
			grants := len(f.grants)
			f.mu.Unlock()
			if grants != 0 {
				t.Fatalf("the code of a refused response was exchanged (%d token requests)", grants)
			}
			// What a person sees when they use the server says why.
			if _, err := rt.Conn("authed"); err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("Conn error = %v, want the refusal's reason", err)
			}
		})
	}
}

func TestDiscoverAuthRefusesMetadataNamingAnotherIssuer(t *testing.T) {
	f := newAuthFixture(t)
	f.metaIssuer = "https://attacker.example.com"
	_, err := DiscoverAuth(context.Background(), f.srv.Client(), f.srv.URL+"/mcp", Challenge{})
	if err == nil || !strings.Contains(err.Error(), `names another issuer, "https://attacker.example.com": not used`) {
		t.Fatalf("DiscoverAuth = %v, want the metadata refused", err)
	}
	f.metaIssuer = f.srv.URL + "/as/" // the same issuer, written with a slash: the same well-known URL
	if _, err := DiscoverAuth(context.Background(), f.srv.Client(), f.srv.URL+"/mcp", Challenge{}); err != nil {
		t.Fatalf("a trailing slash in the metadata's issuer: %v", err)
	}
}

func TestDynamicRegistrationSaysHowlIsANativeApplication(t *testing.T) {
	f := newAuthFixture(t)
	if _, st := loginRuntime(t, f); st.State != StateReady {
		t.Fatalf("status = %s %q", st.State, st.Reason)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.registrations) != 1 || f.registrations[0]["application_type"] != "native" {
		t.Fatalf("registrations = %v, want one with application_type native", f.registrations)
	}
}

func TestServerMovingToAnotherAuthorizationServerRegistersThereAnew(t *testing.T) {
	f, g := newAuthFixture(t), newAuthFixture(t) // f: the MCP server and its first AS; g: the next AS
	g.resource = f.srv.URL + "/mcp"
	var mu sync.Mutex
	moved := false
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		m := moved
		mu.Unlock()
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			if m {
				_ = json.NewEncoder(w).Encode(ProtectedResourceMetadata{Resource: f.srv.URL + "/mcp", AuthorizationServers: []string{g.srv.URL + "/as"}})
				return
			}
		case "/mcp":
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			g.mu.Lock()
			fromG := g.valid[tok]
			g.mu.Unlock()
			f.mu.Lock()
			switch {
			case m:
				// Only the new authorization server's tokens count now.
				f.valid = map[string]bool{tok: fromG}
			case f.valid[tok]:
				mu.Lock()
				moved = true // after this request
				mu.Unlock()
			}
			f.mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	})
	rt, st := loginRuntime(t, f)
	if st.State != StateReady {
		t.Fatalf("status = %s %q", st.State, st.Reason)
	}
	conn, _ := rt.Conn("authed")
	if raw, err := conn.CallRaw(context.Background(), "whoami", nil); err != nil || !strings.Contains(string(raw), "you") {
		t.Fatalf("call after the move = %s, %v", raw, err)
	}
	f.mu.Lock()
	g.mu.Lock()
	defer f.mu.Unlock()
	defer g.mu.Unlock()
	if len(f.registrations) != 1 || len(g.registrations) != 1 {
		t.Fatalf("registrations: %d at the first authorization server, %d at the next; want one at each", len(f.registrations), len(g.registrations))
	}
}

func TestJWTBearerGrantPresentsTheWorkloadTokenOnce(t *testing.T) {
	for _, accept := range []bool{true, false} {
		t.Run(fmt.Sprintf("accepted=%v", accept), func(t *testing.T) {
			f := newAuthFixture(t)
			var mu sync.Mutex
			var seen []string
			inner := f.srv.Config.Handler
			f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/as/token" {
					inner.ServeHTTP(w, r)
					return
				}
				_ = r.ParseForm()
				mu.Lock()
				seen = append(seen, r.PostForm.Get("grant_type")+" "+r.PostForm.Get("assertion")+" "+r.PostForm.Get("client_id"))
				mu.Unlock()
				if !accept {
					http.Error(w, `{"error":"invalid_grant","error_description":"assertion expired"}`, http.StatusBadRequest)
					return
				}
				f.mu.Lock()
				f.valid["wif-token"] = true
				f.mu.Unlock()
				fmt.Fprint(w, `{"access_token":"wif-token","token_type":"Bearer","expires_in":3600}`)
			})
			jwtFile := filepath.Join(t.TempDir(), "token.jwt")
			if err := os.WriteFile(jwtFile, []byte("header.claims.sig\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := f.config()
			cfg.Servers[0].OAuth = &OAuthSettings{Grant: GrantJWTBearer, ClientID: "workload", AssertionFile: jwtFile}
			// Not allowed to log in with a browser: the grant needs none.
			rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json"))}})
			defer rt.Close()
			st := startAndWait(t, rt)
			mu.Lock()
			defer mu.Unlock()
			want := "urn:ietf:params:oauth:grant-type:jwt-bearer header.claims.sig workload"
			if len(seen) != 1 || seen[0] != want {
				t.Fatalf("token requests %q, want exactly one: %q", seen, want)
			}
			if accept && st.State != StateReady {
				t.Fatalf("status = %s %q, want ready", st.State, st.Reason)
			}
			if !accept && (st.State != StateAuthRequired || !strings.Contains(st.Reason, "assertion expired")) {
				t.Fatalf("status = %s %q, want auth-required with the server's reason", st.State, st.Reason)
			}
		})
	}
}

func TestClientSecretGoesToAMovedAuthorizationServerOnlyWhenThePersonLogsIn(t *testing.T) {
	f, g := newAuthFixture(t), newAuthFixture(t) // f: the MCP server and its first AS; g: the next AS
	var mu sync.Mutex
	moved := false
	secrets := map[*authFixture][]string{} // client id:secret each token endpoint saw
	issue := func(fx *authFixture, name string) http.Handler {
		inner := fx.srv.Config.Handler
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			m := moved
			mu.Unlock()
			switch {
			case fx == f && m && r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
				_ = json.NewEncoder(w).Encode(ProtectedResourceMetadata{Resource: f.srv.URL + "/mcp", AuthorizationServers: []string{g.srv.URL + "/as"}})
			case r.URL.Path == "/as/token":
				id, secret, _ := r.BasicAuth()
				mu.Lock()
				secrets[fx] = append(secrets[fx], id+":"+secret)
				mu.Unlock()
				f.mu.Lock()
				f.valid[name] = true // f is the MCP server: it takes either's token
				f.mu.Unlock()
				fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, name)
			default:
				inner.ServeHTTP(w, r)
			}
		})
	}
	f.srv.Config.Handler, g.srv.Config.Handler = issue(f, "from-f"), issue(g, "from-g")
	cfg := f.config()
	cfg.Servers[0].OAuth = &OAuthSettings{Grant: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret"}
	store := NewTokenStore(filepath.Join(t.TempDir(), "t.json"))
	newRuntime := func() *Runtime {
		// --login=auto: allowed to log in, but not asked to.
		rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store, Login: true}})
		t.Cleanup(func() { rt.Close() })
		return rt
	}
	if st := startAndWait(t, newRuntime()); st.State != StateReady {
		t.Fatalf("first login: %s %q", st.State, st.Reason)
	}

	// The server now names g, and f's token no longer works.
	mu.Lock()
	moved = true
	mu.Unlock()
	f.mu.Lock()
	f.valid = map[string]bool{}
	f.mu.Unlock()
	rt := newRuntime()
	st := startAndWait(t, rt)
	mu.Lock()
	atG := len(secrets[g])
	mu.Unlock()
	if atG != 0 {
		t.Fatalf("the client secret went to the new authorization server unasked (%d token requests)", atG)
	}
	for _, want := range []string{"now names authorization server " + g.srv.URL + "/as", "not " + f.srv.URL + "/as", "run howl auth authed", "oauth.clientSecret"} {
		if st.State != StateAuthRequired || !strings.Contains(st.Reason, want) {
			t.Fatalf("status = %s %q, want auth-required saying %q", st.State, st.Reason, want)
		}
	}

	// The person logs in (howl auth, the TUI's login): now it goes there.
	if err := rt.Login("authed"); err != nil {
		t.Fatal(err)
	}
	if st := waitAuthed(t, rt); st.State != StateReady {
		t.Fatalf("after the person's login: %s %q", st.State, st.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(secrets[g]) != 1 || secrets[g][0] != "machine:s3cret" {
		t.Fatalf("token requests at the new authorization server: %q, want one with the secret", secrets[g])
	}
}

func TestAuthorizationServerPinnedInTheConfigWinsOverTheServersMetadata(t *testing.T) {
	f, g := newAuthFixture(t), newAuthFixture(t) // f: the MCP server and the pinned AS; g: the AS its metadata names
	var mu sync.Mutex
	seen := map[*authFixture]int{} // token requests at each
	for _, fx := range []*authFixture{f, g} {
		inner := fx.srv.Config.Handler
		fx.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/.well-known/oauth-protected-resource/mcp":
				_ = json.NewEncoder(w).Encode(ProtectedResourceMetadata{Resource: f.srv.URL + "/mcp", AuthorizationServers: []string{g.srv.URL + "/as"}})
			case "/as/token":
				mu.Lock()
				seen[fx]++
				mu.Unlock()
				f.mu.Lock()
				f.valid["machine-token"] = true
				f.mu.Unlock()
				fmt.Fprint(w, `{"access_token":"machine-token","token_type":"Bearer","expires_in":3600}`)
			default:
				inner.ServeHTTP(w, r)
			}
		})
	}
	cfg := f.config()
	cfg.Servers[0].OAuth = &OAuthSettings{Grant: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret", AuthorizationServer: f.srv.URL + "/as"}
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json"))}})
	defer rt.Close()
	if st := startAndWait(t, rt); st.State != StateReady {
		t.Fatalf("status = %s %q, want ready", st.State, st.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[f] != 1 || seen[g] != 0 {
		t.Fatalf("token requests: %d at the pinned authorization server, %d at the one the metadata names; want 1 and 0", seen[f], seen[g])
	}
}

func TestPinnedAuthorizationServerPassesTheHTTPSRule(t *testing.T) {
	m := newMetadataServer(t)
	_, err := discoverAuth(context.Background(), m.srv.Client(), m.srv.URL+"/mcp", Challenge{}, "http://evil.invalid/as")
	if err == nil || !strings.Contains(err.Error(), `oauth.authorizationServer on the server's entry, "http://evil.invalid/as", is plain http`) {
		t.Fatalf("discovery = %v, want the pinned http URL refused, naming the setting", err)
	}
}
