package render

import (
	"container/list"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const (
	// rescanEvery and rescanAge say when a store's index is too old to
	// trust: other processes sharing Root add files it does not know. A
	// rescan walks at most about MaxFiles files, so once per rescanEvery
	// commits keeps a spill's share of it small.
	rescanEvery = 1000
	rescanAge   = time.Minute
)

// spillFile is one regular file found under the spill root.
type spillFile struct {
	path  string
	size  int64
	mtime time.Time
}

// spillIndex is a store's picture of the files under Root, oldest first,
// so that a spill evicts without walking the whole tree. It is rebuilt
// from a scan when it is rescanEvery commits or rescanAge old.
type spillIndex struct {
	order   *list.List // of *spillFile, oldest mtime first
	byPath  map[string]*list.Element
	charged int64 // the sum of charge(size)
	commits int
	scanned time.Time
}

// charge is what a file of size bytes costs against the budget: whole
// SpillBlock blocks, at least one, since even an empty file takes an inode.
func charge(size int64) int64 {
	blocks := size / SpillBlock
	if size%SpillBlock != 0 || blocks == 0 {
		blocks++
	}
	return blocks * SpillBlock
}

// evict records keep (the file just committed, of size bytes; "" for
// none) and deletes the oldest files until the tree is within the budget
// and the file count, never deleting keep and never a temp file young
// enough to still be in use. It is best-effort: files deleted by another
// process meanwhile, and errors, are ignored.
func (s *SpillStore) evict(keep string, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.index
	if ix == nil || ix.commits >= rescanEvery || time.Since(ix.scanned) >= rescanAge {
		ix = s.rescan()
	}
	if keep != "" {
		ix.commits++
		ix.put(spillFile{path: keep, size: size, mtime: time.Now()})
	}
	ix.evictOldest(s.budget(), s.maxFiles(), keep)
}

// rescan rebuilds the index from a walk of Root. Called with s.mu held.
func (s *SpillStore) rescan() *spillIndex {
	files, _ := s.scan()
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mtime.Equal(files[j].mtime) {
			return files[i].mtime.Before(files[j].mtime)
		}
		return files[i].path < files[j].path
	})
	ix := &spillIndex{order: list.New(), byPath: make(map[string]*list.Element, len(files)), scanned: time.Now()}
	for _, f := range files {
		ix.put(f)
	}
	s.index = ix
	s.scans++
	return ix
}

// scan lists every regular file under Root and their total charge.
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
		total += charge(info.Size())
		return nil
	})
	return files, total
}

// put adds f as the newest file, or refreshes it when already known.
func (ix *spillIndex) put(f spillFile) {
	if e, ok := ix.byPath[f.path]; ok {
		ix.charged -= charge(e.Value.(*spillFile).size)
		*e.Value.(*spillFile) = f
		ix.order.MoveToBack(e)
	} else {
		ix.byPath[f.path] = ix.order.PushBack(&f)
	}
	ix.charged += charge(f.size)
}

func (ix *spillIndex) drop(e *list.Element) {
	f := ix.order.Remove(e).(*spillFile)
	delete(ix.byPath, f.path)
	ix.charged -= charge(f.size)
}

// evictOldest removes files oldest first until the index is within both
// bounds, looking at each file at most once. A file already gone counts
// as freed; one another process used since the index saw it is not old,
// and moves to the back like keep and young temp files.
func (ix *spillIndex) evictOldest(budget int64, maxFiles int, keep string) {
	now := time.Now()
	for n := ix.order.Len(); n > 0 && (ix.charged > budget || ix.order.Len() > maxFiles); n-- {
		e := ix.order.Front()
		f := e.Value.(*spillFile)
		if f.path == keep || strings.HasPrefix(filepath.Base(f.path), tempPrefix) && now.Sub(f.mtime) < staleTemp {
			ix.order.MoveToBack(e)
			continue
		}
		fi, err := os.Lstat(f.path)
		if err == nil && fi.ModTime().After(f.mtime) {
			ix.put(spillFile{path: f.path, size: fi.Size(), mtime: fi.ModTime()})
			continue
		}
		if err == nil {
			err = os.Remove(f.path)
		}
		if err == nil || isNotExist(err) {
			ix.drop(e)
		} else {
			ix.order.MoveToBack(e) // not ours to delete: try the others
		}
	}
}
