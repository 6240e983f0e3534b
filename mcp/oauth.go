package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/howl-mcp/howl/render"
)

// OAuthSettings are the "oauth" keys of a url entry in the config. All are
// optional: with none, howl discovers the authorization server and
// registers itself (dynamic client registration).
type OAuthSettings struct {
	// ClientID and ClientSecret are a pre-registered client.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes are asked for on top of what the server's challenge names.
	Scopes []string `json:"scopes,omitempty"`
	// RedirectPort fixes the loopback callback port (some authorization
	// servers only accept a registered redirect URI); 0 picks a free one.
	RedirectPort int `json:"redirectPort,omitempty"`
	// ClientMetadataURL is an HTTPS URL of howl's client ID metadata
	// document: used as the client_id when the authorization server
	// supports client ID metadata documents.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Grant is "authorization_code" (default: a browser login) or
	// "client_credentials" (a machine client: needs ClientID and either
	// ClientSecret or PrivateKeyPEM).
	Grant string `json:"grant,omitempty"`
	// PrivateKeyPEM signs a private_key_jwt client assertion (ES256, PKCS#8).
	PrivateKeyPEM string `json:"privateKeyPem,omitempty"`
	// For grant "enterprise" (Enterprise-Managed Authorization, SEP-990):
	// the enterprise identity provider's ID token for the person, its token
	// endpoint (where the ID token is exchanged for an identity assertion
	// grant, ID-JAG) and howl's client id there.
	IDToken          string `json:"idToken,omitempty"`
	IdPTokenEndpoint string `json:"idpTokenEndpoint,omitempty"`
	IdPClientID      string `json:"idpClientId,omitempty"`
	// For grant "jwt_bearer" (RFC 7523, workload identity): the JWT howl
	// presents as its grant, given as is (Assertion, usually "${VAR}") or
	// read from a file at each token request (AssertionFile, for tokens a
	// platform rotates on disk).
	Assertion     string `json:"assertion,omitempty"`
	AssertionFile string `json:"assertionFile,omitempty"`
	// DPoP false keeps howl from asking for DPoP-bound tokens even when
	// the authorization server offers them (default: ask when offered).
	DPoP *bool `json:"dpop,omitempty"`
	// AuthorizationServer, when set, is the issuer howl logs in at,
	// whatever the server's metadata names: the server cannot move it.
	AuthorizationServer string `json:"authorizationServer,omitempty"`
}

// The OAuth grants howl can run.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantEnterprise exchanges an enterprise IdP's ID token for an ID-JAG
	// (RFC 8693) and the ID-JAG for an access token (RFC 7523 JWT bearer).
	GrantEnterprise = "enterprise"
	// GrantJWTBearer presents a workload's own JWT as the grant (RFC 7523,
	// workload identity federation).
	GrantJWTBearer = "jwt_bearer"
	// jwtBearerGrantType is the RFC 7523 grant_type both JWT grants send.
	jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// MaxAssertionBytes bounds the JWT howl reads from oauth.assertionFile.
const MaxAssertionBytes = 64 << 10

// assertion is the workload JWT for grant "jwt_bearer": oauth.assertion,
// else the current content of oauth.assertionFile.
func (s OAuthSettings) assertion() (string, error) {
	if s.Assertion != "" {
		return strings.TrimSpace(s.Assertion), nil
	}
	if s.AssertionFile == "" {
		return "", errors.New(`oauth.grant "jwt_bearer" needs oauth.assertion (the workload's JWT, e.g. "${TOKEN}") or oauth.assertionFile on the server's entry`)
	}
	f, err := os.Open(s.AssertionFile)
	if err != nil {
		return "", fmt.Errorf("oauth.assertionFile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAssertionBytes+1))
	if err != nil {
		return "", fmt.Errorf("oauth.assertionFile: %w", err)
	}
	if len(data) > MaxAssertionBytes {
		return "", fmt.Errorf("oauth.assertionFile %s is over %d bytes (MaxAssertionBytes): it should hold one JWT", s.AssertionFile, MaxAssertionBytes)
	}
	return strings.TrimSpace(string(data)), nil
}

// exchangeIDToken trades the configured ID token at the IdP for an
// identity assertion authorization grant aimed at the authorization server.
func exchangeIDToken(ctx context.Context, hc *http.Client, s OAuthSettings, audience, resource, scope string) (string, error) {
	if s.IDToken == "" || s.IdPTokenEndpoint == "" {
		return "", errors.New(`oauth.grant "enterprise" needs oauth.idToken and oauth.idpTokenEndpoint on the server's entry`)
	}
	if err := checkOAuthURL(s.IdPTokenEndpoint, "oauth.idpTokenEndpoint on the server's entry"); err != nil {
		return "", err
	}
	form := url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":        {s.IDToken},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
		"audience":             {audience},
		"resource":             {resource},
	}
	if s.IdPClientID != "" {
		form.Set("client_id", s.IdPClientID)
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.IdPTokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("token exchange at %s: %w", s.IdPTokenEndpoint, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var tr tokenResponse
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &tr) != nil || tr.AccessToken == "" {
		return "", fmt.Errorf("token exchange at %s: HTTP %d %s: check oauth.idToken (it may have expired)", s.IdPTokenEndpoint, resp.StatusCode, oneLine(string(data)))
	}
	return tr.AccessToken, nil
}

// DefaultLoginTimeout bounds how long howl waits for the browser to come
// back to its loopback callback.
const DefaultLoginTimeout = 5 * time.Minute

// maxStepUps bounds scope step-up logins per connection, so a server that
// keeps answering 403 insufficient_scope cannot loop howl forever.
const maxStepUps = 2

// OAuthOptions say how a Runtime logs in to remote servers that ask.
type OAuthOptions struct {
	// Store keeps tokens (DefaultTokenStore() when nil).
	Store *TokenStore
	// Login runs the browser login when a server asks for one. When false,
	// such a server ends in StateAuthRequired ("run howl auth <server>");
	// stored tokens are still used and refreshed.
	Login bool
	// OpenURL shows the authorization URL to the person (OpenBrowser when nil).
	OpenURL func(ctx context.Context, url string) error
	// Notice receives one-line messages for the person (the URL to open).
	Notice func(server, msg string)
	// LoginTimeout bounds the wait for the browser (DefaultLoginTimeout when zero).
	LoginTimeout time.Duration
	// AcceptMovedIssuer says the person asked for this login (howl auth,
	// the TUI's login): a server that now names another authorization
	// server than its stored login came from may be sent the entry's
	// client secret, key or assertion there. Without it such a login is
	// refused, since a moved server and a hijacked one look the same.
	AcceptMovedIssuer bool
}

// Challenge is a parsed WWW-Authenticate Bearer challenge.
type Challenge struct {
	Scope            string
	ResourceMetadata string
	Error            string
}

// ParseChallenge reads the Bearer parameters of WWW-Authenticate values.
func ParseChallenge(values []string) Challenge {
	var c Challenge
	for _, v := range values {
		params := parseAuthParams(v)
		if s, ok := params["scope"]; ok {
			c.Scope = s
		}
		if s, ok := params["resource_metadata"]; ok {
			c.ResourceMetadata = s
		}
		if s, ok := params["error"]; ok {
			c.Error = s
		}
	}
	return c
}

func parseAuthParams(h string) map[string]string {
	out := map[string]string{}
	s := strings.TrimSpace(h)
	if i := strings.IndexByte(s, ' '); i > 0 && !strings.Contains(s[:i], "=") {
		s = s[i+1:] // the scheme
	}
	for s != "" {
		s = strings.TrimLeft(s, " ,")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			break
		}
		key := strings.ToLower(strings.TrimSpace(s[:eq]))
		s = strings.TrimLeft(s[eq+1:], " ")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			val = b.String()
			if i < len(s) {
				i++
			}
			s = s[i:]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			val = strings.TrimSpace(s[:end])
			s = s[end:]
		}
		out[key] = val
	}
	return out
}

// ProtectedResourceMetadata is RFC 9728 metadata of an MCP server.
type ProtectedResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// AuthServerMetadata is RFC 8414 (or OpenID discovery) metadata.
type AuthServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
	// IssParameterSupported: the server puts iss in its authorization
	// responses (RFC 9207), so one without it is refused.
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// DPoPSigningAlgValuesSupported: the server binds tokens to a key
	// (RFC 9449 §5.1).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// AuthDiscovery is what discovery found for one server.
