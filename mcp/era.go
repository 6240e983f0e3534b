package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"sync"
)

// eraBook remembers which protocol era each server answered with, so a
// server that ignores the 2026-07-28 server/discover probe costs the probe
// timeout once, not on every start. Keyed by a hash of how the server is
// reached (command line or URL), stored as JSON in the cache dir.
type eraBook struct {
	path string
	mu   sync.Mutex
	eras map[string]Era
}

func loadEraBook(path string) *eraBook {
	b := &eraBook{path: path, eras: map[string]Era{}}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &b.eras)
	}
	return b
}

func eraKey(sc ServerConfig) string {
	h := sha256.Sum256([]byte(string(sc.Transport) + "\x00" + sc.Command + "\x00" + strings.Join(sc.Args, "\x00") + "\x00" + sc.URL))
	return hex.EncodeToString(h[:8])
}

// get returns the learned era, or EraAuto when none is known.
func (b *eraBook) get(sc ServerConfig) Era {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.eras[eraKey(sc)]; ok && (e == EraModern || e == EraLegacy) {
		return e
	}
	return EraAuto
}

// set records an era and writes the book (best effort: a cache).
func (b *eraBook) set(sc ServerConfig, e Era) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := eraKey(sc)
	if b.eras[k] == e {
		return
	}
	b.eras[k] = e
	if b.path == "" { // no cache directory: remembered for this run only
		return
	}
	data, err := json.MarshalIndent(b.eras, "", "  ")
	if err != nil {
		return
	}
	_ = WriteFileAtomic(b.path, data, 0o600) // a cache: a failed write only costs a probe later
}
