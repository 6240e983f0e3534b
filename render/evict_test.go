package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spillFixture writes a file of size bytes under root with the given age.
func spillFixture(t *testing.T, root, rel string, size int, age time.Duration) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	mt := time.Now().Add(-age)
	os.Chtimes(p, mt, mt)
	return p
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestSpillEvictsOldestFilesAcrossServersUntilUnderBudget(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), Budget: 3 * SpillBlock} // each file is one block
	oldest := spillFixture(t, store.Root, "a/1.bin", 1000, 4*time.Hour)
	older := spillFixture(t, store.Root, "b/2.bin", 1000, 3*time.Hour)
	newer := spillFixture(t, store.Root, "a/3.bin", 500, 2*time.Hour)
	it, err := RenderBlob(store, "c", "u", "image/png", b64(pngBytes), PageOptions{}) // ~400 bytes
	if err != nil {
		t.Fatal(err)
	}
	if exists(oldest) || !exists(older) || !exists(newer) || !exists(it.(*SpillResult).Path) {
		t.Errorf("after eviction: oldest %v older %v newer %v new %v; want only the oldest gone",
			exists(oldest), exists(older), exists(newer), exists(it.(*SpillResult).Path))
	}
	if _, total := store.scan(); total > store.Budget {
		t.Errorf("tree is %d bytes, over the budget %d", total, store.Budget)
	}
}

func TestSpillNeverEvictsTheFileJustWritten(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), Budget: 10}
	other := spillFixture(t, store.Root, "a/old.bin", 100, time.Hour)
	it, err := RenderBlob(store, "s", "u", "image/png", b64(pngBytes), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !exists(it.(*SpillResult).Path) {
		t.Error("the file just written was evicted")
	}
	if exists(other) {
		t.Error("the older file was kept although the tree is over budget")
	}
}

func TestEvictionToleratesFilesDeletedUnderIt(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), Budget: 3 * SpillBlock}
	gone := spillFixture(t, store.Root, "a/gone.bin", 1000, 3*time.Hour)
	next := spillFixture(t, store.Root, "a/next.bin", 1000, 2*time.Hour)
	keep := spillFixture(t, store.Root, "a/keep.bin", 1000, time.Hour)
	store.evict(keep, 1000) // indexes all three
	os.Remove(gone)         // another process got there first
	store.Budget = SpillBlock
	store.evict(keep, 1000)
	if left := store.index.charged; left != SpillBlock {
		t.Errorf("charged after eviction %d, want %d (the vanished file counts as freed)", left, SpillBlock)
	}
	if exists(next) || !exists(keep) {
		t.Errorf("next exists %v, keep exists %v", exists(next), exists(keep))
	}
}

func TestEvictionSparesTempFilesStillBeingWritten(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), Budget: 1}
	young := spillFixture(t, store.Root, "a/"+tempPrefix+"young.tmp", 100, time.Minute)
	stale := spillFixture(t, store.Root, "a/"+tempPrefix+"stale.tmp", 100, 2*staleTemp)
	store.evict("", 0)
	if !exists(young) || exists(stale) {
		t.Errorf("young temp exists %v (want true), stale temp exists %v (want false)", exists(young), exists(stale))
	}
}

func TestSpillStoreZeroBoundsMeanTheDefaults(t *testing.T) {
	if got := (&SpillStore{}).budget(); got != SpillBudget {
		t.Errorf("budget %d, want SpillBudget", got)
	}
	if got := (&SpillStore{}).maxFiles(); got != MaxSpillFiles {
		t.Errorf("max files %d, want MaxSpillFiles", got)
	}
}

// treeOnDisk counts the regular files under root and what they hold on
// disk, each rounded up to whole SpillBlock blocks.
func treeOnDisk(t *testing.T, root string) (files int, charged int64) {
	t.Helper()
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				files++
				charged += (info.Size() + SpillBlock - 1) / SpillBlock * SpillBlock
			}
		}
		return nil
	})
	return files, charged
}

// tinyImagesResult is a tool result of n distinct 3-byte images, the i-th
// of them numbered first+i: a server filling the disk with inodes.
func tinyImagesResult(first, n int) string {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i := first; i < first+n; i++ {
		if i > first {
			b.WriteByte(',')
		}
		// 0xf8 and up is never UTF-8, so each image is spilled.
		img := []byte{0xf8 | byte(i>>16)&7, byte(i >> 8), byte(i)}
		fmt.Fprintf(&b, `{"type":"image","data":%q,"mimeType":"image/png"}`, b64(img))
	}
	b.WriteString(`]}`)
	return b.String()
}

// spillTinyImages has store bound a tool result of n tiny images numbered
// from first, and fails unless every one of them was spilled.
func spillTinyImages(t *testing.T, store *SpillStore, first, n int) {
	t.Helper()
	out, _ := bound(t, store, tinyImagesResult(first, n))
	if got := bytes.Count(out, []byte(`"spilled":true`)); got != n {
		t.Fatalf("a result of %d tiny images spilled %d of them", n, got)
	}
}

// A hostile server's results of thousands of tiny images must not grow the
// spill tree past its bounds: each file costs at least a block against the
// budget, and the file count is bounded on its own.
func TestTinySpillsStayWithinTheBudgetAndTheFileCount(t *testing.T) {
	const perResult = 250 // what fits in one result
	results := 12         // 3,000 spills, six times either bound (the CI runs this under Wine too)
	if testing.Short() {
		results = 4
	}
	for _, tc := range []struct {
		name     string
		store    *SpillStore
		maxFiles int
	}{
		{"budget of 64 blocks", &SpillStore{Budget: 64 * SpillBlock}, 64},
		{"500 files", &SpillStore{MaxFiles: 500}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := tc.store
			store.Root = t.TempDir()
			for r := 0; r < results; r++ {
				spillTinyImages(t, store, r*perResult, perResult)
				files, charged := treeOnDisk(t, store.Root)
				if files > tc.maxFiles || charged > store.budget() {
					t.Fatalf("after %d spills the tree holds %d files charged %d bytes; want at most %d files and %d bytes",
						(r+1)*perResult, files, charged, tc.maxFiles, store.budget())
				}
			}
		})
	}
}

// A spill updates the store's index instead of walking the whole tree, so
// the cost of a spill does not grow with the files already spilled.
func TestSpillRescansTheTreeOnlyEveryRescanEveryCommits(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), MaxFiles: 100}
	const n = 3 * rescanEvery
	start := time.Now()
	for i := 0; i < n; i += 250 {
		spillTinyImages(t, store, i, 250)
	}
	// A rescan is also due every rescanAge, however slow the machine.
	if want := n/rescanEvery + 1 + int(time.Since(start)/rescanAge); store.scans > want {
		t.Errorf("%d spills walked the tree %d times, want at most %d", n, store.scans, want)
	}
}

// Another process sharing Root adds files the index does not know: the
// next rescan finds them and evicts past the bounds again.
func TestSpillEvictsFilesAnotherProcessAddedOnceItRescans(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), MaxFiles: 10}
	spillTinyImages(t, store, 0, 10)
	other := &SpillStore{Root: store.Root, MaxFiles: 1000}
	spillTinyImages(t, other, 10, 50)
	for i := 60; store.scans < 2; i++ {
		spillTinyImages(t, store, i, 1)
	}
	if files, _ := treeOnDisk(t, store.Root); files > 10 {
		t.Errorf("after a rescan the tree holds %d files, want at most 10", files)
	}
}