type AuthDiscovery struct {
	// Resource is the protected resource metadata, nil for a server that
	// has none (2025-03-26 servers: the authorization server is the
	// server's own origin).
	Resource *ProtectedResourceMetadata
	// AuthServer is the authorization server's base URL (its issuer).
	AuthServer string
	Metadata   AuthServerMetadata
	// Fallback is set when no metadata was found and the default
	// endpoints (/authorize, /token, /register) are assumed.
	Fallback bool
}

// DiscoverAuth finds the protected resource metadata of serverURL (from the
// challenge's resource_metadata, then the path-based and root well-known
// locations) and its authorization server's metadata (RFC 8414 and OpenID
// locations, path-aware), refusing metadata that names another resource.
func DiscoverAuth(ctx context.Context, hc *http.Client, serverURL string, ch Challenge) (*AuthDiscovery, error) {
	return discoverAuth(ctx, hc, serverURL, ch, "")
}

// discoverAuth is DiscoverAuth with the authorization server pinned by
// the config (oauth.authorizationServer), when pinned is set: it wins over
// what the server's metadata names.
func discoverAuth(ctx context.Context, hc *http.Client, serverURL string, ch Challenge, pinned string) (*AuthDiscovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", serverURL, err)
	}
	if err := checkOAuthURL(serverURL, "the server's url"); err != nil {
		return nil, err
	}
	origin := su.Scheme + "://" + su.Host
	var prmURLs []string
	if ch.ResourceMetadata != "" {
		if err := checkOAuthURL(ch.ResourceMetadata, "the resource_metadata of the server's 401 challenge"); err != nil {
			return nil, err
		}
		prmURLs = append(prmURLs, ch.ResourceMetadata)
	}
	if p := strings.TrimRight(su.Path, "/"); p != "" {
		prmURLs = append(prmURLs, origin+"/.well-known/oauth-protected-resource"+p)
	}
	prmURLs = append(prmURLs, origin+"/.well-known/oauth-protected-resource")
	d := &AuthDiscovery{}
	prmURL := ""
	for _, u := range prmURLs {
		var prm ProtectedResourceMetadata
		if ok, err := getJSON(ctx, hc, u, &prm); err != nil {
			return nil, err
		} else if ok && len(prm.AuthorizationServers) > 0 {
			d.Resource, prmURL = &prm, u
			break
		}
	}
	if d.Resource != nil && !resourceCovers(d.Resource.Resource, su) {
		return nil, fmt.Errorf("the protected resource metadata of %s names resource %q, which is not this server: refusing to authorize (a misconfigured or hostile server)", serverURL, d.Resource.Resource)
	}
	var asFrom string
	switch {
	case pinned != "":
		d.AuthServer, asFrom = pinned, "oauth.authorizationServer on the server's entry"
	case d.Resource != nil:
		d.AuthServer, asFrom = d.Resource.AuthorizationServers[0], "the authorization server named by "+prmURL
	default:
		d.AuthServer, asFrom = origin, "the server's own origin (it serves no protected resource metadata)"
	}
	au, err := url.Parse(d.AuthServer)
	if err != nil || au.Host == "" {
		return nil, fmt.Errorf("authorization server %q is not a URL", d.AuthServer)
	}
	if err := checkOAuthURL(d.AuthServer, asFrom); err != nil {
		return nil, err
	}
	aorigin := au.Scheme + "://" + au.Host
	var asURLs []string
	if p := strings.Trim(au.Path, "/"); p != "" {
		asURLs = []string{
			aorigin + "/.well-known/oauth-authorization-server/" + p,
			aorigin + "/.well-known/openid-configuration/" + p,
			aorigin + "/" + p + "/.well-known/openid-configuration",
		}
	} else {
		asURLs = []string{aorigin + "/.well-known/oauth-authorization-server", aorigin + "/.well-known/openid-configuration"}
	}
	for _, u := range asURLs {
		var m AuthServerMetadata
		if ok, err := getJSON(ctx, hc, u, &m); err != nil {
			return nil, err
		} else if ok && m.AuthorizationEndpoint != "" && m.TokenEndpoint != "" {
			// A 2025-03-26 server (no resource metadata) serves its own
			// metadata from its origin, whose issuer may carry a path.
			if (d.Resource != nil || pinned != "") && !sameIssuer(m.Issuer, d.AuthServer) {
				return nil, fmt.Errorf("the metadata of authorization server %s names another issuer, %q: not used (RFC 8414 §3.3; a misconfigured or impersonating server)", d.AuthServer, render.Ellipsize(m.Issuer, 80))
			}
			// The authorization_endpoint is checked where it is opened
			// (CheckBrowserURL): a machine grant never uses it.
			if err := checkOAuthURL(m.TokenEndpoint, "the token_endpoint in "+u); err != nil {
				return nil, err
			}
			if m.RegistrationEndpoint != "" {
				if err := checkOAuthURL(m.RegistrationEndpoint, "the registration_endpoint in "+u); err != nil {
					return nil, err
				}
			}
			d.Metadata = m
			return d, nil
		}
	}
	base := strings.TrimRight(d.AuthServer, "/")
	d.Fallback = true
	d.Metadata = AuthServerMetadata{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token", RegistrationEndpoint: base + "/register"}
	return d, nil
}

