package mcp

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestClientAssertionIsAnES256JWTTheKeyVerifies(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	jwt, err := clientAssertion(pemKey, "client-9", "https://as.example")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", jwt)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(&key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the signature does not verify with the key")
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	if claims["iss"] != "client-9" || claims["sub"] != "client-9" || claims["aud"] != "https://as.example" || claims["jti"] == "" {
		t.Fatalf("claims = %v", claims)
	}
	if _, err := clientAssertion("not pem", "c", "a"); err == nil || !strings.Contains(err.Error(), "PKCS#8") {
		t.Fatalf("bad key: %v", err)
	}
}

func TestStepUpAsksForTheWiderScopeOnceAndThenCalls(t *testing.T) {
	f := newAuthFixture(t)
	var mu sync.Mutex
	scopes := map[string]string{}
	authReqs := 0
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/as/authorize":
			mu.Lock()
			authReqs++
			mu.Unlock()
		case "/as/token":
			// Remember the scope granted with the next token.
			f.mu.Lock()
			next := fmt.Sprintf("token-%d", f.n+1)
			f.mu.Unlock()
			mu.Lock()
			scopes[next] = f.lastScope()
			mu.Unlock()
		case "/mcp":
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			var body struct {
				Method string `json:"method"`
			}
			if r.Method == http.MethodPost {
				data, _ := readAllAndRestore(r)
				_ = json.Unmarshal(data, &body)
			}
			mu.Lock()
			granted := scopes[tok]
			mu.Unlock()
			if body.Method == "tools/call" && tok != "" && !strings.Contains(granted, "mcp:write") {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.srv.URL))
				http.Error(w, `{"error":"insufficient_scope"}`, http.StatusForbidden)
				return
			}
		}
		inner.ServeHTTP(w, r)
	})
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json")), Login: true, OpenURL: followRedirects}})
	defer rt.Close()
	if st := startAndWait(t, rt); st.State != StateReady {
		t.Fatalf("%s %q", st.State, st.Reason)
	}
	conn, _ := rt.Conn("authed")
	if raw, err := conn.CallRaw(context.Background(), "whoami", nil); err != nil || !strings.Contains(string(raw), "you") {
		t.Fatalf("call after step-up = %s, %v", raw, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if authReqs != 2 {
		t.Fatalf("%d authorization requests, want the first login and one step-up", authReqs)
	}
	if got := f.scopes[1]; got != "mcp:basic mcp:write" {
		t.Fatalf("step-up scope = %q, want mcp:basic mcp:write", got)
	}
}

func (f *authFixture) lastScope() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.scopes) == 0 {
		return ""
	}
	return f.scopes[len(f.scopes)-1]
}

func readAllAndRestore(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	return data, err
}

func TestClientCredentialsNeedsNoBrowser(t *testing.T) {
	var mu sync.Mutex
	var sawBasic bool
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"token_endpoint_auth_methods_supported":["client_secret_basic"]}`, srv.URL, srv.URL+"/authorize", srv.URL+"/token")
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		mu.Lock()
		sawBasic = ok && id == "machine" && secret == "s3cret" && r.PostForm.Get("grant_type") == "client_credentials"
		mu.Unlock()
		fmt.Fprint(w, `{"access_token":"cc","token_type":"Bearer"}`)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	sc := ServerConfig{Name: "m", Transport: TransportHTTP, URL: srv.URL + "/mcp", OAuth: &OAuthSettings{Grant: GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret"}}
	a := newAuthorizer(context.Background(), sc, OAuthOptions{Store: NewTokenStore(filepath.Join(t.TempDir(), "t.json"))})
	a.mu.Lock()
	err := a.loginLocked(context.Background(), Challenge{}, "")
	a.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !sawBasic || a.tok == nil || a.tok.AccessToken != "cc" {
		t.Fatalf("basic auth seen %v, token %+v", sawBasic, a.tok)
	}
}
