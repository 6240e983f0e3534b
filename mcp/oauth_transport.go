package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// authorizer logs howl in to one remote server and signs its requests. It
// is the http.RoundTripper under the server's MCP transport: it adds the
// stored bearer token, refreshes it when it expires or is refused, runs the
// login when a server answers 401 (if allowed), and steps up the scope when
// one answers 403 insufficient_scope.
type authorizer struct {
	server, url string
	origin      string // url's (origin): the only one its token goes to
	settings    OAuthSettings
	opts        OAuthOptions
	store       *TokenStore
	base        http.RoundTripper
	hc          *http.Client // discovery, registration, token requests
	lifetime    context.Context

	mu        sync.Mutex // one login or refresh at a time
	tok       *StoredToken
	loaded    bool
	disc      *AuthDiscovery
	stepUps   int
	needLogin error // set when a login was needed but not allowed or failed
	loggedIn  bool  // a login ran on this authorizer
	closed    bool  // the runtime closed: no more refreshes, logins or token writes
	// dpop is the key the current token is bound to (dpopOf its DPoPKey).
	dpop    *dpopKey
	dpopJWK string
}

// errAuthorizerClosed refuses token work after the runtime closed.
var errAuthorizerClosed = errors.New("the runtime is closed")

// shutdown waits for a refresh or login in progress, then refuses any
// more: a transport's request still in flight after Close must not write
// the token store.
func (a *authorizer) shutdown() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
}

func newAuthorizer(lifetime context.Context, sc ServerConfig, opts OAuthOptions) *authorizer {
	if opts.Store == nil {
		opts.Store = DefaultTokenStore()
	}
	if opts.LoginTimeout <= 0 {
		opts.LoginTimeout = DefaultLoginTimeout
	}
	a := &authorizer{
		server: sc.Name, url: sc.URL, origin: originOf(sc.URL), opts: opts, store: opts.Store,
		base: http.DefaultTransport, lifetime: lifetime,
		hc: &http.Client{Timeout: 30 * time.Second, CheckRedirect: oauthRedirects},
	}
	if sc.OAuth != nil {
		a.settings = *sc.OAuth
	}
	return a
}

// needed reports why the server could not be reached without a login, if so.
func (a *authorizer) needed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.needLogin
}

func (a *authorizer) current() *StoredToken {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded {
		a.loaded = true
		if t, ok, err := a.store.Get(a.url); err == nil && ok {
			a.tok = &t
		}
	}
	if a.tok != nil && a.tok.Expired(time.Now()) && a.tok.RefreshToken != "" {
		if t, err := a.refreshLocked(a.lifetime); err == nil {
			a.tok = &t
		}
	}
	return a.tok
}

// dpopOf returns the key a DPoP-bound token is bound to (nil for a bearer
// token), keeping the nonces already learned while the key stays the same.
func (a *authorizer) dpopOf(t *StoredToken) *dpopKey {
	if t == nil || t.DPoPKey == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dpopOfLocked(t)
}

func (a *authorizer) dpopOfLocked(t *StoredToken) *dpopKey {
	if t == nil || t.DPoPKey == "" {
		return nil
	}
	if a.dpop == nil || a.dpopJWK != t.DPoPKey {
		k, err := loadDPoPKey(t.DPoPKey)
		if err != nil {
			return nil
		}
		a.dpop, a.dpopJWK = k, t.DPoPKey
	}
	return a.dpop
}