// oauthURLRule says which URLs howl uses for OAuth, for every refusal's text.
const oauthURLRule = "howl fetches OAuth metadata and sends OAuth secrets and tokens only over https, and over plain http only to this machine (localhost, 127.0.0.0/8, ::1)"

// checkOAuthURL is the test every OAuth URL passes before howl fetches
// metadata from it or sends a secret, token or assertion to it: https, or
// http to loopback. from says where the URL came from, for the error.
func checkOAuthURL(u, from string) error {
	shown := render.Ellipsize(u, maxShownURL)
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%s, %q, is not a URL (%v): %s", from, shown, err, oauthURLRule)
	}
	switch strings.ToLower(p.Scheme) {
	case "https":
	case "http":
		if !isLoopbackHost(p.Hostname()) {
			return fmt.Errorf("%s, %q, is plain http to %s, which is not this machine: refused, since anyone on the way could read or change it; %s", from, shown, render.Ellipsize(p.Hostname(), maxShownURL), oauthURLRule)
		}
	default:
		return fmt.Errorf("%s, %q, has scheme %q: refused; %s", from, shown, p.Scheme, oauthURLRule)
	}
	if p.Hostname() == "" {
		return fmt.Errorf("%s, %q, names no host: refused; %s", from, shown, oauthURLRule)
	}
	return nil
}

// oauthRedirects is the CheckRedirect of howl's OAuth client: a redirect
// passes the same rule, since a 307 or 308 resends a token request's body
// (the client secret, the assertion) to where it points.
func oauthRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return checkOAuthURL(req.URL.String(), "a redirect from "+via[len(via)-1].URL.String())
}

// sameIssuer reports whether metadata's issuer is the issuer identifier
// its well-known URL was built from (RFC 8414 §3.3): the same string, or
// the same but for one trailing slash, which builds the same URL.
func sameIssuer(metadata, asked string) bool {
	return metadata == asked || metadata == asked+"/" || metadata+"/" == asked
}

// issuer is the recorded issuer of the discovered authorization server:
// what its metadata names, else (with no metadata) its URL.
func (d *AuthDiscovery) issuer() string {
	if d.Metadata.Issuer != "" {
		return d.Metadata.Issuer
	}
	return d.AuthServer
}

// checkIssuer applies RFC 9207 to an authorization response: an iss that
// is there must be the recorded issuer, compared as strings with no
// normalization; one that is missing is refused when the server said it
// sends it.
func (d *AuthDiscovery) checkIssuer(got url.Values) error {
	iss, present := got["iss"]
	switch {
	case present && (len(iss) != 1 || iss[0] != d.issuer()):
		return fmt.Errorf("the login came back from issuer %q, not %s where howl sent you: refused (RFC 9207; a mix-up attack or a misconfigured server)", render.Ellipsize(strings.Join(iss, ","), 80), d.issuer())
	case !present && d.Metadata.IssParameterSupported:
		return fmt.Errorf("the login came back without the iss %s promised to send: refused (RFC 9207)", d.issuer())
	}
	return nil
}

// resourceCovers reports whether a protected resource identifier covers
// the server URL: same origin, and a path that is a prefix of the server's.
func resourceCovers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil {
		return false
	}
	if !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp, sp := strings.TrimRight(r.Path, "/"), strings.TrimRight(server.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// getJSON fetches u into v; a 4xx answer is "not here" (false, nil).
func getJSON(ctx context.Context, hc *http.Client, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return false, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return false, nil
	}
	return true, nil
}

