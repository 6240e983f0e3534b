package mcp

import (
	"errors"
	"fmt"
)

// authRequired turns a login that was needed into the auth-required reason,
// with the fix.
func authRequired(name, url string, why error) error {
	if errors.Is(why, errLoginNotAllowed) {
		return fmt.Errorf("%w: %s asks for an OAuth login: run howl auth %s", errAuthRequired, url, name)
	}
	return fmt.Errorf("%w: logging in to %s failed: %v: run howl auth %s to try again", errAuthRequired, url, why, name)
}

// Login reconnects the named remote server, running the OAuth login (the
// browser, through OAuthOptions.OpenURL) if the server asks for one. The
// person asked for it, so it may log in at an authorization server the
// server moved to (OAuthOptions.AcceptMovedIssuer). Use Wait, then
// ServerStatus, to learn how it ended.
func (r *Runtime) Login(name string) error {
	r.mu.Lock()
	slot, ok := r.servers[name]
	if ok {
		if slot.cfg.Transport == TransportStdio {
			r.mu.Unlock()
			return fmt.Errorf("server %s is a local (stdio) server: only url servers log in", name)
		}
		slot.login = true
	}
	r.mu.Unlock()
	if !ok {
		return r.unknown(name)
	}
	return r.Reconnect(name)
}

// serverURL is the named server's URL ("" for a stdio server).
func (r *Runtime) serverURL(name string) (string, error) {
	r.mu.Lock()
	slot, ok := r.servers[name]
	var url string
	if ok {
		url = slot.cfg.URL
	}
	r.mu.Unlock()
	if !ok {
		return "", r.unknown(name)
	}
	return url, nil
}

// Logout forgets the stored OAuth token of the named remote server.
func (r *Runtime) Logout(name string) error {
	url, err := r.serverURL(name)
	if err != nil {
		return err
	}
	if url == "" {
		return fmt.Errorf("server %s is a local (stdio) server: it has no login", name)
	}
	return r.tokenStore().Delete(url)
}

// StoredLogin returns the stored OAuth token of the named server, if any.
func (r *Runtime) StoredLogin(name string) (StoredToken, bool, error) {
	url, err := r.serverURL(name)
	if err != nil {
		return StoredToken{}, false, err
	}
	if url == "" {
		return StoredToken{}, false, nil
	}
	return r.tokenStore().Get(url)
}

func (r *Runtime) tokenStore() *TokenStore {
	if r.opts.OAuth.Store != nil {
		return r.opts.OAuth.Store
	}
	return DefaultTokenStore()
}