// RoundTrip implements http.RoundTripper.
func (a *authorizer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.GetBody == nil {
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	if !a.settings.interactive() && a.current() == nil {
		a.mu.Lock()
		if err := a.loginLocked(req.Context(), Challenge{}, ""); err != nil {
			a.needLogin = err
		}
		a.mu.Unlock()
	}
	tok := a.current()
	resp, err := a.send(req, tok)
	if err != nil {
		return resp, err
	}
	nonceRetried := false
	for attempt := 0; attempt < 1+maxStepUps; attempt++ {
		if k := a.dpopOf(tok); k != nil {
			k.noteNonce(true, resp.Header)
			if !nonceRetried && isDPoPNonceChallenge(resp) {
				// A fresh proof with the server's nonce (RFC 9449 §9).
				nonceRetried = true
				attempt--
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
				resp.Body.Close()
				if resp, err = a.send(req, tok); err != nil {
					return resp, err
				}
				continue
			}
		}
		var next *StoredToken
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			next = a.recover(req.Context(), tok, ParseChallenge(resp.Header.Values("WWW-Authenticate")))
		case http.StatusForbidden:
			ch := ParseChallenge(resp.Header.Values("WWW-Authenticate"))
			if ch.Error == "insufficient_scope" {
				next = a.stepUp(req.Context(), tok, ch)
			}
		}
		if next == nil {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		tok = next
		if resp, err = a.send(req, tok); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

func (a *authorizer) send(req *http.Request, tok *StoredToken) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if origin(r.URL) != a.origin {
		// Not the server's: its token stays home (serverRedirects
		// stops the redirects that would lead here).
		tok = nil
	}
	if k := a.dpopOf(tok); k != nil && tok.dpopBound() {
		if err := k.sign(r, tok.AccessToken); err != nil {
			return nil, err
		}
	} else if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return a.base.RoundTrip(r)
}

// recover answers a 401: use a token another request already got, refresh,
// or log in. Nil means give the 401 back.
func (a *authorizer) recover(ctx context.Context, sent *StoredToken, ch Challenge) *StoredToken {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok != nil && a.tok != sent {
		return a.tok
	}
	if a.needLogin != nil && !errors.Is(a.needLogin, errLoginNotAllowed) {
		// A login already failed on this connection attempt (refused,
		// or a grant the server turned down): another would fail the
		// same way, open the browser again, or resend a workload's
		// assertion. The reason stands; howl auth tries again.
		return nil
	}
	moved := a.serverMovedLocked(ctx, ch)
	if !moved && a.tok != nil && a.tok.RefreshToken != "" {
		if t, err := a.refreshLocked(ctx); err == nil {
			a.tok = &t
			return a.tok
		}
	}
	if a.loggedIn && sent != nil && !moved {
		// A token howl just got is refused: logging in again would loop.
		a.needLogin = fmt.Errorf("%s refused the token its authorization server just issued", ShownURL(a.url))
		return nil
	}
	if err := a.loginLocked(ctx, ch, ""); err != nil {
		a.needLogin = err
		return nil
	}
	return a.tok
}

// serverMovedLocked reports whether the server now names another
// authorization server than the one that issued the current token: its
// token (and client registration) then mean nothing there, and howl must
// register with the new one and log in anew (MCP SEP-2352), which
// loginLocked allows only as movedFromLocked says.
func (a *authorizer) serverMovedLocked(ctx context.Context, ch Challenge) bool {
	if a.closed || a.tok == nil || a.tok.Issuer == "" {
		return false
	}
	d, err := a.discover(ctx, ch)
	if err != nil || a.movedFromLocked(d) == "" {
		return false
	}
	a.disc = d
	return true
}

// discover runs discovery for this server, at the authorization server
// its entry pins if it pins one.
func (a *authorizer) discover(ctx context.Context, ch Challenge) (*AuthDiscovery, error) {
	return discoverAuth(ctx, a.hc, a.url, ch, a.settings.AuthorizationServer)
}

// movedFromLocked is the issuer of the stored login when discovery now
// names another one; "" when it is the same, or no stored login records
// its issuer (the first login trusts what the server names).
func (a *authorizer) movedFromLocked(d *AuthDiscovery) string {
	if a.tok == nil || a.tok.Issuer == "" || a.tok.Issuer == d.issuer() {
		return ""
	}
	return a.tok.Issuer
}

// stepUp answers a 403 insufficient_scope with a login for the wider
// scope, at most maxStepUps times, and never for a scope already asked for.
func (a *authorizer) stepUp(ctx context.Context, sent *StoredToken, ch Challenge) *StoredToken {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok != nil && a.tok != sent {
		return a.tok
	}
	prev := ""
	if a.tok != nil {
		prev = a.tok.Scope
	}
	have := strings.Fields(prev)
	missing := false
	for _, s := range strings.Fields(ch.Scope) {
		if !slices.Contains(have, s) {
			missing = true
		}
	}
	if !missing || a.stepUps >= maxStepUps {
		return nil
	}
	a.stepUps++
	if err := a.loginLocked(ctx, ch, prev); err != nil {
		a.needLogin = err
		return nil
	}
	return a.tok
}

func (a *authorizer) refreshLocked(ctx context.Context) (StoredToken, error) {
	if a.closed {
		return StoredToken{}, errAuthorizerClosed
	}
	old := *a.tok
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old.RefreshToken}}
	if old.Resource != "" {
		form.Set("resource", old.Resource)
	}
	t, err := requestToken(ctx, a.hc, old.TokenEndpoint, old.Issuer, oauthClientID{id: old.ClientID, secret: old.ClientSecret, method: old.AuthMethod}, a.settings.PrivateKeyPEM, form, a.dpopOfLocked(&old))
	if err != nil {
		return StoredToken{}, err
	}
	if t.RefreshToken == "" {
		t.RefreshToken = old.RefreshToken
	}
	t.Scope, t.Resource = old.Scope, old.Resource
	if err := a.store.Put(a.url, t); err != nil {
		return StoredToken{}, err
	}
	return t, nil
}

