package mcp

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// dpopJudge checks DPoP proofs the way an authorization server and a
// resource server do (RFC 9449 §4.3), and demands a nonce from each.
type dpopJudge struct {
	mu                   sync.Mutex
	bound                map[string]string // access token -> key thumbprint
	jtis                 map[string]bool
	asChallenges, rsDone int
	rsChallenges         int
	bearerUsed           bool
	errs                 []string
}

// check verifies one proof and returns its key's thumbprint and nonce.
func (j *dpopJudge) check(proof, method, htu, token string) (jkt, nonce string, err error) {
	jws, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(jws.Signatures) != 1 {
		return "", "", fmt.Errorf("not a compact ES256 JWS: %v", err)
	}
	h := jws.Signatures[0].Header
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", "", fmt.Errorf("header typ %v, jwk %v: want dpop+jwt and a public jwk", h.ExtraHeaders["typ"], h.JSONWebKey)
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", "", fmt.Errorf("signature: %v", err)
	}
	var c struct {
		JTI, HTM, HTU, ATH, Nonce string
		IAT                       int64
	}
	_ = json.Unmarshal(payload, &c)
	switch {
	case c.HTM != method || c.HTU != htu:
		return "", "", fmt.Errorf("htm %q htu %q, want %s %s", c.HTM, c.HTU, method, htu)
	case time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute:
		return "", "", fmt.Errorf("iat %d is not now", c.IAT)
	case c.JTI == "":
		return "", "", errors.New("no jti")
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", "", errors.New("ath is not the token's hash")
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.jtis[c.JTI] {
		return "", "", errors.New("a proof was sent twice (same jti)")
	}
	j.jtis[c.JTI] = true
	tp, _ := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp), c.Nonce, nil
}

func (j *dpopJudge) fail(format string, a ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.errs = append(j.errs, fmt.Sprintf(format, a...))
}

