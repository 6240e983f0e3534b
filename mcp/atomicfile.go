package mcp

import (
	"io"
	"os"
	"path/filepath"

	"github.com/howl-mcp/howl/render"
)

// WriteFileAtomic replaces path with data: written to a temporary file in
// the same directory (created 0700 if missing) with mode perm, then
// renamed over path, so a reader never sees half a file and a failed write
// leaves the old one.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readPrivate reads one of howl's own files, never through a link planted
// at path (render.OpenPrivate).
func readPrivate(path string) ([]byte, error) {
	f, err := render.OpenPrivate(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
