package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MaxTrustFileBytes bounds the trust store howl reads back: it is howl's
// own file, but a file that grew past this is not read whole.
const MaxTrustFileBytes = 4 << 20

// DataDir is where howl keeps what it must remember (the session
// database, the projects the person trusted): $HOWL_DATA_DIR, else
// $XDG_DATA_HOME/howl, else the platform's place (defaultDataDir):
// ~/.local/share/howl on Unix, %AppData%\howl on Windows.
func DataDir() (string, error) {
	if d := os.Getenv("HOWL_DATA_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "howl"), nil
	}
	return defaultDataDir()
}

// TrustStore remembers which project config files the person approved,
// each by its absolute path and the SHA-256 of its content: a file that
// changed since is untrusted again. It is one JSON file in the data dir,
// replaced atomically.
type TrustStore struct {
	path string
}

// TrustedFile is one approval.
type TrustedFile struct {
	SHA256  string    `json:"sha256"`
	Trusted time.Time `json:"trusted"`
}

type trustFile struct {
	Files map[string]TrustedFile `json:"files"`
}

// NewTrustStore returns the store kept at path.
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

// DefaultTrustStore is the store in DataDir: trusted-projects.json.
func DefaultTrustStore() (*TrustStore, error) {
	d, err := DataDir()
	if err != nil {
		return nil, err
	}
	return NewTrustStore(filepath.Join(d, "trusted-projects.json")), nil
}

// trustStore is the store the options name, else DefaultTrustStore.
func (o LoadOptions) trustStore() (*TrustStore, error) {
	if o.Trust != nil {
		return o.Trust, nil
	}
	return DefaultTrustStore()
}

// Path is the file the store reads and writes.
func (s *TrustStore) Path() string { return s.path }

func (s *TrustStore) load() (trustFile, error) {
	tf := trustFile{Files: map[string]TrustedFile{}}
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return tf, fmt.Errorf("reading the trusted projects in %s: %w", s.path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTrustFileBytes+1))
	if err != nil {
		return tf, fmt.Errorf("reading the trusted projects in %s: %w", s.path, err)
	}
	if len(data) > MaxTrustFileBytes {
		return tf, fmt.Errorf("the trusted projects file %s is over %d bytes (MaxTrustFileBytes): delete it and trust your projects again", s.path, MaxTrustFileBytes)
	}
	if err := json.Unmarshal(data, &tf); err != nil {
		return tf, fmt.Errorf("the trusted projects file %s is not valid JSON (%v): delete it and trust your projects again", s.path, err)
	}
	if tf.Files == nil {
		tf.Files = map[string]TrustedFile{}
	}
	return tf, nil
}

// Trusted reports whether the file at path (absolute) with this content
// hash was approved.
func (s *TrustStore) Trusted(path, sha string) (bool, error) {
	tf, err := s.load()
	if err != nil {
		return false, err
	}
	e, ok := tf.Files[path]
	return ok && e.SHA256 == sha, nil
}

// Lookup returns the approval recorded for path, whatever its hash.
func (s *TrustStore) Lookup(path string) (TrustedFile, bool, error) {
	tf, err := s.load()
	if err != nil {
		return TrustedFile{}, false, err
	}
	e, ok := tf.Files[path]
	return e, ok, nil
}

// Trust records that the file at path with content hash sha is approved.
func (s *TrustStore) Trust(path, sha string, now time.Time) error {
	return s.update(func(tf *trustFile) { tf.Files[path] = TrustedFile{SHA256: sha, Trusted: now.UTC()} })
}

// Forget removes the approval of path; it reports whether there was one.
func (s *TrustStore) Forget(path string) (bool, error) {
	found := false
	err := s.update(func(tf *trustFile) {
		_, found = tf.Files[path]
		delete(tf.Files, path)
	})
	return found, err
}

// List returns every approved path, sorted.
func (s *TrustStore) List() ([]string, error) {
	tf, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(tf.Files))
	for p := range tf.Files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

func (s *TrustStore) update(f func(*trustFile)) error {
	tf, err := s.load()
	if err != nil {
		return err
	}
	f(&tf)
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the trusted projects to %s: %w", s.path, err)
	}
	return nil
}

// hashConfig is the content hash an approval is keyed by.
func hashConfig(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TrustCommand is the command line that trusts a project file.
func TrustCommand(path string) string {
	return "howl trust " + shellQuote(path)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == '@' || r == ',' || r == '+' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CarryOver keeps a project file trusted across an edit the person asked
// howl to make (howl mcp add --scope project): the new content is
// approved when the old one was, or when there was no file before (howl
// wrote all of it). It reports whether the file is trusted now.
func (s *TrustStore) CarryOver(path string, old, new []byte) (bool, error) {
	if old != nil {
		ok, err := s.Trusted(path, hashConfig(old))
		if err != nil || !ok {
			return false, err
		}
	}
	return true, s.Trust(path, hashConfig(new), time.Now())
}
