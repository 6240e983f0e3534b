package mcp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// DPoP (RFC 9449, the MCP DPoP extension): howl proves possession of a key
// with each token request and each MCP request, so a stolen access token is
// useless without the key. The key is an ES256 (P-256) key made for one
// server at its first DPoP login and kept with that server's token in the
// token store (0600), because the token is bound to it.

// dpopAlg is the one proof algorithm howl signs with.
const dpopAlg = "ES256"

// dpopWanted reports whether a login to this authorization server should
// ask for a DPoP-bound token: the server advertises ES256 proofs (RFC 9449
// §5.1), and the entry does not say "dpop": false.
func dpopWanted(s OAuthSettings, m AuthServerMetadata) bool {
	if s.DPoP != nil && !*s.DPoP {
		return false
	}
	return slices.Contains(m.DPoPSigningAlgValuesSupported, dpopAlg)
}

// dpopKey signs DPoP proofs with one server's key and remembers the latest
// nonce each of its two servers (authorization and resource) asked for.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	sig  jose.Signer

	mu               sync.Mutex
	asNonce, rsNonce string
}

// newDPoPKey makes a fresh P-256 key.
func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key: %w", err)
	}
	return dpopFromKey(priv)
}

func dpopFromKey(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: priv}, opts)
	if err != nil {
		return nil, fmt.Errorf("DPoP signer: %w", err)
	}
	return &dpopKey{priv: priv, sig: sig}, nil
}

// loadDPoPKey reads a key stored by marshal (a private JWK).
func loadDPoPKey(stored string) (*dpopKey, error) {
	var jwk jose.JSONWebKey
	if err := json.Unmarshal([]byte(stored), &jwk); err != nil {
		return nil, fmt.Errorf("the stored DPoP key is not a JWK (%v): log in again with howl auth", err)
	}
	priv, ok := jwk.Key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("the stored DPoP key is not a P-256 private key: log in again with howl auth")
	}
	return dpopFromKey(priv)
}

// marshal is the private JWK the token store keeps.
func (k *dpopKey) marshal() string {
	b, _ := json.Marshal(jose.JSONWebKey{Key: k.priv, Algorithm: dpopAlg, Use: "sig"})
	return string(b)
}

// proof signs a DPoP proof for one request: its method and URL (without
// query or fragment, RFC 9449 §4.2), the access token's hash when one is
// presented (ath), and the server's nonce when it asked for one.
func (k *dpopKey) proof(method, target, accessToken, nonce string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("DPoP proof for %q: %w", target, err)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	claims := map[string]any{
		"jti": randomToken(18),
		"htm": method,
		"htu": u.String(),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	payload, _ := json.Marshal(claims)
	jws, err := k.sig.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("signing a DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

func (k *dpopKey) nonce(rs bool) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if rs {
		return k.rsNonce
	}
	return k.asNonce
}

// noteNonce keeps the DPoP-Nonce a response carries (either server may
// send a fresh one with any answer, RFC 9449 §8-9). It reports whether the
// nonce changed.
func (k *dpopKey) noteNonce(rs bool, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if n == "" || len(n) > MaxDPoPNonceBytes {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	p := &k.asNonce
	if rs {
		p = &k.rsNonce
	}
	changed := *p != n
	*p = n
	return changed
}

// MaxDPoPNonceBytes bounds a server's DPoP nonce howl keeps and echoes.
const MaxDPoPNonceBytes = 1024

// sign puts a DPoP proof on a request to the resource server and presents
// the token with the DPoP scheme.
func (k *dpopKey) sign(r *http.Request, accessToken string) error {
	p, err := k.proof(r.Method, r.URL.String(), accessToken, k.nonce(true))
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "DPoP "+accessToken)
	r.Header.Set("DPoP", p)
	return nil
}

// isDPoPNonceChallenge reports whether a resource server's 401 asks for
// a fresh proof with its nonce (RFC 9449 §9): error="use_dpop_nonce" in a
// DPoP challenge, with the nonce in DPoP-Nonce.
func isDPoPNonceChallenge(resp *http.Response) bool {
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("DPoP-Nonce") == "" {
		return false
	}
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "dpop") && parseAuthParams(v)["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}