// NewPKCE returns a fresh code verifier and its S256 challenge.
func NewPKCE() (verifier, challenge string) {
	verifier = randomToken(48)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// selectScope follows the MCP scope strategy: the challenge's scope, else
// the resource's scopes_supported, else none; configured scopes and an
// earlier request are added; offline_access only when the authorization
// server lists it.
func selectScope(ch Challenge, d *AuthDiscovery, configured []string, previous string) string {
	var scopes []string
	add := func(ss ...string) {
		for _, s := range ss {
			if s != "" && !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
	}
	add(strings.Fields(previous)...)
	switch {
	case ch.Scope != "":
		add(strings.Fields(ch.Scope)...)
	case previous == "" && d.Resource != nil:
		add(d.Resource.ScopesSupported...)
	}
	add(configured...)
	if len(scopes) > 0 && slices.Contains(d.Metadata.ScopesSupported, "offline_access") {
		add("offline_access")
	}
	return strings.Join(scopes, " ")
}

// oauthClientID is the client howl presents to an authorization server.
type oauthClientID struct {
	id, secret, method string
}

// resolveClient picks the client identity: configured, reused from an
// earlier registration with the same server, a client ID metadata
// document, or dynamic registration.
func resolveClient(ctx context.Context, hc *http.Client, d *AuthDiscovery, s OAuthSettings, prev *StoredToken, redirectURI string) (oauthClientID, error) {
	if s.ClientID != "" {
		return oauthClientID{id: s.ClientID, secret: s.ClientSecret, method: pickAuthMethod(d.Metadata, s.ClientSecret, s.PrivateKeyPEM)}, nil
	}
	if prev != nil && prev.ClientID != "" && prev.TokenEndpoint == d.Metadata.TokenEndpoint && (prev.Issuer == "" || prev.Issuer == d.issuer()) {
		return oauthClientID{id: prev.ClientID, secret: prev.ClientSecret, method: prev.AuthMethod}, nil
	}
	if d.Metadata.ClientIDMetadataDocumentSupported && s.ClientMetadataURL != "" {
		return oauthClientID{id: s.ClientMetadataURL, method: "none"}, nil
	}
	if d.Metadata.RegistrationEndpoint == "" {
		return oauthClientID{}, fmt.Errorf("the authorization server %s offers no dynamic client registration: register howl there and set \"oauth\": {\"clientId\": ...} on the server's entry", d.AuthServer)
	}
	method := "none"
	if ms := d.Metadata.TokenEndpointAuthMethodsSupported; len(ms) > 0 && !slices.Contains(ms, "none") {
		method = ms[0]
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "howl",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		// A program on the person's machine with a loopback redirect
		// (OpenID Connect registration; MCP asks for it, SEP-837).
		"application_type": "native",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Metadata.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return oauthClientID{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return oauthClientID{}, fmt.Errorf("registering with %s: %w", d.Metadata.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return oauthClientID{}, fmt.Errorf("registering with %s: HTTP %d %s: set a pre-registered \"oauth\": {\"clientId\": ...} instead", d.Metadata.RegistrationEndpoint, resp.StatusCode, oneLine(string(data)))
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &reg); err != nil || reg.ClientID == "" {
		return oauthClientID{}, fmt.Errorf("registering with %s: no client_id in the answer", d.Metadata.RegistrationEndpoint)
	}
	if reg.Method == "" {
		reg.Method = pickAuthMethod(d.Metadata, reg.ClientSecret, "")
	}
	return oauthClientID{id: reg.ClientID, secret: reg.ClientSecret, method: reg.Method}, nil
}

// pickAuthMethod chooses how to authenticate at the token endpoint.
func pickAuthMethod(m AuthServerMetadata, secret, key string) string {
	ms := m.TokenEndpointAuthMethodsSupported
	switch {
	case key != "":
		return "private_key_jwt"
	case secret == "":
		return "none"
	case len(ms) == 0 || slices.Contains(ms, "client_secret_basic"):
		return "client_secret_basic"
	case slices.Contains(ms, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// tokenResponse is an RFC 6749 token answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// requestToken posts a grant to the token endpoint with the client's
// authentication and returns the stored form of the answer. With a DPoP
// key, each attempt carries a fresh proof, and a use_dpop_nonce answer is
// retried once with the server's nonce (RFC 9449 §8).
func requestToken(ctx context.Context, hc *http.Client, endpoint, issuer string, c oauthClientID, key string, form url.Values, dp *dpopKey) (StoredToken, error) {
	from := "the token endpoint"
	if issuer != "" {
		from += " of " + issuer
	}
	if err := checkOAuthURL(endpoint, from); err != nil {
		return StoredToken{}, err
	}
	switch c.method {
	case "client_secret_post":
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case "client_secret_basic":
	case "private_key_jwt":
		a, err := clientAssertion(key, c.id, issuer)
		if err != nil {
			return StoredToken{}, err
		}
		form.Set("client_id", c.id)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	default:
		if c.id != "" {
			form.Set("client_id", c.id)
		}
	}
	var status int
	var data []byte
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return StoredToken{}, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if c.method == "client_secret_basic" {
			req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
		}
		if dp != nil {
			p, err := dp.proof(http.MethodPost, endpoint, "", dp.nonce(false))
			if err != nil {
				return StoredToken{}, err
			}
			req.Header.Set("DPoP", p)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return StoredToken{}, fmt.Errorf("token request to %s: %w", endpoint, err)
		}
		data, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		status = resp.StatusCode
		if dp != nil && dp.noteNonce(false, resp.Header) && status == http.StatusBadRequest && attempt == 0 && oauthError(data) == "use_dpop_nonce" {
			continue
		}
		break
	}
	if status != http.StatusOK {
		return StoredToken{}, fmt.Errorf("token request (%s) to %s: HTTP %d %s", form.Get("grant_type"), endpoint, status, oneLine(string(data)))
	}
	var tr tokenResponse
	if err := json.Unmarshal(data, &tr); err != nil || tr.AccessToken == "" {
		return StoredToken{}, fmt.Errorf("token request to %s: no access_token in the answer", endpoint)
	}
	t := StoredToken{
		AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken,
		ClientID: c.id, ClientSecret: c.secret, AuthMethod: c.method, TokenEndpoint: endpoint, Issuer: issuer,
	}
	if dp != nil {
		t.DPoPKey = dp.marshal()
	}
	if tr.ExpiresIn > 0 {
		t.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return t, nil
}

// oauthError is the "error" code of an OAuth error answer.
func oauthError(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}

// clientAssertion signs an RFC 7523 client assertion (ES256) for private_key_jwt.
func clientAssertion(keyPEM, clientID, audience string) (string, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return "", errors.New("oauth.privateKeyPem holds no PEM block: paste a PKCS#8 EC private key")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if ek, err2 := x509.ParseECPrivateKey(block.Bytes); err2 == nil {
			k, err = ek, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("oauth.privateKeyPem: %w", err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve.Params().BitSize != 256 {
		return "", errors.New("oauth.privateKeyPem is not a P-256 EC key: howl signs assertions with ES256")
	}
	now := time.Now()
	hdr, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomToken(16),
	})
	signing := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, ec, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// loopback is the callback listener on 127.0.0.1 for one login.
type loopback struct {
	ln     net.Listener
	srv    *http.Server
	result chan url.Values
	done   chan struct{}
}

func listenLoopback(port int) (*loopback, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("listening for the OAuth callback on 127.0.0.1:%d: %w: free the port or change oauth.redirectPort", port, err)
	}
	l := &loopback{ln: ln, result: make(chan url.Values, 1), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		select {
		case l.result <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "howl: login received, you can close this window.")
	})
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

func (l *loopback) redirectURI() string {
	return fmt.Sprintf("http://127.0.0.1:%d/callback", l.ln.Addr().(*net.TCPAddr).Port)
}

func (l *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
	<-l.done
}

// credential names what a login with these settings hands the
// authorization server from the person's config, "" when nothing (a
// browser login with a dynamically registered client).
func (s OAuthSettings) credential() string {
	switch {
	case s.ClientSecret != "":
		return "oauth.clientSecret"
	case s.PrivateKeyPEM != "":
		return "a client assertion signed with oauth.privateKeyPem"
	case s.Grant == GrantJWTBearer:
		return "the workload's assertion (oauth.assertion or oauth.assertionFile)"
	case s.Grant == GrantEnterprise:
		return "an identity assertion from oauth.idpTokenEndpoint"
	}
	return ""
}

// interactive reports whether the grant needs a person (a browser login).
func (s OAuthSettings) interactive() bool {
	return s.Grant != GrantClientCredentials && s.Grant != GrantEnterprise && s.Grant != GrantJWTBearer
}