// errLoginNotAllowed is a login the runtime was told not to run.
var errLoginNotAllowed = errors.New("login not allowed")

// loginLocked runs discovery and a grant, and stores the token.
func (a *authorizer) loginLocked(reqCtx context.Context, ch Challenge, previousScope string) error {
	if a.closed {
		return errAuthorizerClosed
	}
	interactive := a.settings.interactive()
	if interactive && !a.opts.Login {
		return errLoginNotAllowed
	}
	ctx, cancel := context.WithTimeout(a.lifetime, a.opts.LoginTimeout)
	defer cancel()
	_ = reqCtx // a login outlives the request that needed it: later requests reuse it
	if a.disc == nil || ch.ResourceMetadata != "" {
		d, err := a.discover(ctx, ch)
		if err != nil {
			return err
		}
		a.disc = d
	}
	d := a.disc
	if from := a.movedFromLocked(d); from != "" {
		if what := a.settings.credential(); what != "" && !a.opts.AcceptMovedIssuer {
			// Short: the status keeps 300 bytes, the fix must be in them.
			return fmt.Errorf("it now names authorization server %s, not %s, which issued its token: if you expect the move, run howl auth %s; only then does howl send %s to a new one", d.issuer(), from, a.server, what)
		}
		if a.opts.Notice != nil {
			a.opts.Notice(a.server, fmt.Sprintf("%s moved from authorization server %s to %s: logging in there", ShownURL(a.url), from, d.issuer()))
		}
	}
	scope := selectScope(ch, d, a.settings.Scopes, previousScope)
	resource := a.url
	if d.Resource != nil && d.Resource.Resource != "" {
		resource = d.Resource.Resource
	}
	issuer := d.issuer()
	var dp *dpopKey
	if dpopWanted(a.settings, d.Metadata) {
		var err error
		if dp, err = newDPoPKey(); err != nil {
			return err
		}
	}
	var t StoredToken
	if !interactive {
		if a.settings.ClientID == "" && a.settings.Grant != GrantJWTBearer {
			return fmt.Errorf("oauth.grant %s needs oauth.clientId on %s's entry", a.settings.Grant, a.server)
		}
		c := oauthClientID{id: a.settings.ClientID, secret: a.settings.ClientSecret, method: pickAuthMethod(d.Metadata, a.settings.ClientSecret, a.settings.PrivateKeyPEM)}
		form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {resource}}
		switch a.settings.Grant {
		case GrantEnterprise:
			jag, err := exchangeIDToken(ctx, a.hc, a.settings, issuer, resource, scope)
			if err != nil {
				return err
			}
			form = url.Values{"grant_type": {jwtBearerGrantType}, "assertion": {jag}, "resource": {resource}}
		case GrantJWTBearer:
			jwt, err := a.settings.assertion()
			if err != nil {
				return err
			}
			form = url.Values{"grant_type": {jwtBearerGrantType}, "assertion": {jwt}, "resource": {resource}}
		}
		if scope != "" {
			form.Set("scope", scope)
		}
		var err error
		if t, err = requestToken(ctx, a.hc, d.Metadata.TokenEndpoint, issuer, c, a.settings.PrivateKeyPEM, form, dp); err != nil {
			return err
		}
	} else {
		// The endpoint comes from the server's metadata: it goes to no
		// browser and no notice unless it is a web page howl may open.
		if err := CheckBrowserURL(d.Metadata.AuthorizationEndpoint); err != nil {
			return fmt.Errorf("the authorization_endpoint from %s is refused: %w", d.AuthServer, err)
		}
		lb, err := listenLoopback(a.settings.RedirectPort)
		if err != nil {
			return err
		}
		defer lb.close()
		c, err := resolveClient(ctx, a.hc, d, a.settings, a.tok, lb.redirectURI())
		if err != nil {
			return err
		}
		verifier, challenge := NewPKCE()
		state := randomToken(24)
		q := url.Values{
			"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {lb.redirectURI()},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "resource": {resource},
		}
		if scope != "" {
			q.Set("scope", scope)
		}
		authURL := d.Metadata.AuthorizationEndpoint
		if strings.Contains(authURL, "?") {
			authURL += "&" + q.Encode()
		} else {
			authURL += "?" + q.Encode()
		}
		if a.opts.Notice != nil {
			a.opts.Notice(a.server, "log in to "+ShownURL(a.url)+" in your browser: "+authURL)
		}
		open := a.opts.OpenURL
		if open == nil {
			open = OpenBrowser
		}
		openCtx, cancelOpen := context.WithCancel(ctx)
		defer cancelOpen()
		openErr := make(chan error, 1)
		go func() { openErr <- open(openCtx, authURL) }()
		var got url.Values
		for got == nil {
			select {
			case got = <-lb.result:
			case err := <-openErr:
				if err != nil && a.opts.Notice != nil {
					a.opts.Notice(a.server, err.Error())
				}
				openErr = nil
			case <-ctx.Done():
				return fmt.Errorf("no login came back to %s within %s: run howl auth %s again", lb.redirectURI(), a.opts.LoginTimeout, a.server)
			}
		}
		if openErr != nil {
			cancelOpen() // a browser command still running is done with
			<-openErr
		}
		if e := got.Get("error"); e != "" {
			return fmt.Errorf("the authorization server refused the login: %s %s", e, got.Get("error_description"))
		}
		if got.Get("state") != state {
			return errors.New("the login came back with a wrong state (a forged callback?): run howl auth again")
		}
		if err := d.checkIssuer(got); err != nil {
			return err
		}
		form := url.Values{
			"grant_type": {GrantAuthorizationCode}, "code": {got.Get("code")}, "redirect_uri": {lb.redirectURI()},
			"code_verifier": {verifier}, "resource": {resource},
		}
		if t, err = requestToken(ctx, a.hc, d.Metadata.TokenEndpoint, issuer, c, a.settings.PrivateKeyPEM, form, dp); err != nil {
			return err
		}
	}
	t.Scope, t.Resource = scope, resource
	if err := a.store.Put(a.url, t); err != nil {
		return err
	}
	a.tok, a.loaded, a.loggedIn, a.needLogin = &t, true, true, nil
	return nil
}