// guard puts the judge in front of f's token endpoint and MCP endpoint.
func (j *dpopJudge) guard(f *authFixture) {
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/as/token":
			jkt, nonce, err := j.check(r.Header.Get("DPoP"), http.MethodPost, f.srv.URL+"/as/token", "")
			if err != nil {
				j.fail("token request proof: %v", err)
				http.Error(w, `{"error":"invalid_dpop_proof"}`, http.StatusBadRequest)
				return
			}
			if nonce != "as-nonce" {
				j.mu.Lock()
				j.asChallenges++
				j.mu.Unlock()
				w.Header().Set("DPoP-Nonce", "as-nonce")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
				return
			}
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			var tok map[string]any
			if json.Unmarshal(rec.Body.Bytes(), &tok) != nil || rec.Code != http.StatusOK {
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			tok["token_type"] = "DPoP"
			j.mu.Lock()
			j.bound[fmt.Sprint(tok["access_token"])] = jkt
			j.mu.Unlock()
			_ = json.NewEncoder(w).Encode(tok)
			return
		case "/mcp":
			auth := r.Header.Get("Authorization")
			if tok, ok := strings.CutPrefix(auth, "Bearer "); ok {
				j.mu.Lock()
				_, isBound := j.bound[tok]
				j.bearerUsed = j.bearerUsed || isBound
				j.mu.Unlock()
			}
			if tok, ok := strings.CutPrefix(auth, "DPoP "); ok {
				jkt, nonce, err := j.check(r.Header.Get("DPoP"), r.Method, f.srv.URL+"/mcp", tok)
				j.mu.Lock()
				want := j.bound[tok]
				j.mu.Unlock()
				if err == nil && jkt != want {
					err = errors.New("the proof's key is not the key the token is bound to")
				}
				if err != nil {
					j.fail("%s request proof: %v", r.Method, err)
					w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof"`)
					http.Error(w, "bad proof", http.StatusUnauthorized)
					return
				}
				if nonce != "rs-nonce" {
					j.mu.Lock()
					j.rsChallenges++
					j.mu.Unlock()
					w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="a nonce is required"`)
					w.Header().Set("DPoP-Nonce", "rs-nonce")
					http.Error(w, `{"error":"use_dpop_nonce"}`, http.StatusUnauthorized)
					return
				}
				j.mu.Lock()
				j.rsDone++
				j.mu.Unlock()
				r.Header.Set("Authorization", "Bearer "+tok)
			}
		}
		inner.ServeHTTP(w, r)
	})
}

func TestDPoPRoundTripBindsTheTokenToAKeyKeptWithIt(t *testing.T) {
	f := newAuthFixture(t)
	f.dpop = true
	j := &dpopJudge{bound: map[string]string{}, jtis: map[string]bool{}}
	j.guard(f)
	store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store, Login: true, OpenURL: followRedirects}})
	if st := startAndWait(t, rt); st.State != StateReady {
		rt.Close()
		t.Fatalf("status = %s %q, errors %v", st.State, st.Reason, j.errs)
	}
	conn, _ := rt.Conn("authed")
	if raw, err := conn.CallRaw(context.Background(), "whoami", nil); err != nil || !strings.Contains(string(raw), "you") {
		rt.Close()
		t.Fatalf("call = %s, %v", raw, err)
	}
	rt.Close()
	j.mu.Lock()
	if len(j.errs) > 0 || j.bearerUsed || j.asChallenges != 1 || j.rsChallenges != 1 || j.rsDone < 2 {
		t.Fatalf("judge: errors %v, bearer used %v, AS nonce challenges %d, RS nonce challenges %d, good requests %d; want no errors, no bearer, one challenge each (the nonce then kept), requests through",
			j.errs, j.bearerUsed, j.asChallenges, j.rsChallenges, j.rsDone)
	}
	j.mu.Unlock()

	// The key lives with the token, in the 0600 store, and a later run uses both.
	tok, ok, err := store.Get(f.srv.URL + "/mcp")
	if err != nil || !ok || !tok.dpopBound() || !strings.Contains(tok.DPoPKey, `"d":`) {
		t.Fatalf("stored token = %+v %v %v, want a DPoP token with its private key", tok, ok, err)
	}
	if fi, _ := os.Stat(store.Path()); runtime.GOOS != "windows" && fi.Mode().Perm() != TokenFileMode { // Windows has ACLs, not modes
		t.Fatalf("token file mode %v", fi.Mode().Perm())
	}
	rt2 := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store}})
	defer rt2.Close()
	if st := startAndWait(t, rt2); st.State != StateReady {
		t.Fatalf("with the stored DPoP token: %s %q, errors %v", st.State, st.Reason, j.errs)
	}
}

func TestDPoPOffInTheConfigKeepsBearerTokens(t *testing.T) {
	f := newAuthFixture(t)
	f.dpop = true
	off := false
	cfg := f.config()
	cfg.Servers[0].OAuth = &OAuthSettings{DPoP: &off}
	store := NewTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	rt := NewRuntime(cfg, RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{Store: store, Login: true, OpenURL: followRedirects}})
	defer rt.Close()
	if st := startAndWait(t, rt); st.State != StateReady {
		t.Fatalf("status = %s %q", st.State, st.Reason)
	}
	if tok, _, _ := store.Get(f.srv.URL + "/mcp"); tok.DPoPKey != "" || tok.dpopBound() {
		t.Fatalf("stored token %+v: want a bearer token and no key", tok)
	}
}

func TestDPoPNonceIsKeptOnlyWithinItsBound(t *testing.T) {
	k, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("DPoP-Nonce", strings.Repeat("n", MaxDPoPNonceBytes+1))
	if k.noteNonce(true, h) || k.nonce(true) != "" {
		t.Fatalf("a nonce over MaxDPoPNonceBytes was kept")
	}
	// The proof's htu leaves out the query and fragment (RFC 9449 §4.2).
	p, _ := k.proof("GET", "https://h/mcp?x=1#f", "", "")
	jws, _ := jose.ParseSignedCompact(p, []jose.SignatureAlgorithm{jose.ES256})
	payload, _ := jws.Verify(jws.Signatures[0].Header.JSONWebKey)
	if !bytes.Contains(payload, []byte(`"htu":"https://h/mcp"`)) {
		t.Fatalf("proof claims %s: want htu without query or fragment", payload)
	}
}
