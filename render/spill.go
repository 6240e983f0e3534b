package render

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SpillStore is the directory binary content is spilled to:
// <Root>/<server>/<sha256>.<ext>. Files are content-addressed, written to a
// temp file in the same directory and renamed, so a visible spill file is
// always complete and the same content always lands on the same path.
// Directories are created 0700 and files 0600. Spill files are untrusted
// input: nothing in howl executes or opens them.
//
// A SpillStore is safe for concurrent use, and several processes may share
// one Root: eviction is best-effort and tolerates files that vanish under it.
type SpillStore struct {
	// Root is the mcp-resources directory holding one directory per server.
	Root string
	// Budget bounds the total size of every file under Root, each charged
	// in whole SpillBlock blocks; after each spill the oldest files are
	// evicted until the tree is within it. Zero means SpillBudget.
	Budget int64
	// MaxFiles bounds how many files are under Root, evicted oldest first
	// like Budget. Zero means MaxSpillFiles.
	MaxFiles int

	mu    sync.Mutex
	index *spillIndex // nil until the first spill scans Root
	scans int         // how many times Root was walked, for tests
}

// NewSpillStore returns a store rooted at root with the default bounds.
func NewSpillStore(root string) *SpillStore {
	return &SpillStore{Root: root, Budget: SpillBudget, MaxFiles: MaxSpillFiles}
}

// Holds reports whether path names a file under the store's Root: an
// absolute path that stays inside it once cleaned. A spill pointer is
// plain JSON, and a server can write one into its own result naming any
// path (a key, a FIFO, a \\host\share path that makes Windows
// authenticate to that host): howl opens only those its store holds.
func (s *SpillStore) Holds(path string) bool {
	if s == nil || s.Root == "" || !filepath.IsAbs(path) {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(s.Root), filepath.Clean(path))
	return err == nil && filepath.IsLocal(rel)
}

// ForeignSpill is the error that stands in place of a spill pointer the
// store does not hold (a server wrote it into its own result): what shows
// the result says so instead of opening, or naming as saved, its path.
func ForeignSpill(sp *SpillResult) *ItemError {
	return &ItemError{URI: sp.URI, Code: CodeInvalidResult, Message: fmt.Sprintf(
		"the server's result names %s as a file howl saved, but howl's spill directory does not hold it: howl opens only the files it saved",
		strconv.Quote(sp.Path))}
}

// DefaultSpillStore returns the store howl uses: mcp-resources in
// CacheDir. Nothing is created under it until the first spill.
func DefaultSpillStore() (*SpillStore, error) {
	parent, err := CacheDir()
	if err != nil {
		return nil, fmt.Errorf("no cache directory for spill files: %w", err)
	}
	return NewSpillStore(filepath.Join(parent, "mcp-resources")), nil
}

// SpillResult is what a model receives instead of binary content: a
// self-describing pointer to the spilled file. Field order is wire order.
type SpillResult struct {
	Spilled bool   `json:"spilled"`
	Path    string `json:"path"`
	URI     string `json:"uri"`
	// MimeType is the MIME type the server claimed.
	MimeType string `json:"mime_type"`
	// Sniffed is the UTF-8 sniff verdict, always false here: content that
	// decodes to text is shown as text and never spilled. It is present so
	// the shape never varies.
	Sniffed   bool   `json:"sniffed"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

func (*SpillResult) item() {}

const (
	tempPrefix = ".spill-"
	// staleTemp is how old a leftover temp file (from a crashed writer) must
	// be before eviction may delete it; younger ones may still be written.
	staleTemp = time.Hour
	// maxServerSegment bounds the server directory name.
	maxServerSegment = 64
)

func (s *SpillStore) budget() int64 {
	if s.Budget > 0 {
		return s.Budget
	}
	return SpillBudget
}

func (s *SpillStore) maxFiles() int {
	if s.MaxFiles > 0 {
		return s.MaxFiles
	}
	return MaxSpillFiles
}

// serverDir is the directory spill files of server go to.
func (s *SpillStore) serverDir(server string) string {
	return filepath.Join(s.Root, serverSegment(server))
}

// commit moves the complete temp file tmp of the given content into place,
// or drops it when an identical file is already there, then evicts past the
// bounds. It returns the final path.
func (s *SpillStore) commit(tmp, server, mimeType, sum string, size int64) (string, error) {
	final := filepath.Join(s.serverDir(server), sum+"."+mimeExtension(mimeType))
	if fi, err := os.Lstat(final); err == nil && fi.Mode().IsRegular() && fi.Size() == size {
		os.Remove(tmp)
		now := time.Now()
		os.Chtimes(final, now, now) // a re-read counts as recent use for eviction
	} else if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		// A concurrent spill of the same content may have just put it in
		// place: Windows refuses a rename onto a file another handle has
		// open (Access denied), where Unix replaces it. The name is the
		// content's hash, so a complete file there is this content.
		if fi, serr := os.Lstat(final); serr == nil && fi.Mode().IsRegular() && fi.Size() == size {
			s.evict(final, size)
			return final, nil
		}
		return "", newError(CodeSpillFailed, err, fmt.Sprintf("could not move spill file into place at %s: %v", final, err))
	}
	s.evict(final, size)
	return final, nil
}

// serverSegment turns a server name into one safe path segment: only
// [A-Za-z0-9._-], no leading dot (so never "." or ".."), never empty, at most
// maxServerSegment bytes. When sanitizing changed the name, a short hash of
// the original is appended so distinct names do not collide trivially.
func serverSegment(server string) string {
	var b strings.Builder
	for i := 0; i < len(server); i++ {
		c := server[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && b.Len() > 0:
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	seg := b.String()
	if windowsReserved(seg) {
		seg = "_" + seg // then the hashed form below: no longer the name
	}
	if seg == server && seg != "" && len(seg) <= maxServerSegment {
		return seg
	}
	sum := sha256.Sum256([]byte(server))
	suffix := "-" + hex.EncodeToString(sum[:4])
	return seg[:min(len(seg), maxServerSegment-len(suffix))] + suffix
}

// windowsReserved reports whether Windows would not make seg a directory
// of that name: a device name (CON, NUL, COM1, LPT1, ...; with any
// extension, in any case) or a name ending in a dot, which Windows drops.
func windowsReserved(seg string) bool {
	if strings.HasSuffix(seg, ".") {
		return true
	}
	base, _, _ := strings.Cut(strings.ToUpper(seg), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9'
}

// isNotExist reports an error that only says a file is already gone.
func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }
