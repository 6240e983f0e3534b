package render

import (
	"os"
	"path/filepath"
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
	store := &SpillStore{Root: t.TempDir(), Budget: 2500}
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
	root := t.TempDir()
	gone := spillFixture(t, root, "a/gone.bin", 1000, 3*time.Hour)
	next := spillFixture(t, root, "a/next.bin", 1000, 2*time.Hour)
	keep := spillFixture(t, root, "a/keep.bin", 1000, time.Hour)
	files, total := (&SpillStore{Root: root}).scan()
	os.Remove(gone) // another process got there first
	if left := evictOldest(files, total, 1000, keep); left != 1000 {
		t.Errorf("total after eviction %d, want 1000 (the vanished file counts as freed)", left)
	}
	if exists(next) || !exists(keep) {
		t.Errorf("next exists %v, keep exists %v", exists(next), exists(keep))
	}
}

func TestEvictionSparesTempFilesStillBeingWritten(t *testing.T) {
	store := &SpillStore{Root: t.TempDir(), Budget: 1}
	young := spillFixture(t, store.Root, "a/"+tempPrefix+"young.tmp", 100, time.Minute)
	stale := spillFixture(t, store.Root, "a/"+tempPrefix+"stale.tmp", 100, 2*staleTemp)
	store.evict("")
	if !exists(young) || exists(stale) {
		t.Errorf("young temp exists %v (want true), stale temp exists %v (want false)", exists(young), exists(stale))
	}
}

func TestSpillStoreZeroBudgetMeansTheDefault(t *testing.T) {
	if got := (&SpillStore{}).budget(); got != SpillBudget {
		t.Errorf("budget %d, want SpillBudget", got)
	}
}
