package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// spillFile is one regular file found under the spill root.
type spillFile struct {
	path  string
	size  int64
	mtime time.Time
}

// evict deletes the oldest files under Root until the whole tree is within
// the budget, never deleting keep (the file just written) and never a temp
// file young enough to still be in use. It is best-effort: files deleted by
// another process meanwhile, and errors, are ignored.
func (s *SpillStore) evict(keep string) {
	files, total := s.scan()
	evictOldest(files, total, s.budget(), keep)
}

// scan lists every regular file under Root and their total size.
func (s *SpillStore) scan() ([]spillFile, int64) {
	var files []spillFile
	var total int64
	filepath.WalkDir(s.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // vanished entries and unreadable dirs are skipped
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		files = append(files, spillFile{path: path, size: info.Size(), mtime: info.ModTime()})
		total += info.Size()
		return nil
	})
	return files, total
}

// evictOldest removes files oldest-mtime first until total <= budget. A
// file that is already gone counts as freed. It returns the new total.
func evictOldest(files []spillFile, total, budget int64, keep string) int64 {
	if total <= budget {
		return total
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mtime.Equal(files[j].mtime) {
			return files[i].mtime.Before(files[j].mtime)
		}
		return files[i].path < files[j].path
	})
	now := time.Now()
	for _, f := range files {
		if total <= budget {
			break
		}
		if f.path == keep {
			continue
		}
		if strings.HasPrefix(filepath.Base(f.path), tempPrefix) && now.Sub(f.mtime) < staleTemp {
			continue
		}
		if err := os.Remove(f.path); err == nil || isNotExist(err) {
			total -= f.size
		}
	}
	return total
}
