package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/render"
)

// TokenFileMode is the permission of the token file: tokens are secrets.
const TokenFileMode = 0o600

// StoredToken is what howl keeps about one server's OAuth login: the
// tokens and the client identity they were issued to, so a refresh needs
// no rediscovery.
type StoredToken struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scope is what was asked for (the server may grant less).
	Scope string `json:"scope,omitempty"`
	// The client the token was issued to and where to refresh it.
	ClientID      string `json:"client_id,omitempty"`
	ClientSecret  string `json:"client_secret,omitempty"`
	AuthMethod    string `json:"token_endpoint_auth_method,omitempty"`
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	Issuer        string `json:"issuer,omitempty"`
	Resource      string `json:"resource,omitempty"`
	// DPoPKey is the private key (a JWK) the access token is bound to,
	// when the server issued a DPoP-bound token (RFC 9449).
	DPoPKey string `json:"dpop_key,omitempty"`
}

// dpopBound reports whether the token must be presented with a DPoP proof.
func (t StoredToken) dpopBound() bool {
	return t.DPoPKey != "" && strings.EqualFold(t.TokenType, "DPoP")
}

// Expired reports whether the access token is past (or within 30 s of) its expiry.
func (t StoredToken) Expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(30*time.Second).After(t.Expiry)
}

// TokenStore keeps OAuth tokens, keyed by server URL, in one JSON file
// written with mode 0600 (its directory 0700). Writes from several
// processes are serialized by a lock file beside it (tokens.json.lock).
type TokenStore struct {
	path string
	// err, when set, is why the store has no usable path: every use fails with it.
	err error
	mu  sync.Mutex
}

// NewTokenStore returns a store backed by the file at path (created on
// the first Put).
func NewTokenStore(path string) *TokenStore { return &TokenStore{path: path} }

// DefaultTokenPath is $HOWL_CONFIG_DIR/tokens.json, else
// <user config dir>/howl/tokens.json ($XDG_CONFIG_HOME on Linux), else,
// with no home, tokens.json in render.CacheDir (a private directory when
// that falls back to the shared temp directory).
func DefaultTokenPath() (string, error) {
	if d := os.Getenv("HOWL_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "tokens.json"), nil
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "howl", "tokens.json"), nil
	}
	d, err := render.CacheDir()
	if err != nil {
		return "", fmt.Errorf("no directory for OAuth tokens (set HOWL_CONFIG_DIR): %w", err)
	}
	return filepath.Join(d, "tokens.json"), nil
}

// DefaultTokenStore is the store at DefaultTokenPath. When there is no
// usable path, every use of the store fails with the reason.
func DefaultTokenStore() *TokenStore {
	path, err := DefaultTokenPath()
	return &TokenStore{path: path, err: err}
}

// Path is the file the store reads and writes.
func (s *TokenStore) Path() string { return s.path }

func (s *TokenStore) load() (map[string]StoredToken, error) {
	if s.err != nil {
		return nil, s.err
	}
	data, err := readPrivate(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]StoredToken{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading tokens %s: %w", s.path, err)
	}
	m := map[string]StoredToken{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("tokens %s is not valid JSON (%v): delete it and log in again with howl auth", s.path, err)
	}
	return m, nil
}

// Get returns the token stored for key.
func (s *TokenStore) Get(key string) (StoredToken, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return StoredToken{}, false, err
	}
	t, ok := m[key]
	return t, ok, nil
}

// Put stores t under key, replacing the file atomically with mode 0600.
func (s *TokenStore) Put(key string, t StoredToken) error {
	return s.update(func(m map[string]StoredToken) { m[key] = t })
}

// Delete forgets the token stored under key.
func (s *TokenStore) Delete(key string) error {
	return s.update(func(m map[string]StoredToken) { delete(m, key) })
}

// update is one read-modify-write of the token file, under its lock
// across processes (two howl processes logging in at once must not lose
// each other's tokens); the file is then replaced by an atomic rename.
func (s *TokenStore) update(f func(map[string]StoredToken)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockFile(s.path, TokenLockTimeout)
	if err != nil {
		return fmt.Errorf("writing tokens to %s: %w", s.path, err)
	}
	defer unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	f(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(s.path, data, TokenFileMode); err != nil {
		return fmt.Errorf("writing tokens to %s: %w", s.path, err)
	}
	return nil
}
