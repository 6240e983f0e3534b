package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/render"
)

// maxListingHeap bounds the heap growth of listing one endless kind.
// Measured: about 300 MiB, what is kept plus mcp-go's own cache of every
// tool listed and the garbage of the pages; without the bounds the heap
// grows by gigabytes.
const maxListingHeap = 768 << 20

// listEndless lists an endless fixture's catalog, returning it with the
// peak heap growth while it was listed.
func listEndless(t *testing.T, name string) (*Catalog, uint64) {
	t.Helper()
	rt := startRuntime(t, fixture(name))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cat *Catalog
	var err error
	grew := peakHeap(func() { cat, err = rt.Catalog(ctx, name, false) })
	if err != nil {
		t.Fatalf("the listing must end by itself: %v (peak heap growth %d MiB)", err, grew>>20)
	}
	t.Logf("%s: kept %d tools; peak heap growth while listing: %d MiB", name, cat.Count(KindTool), grew>>20)
	return cat, grew
}

// warned reports whether the catalog carries a tool warning containing want.
func warned(cat *Catalog, want string) bool {
	for _, w := range cat.Warnings {
		if w.Kind == KindTool && strings.Contains(w.Reason, want) {
			return true
		}
	}
	return false
}

func TestEndlessFreshCursorsStopAtMaxCatalogItemsInBoundedMemory(t *testing.T) {
	cat, grew := listEndless(t, "endless-tools")
	if n := cat.Count(KindTool); n != MaxCatalogItems {
		t.Errorf("kept %d tools, want MaxCatalogItems (%d)", n, MaxCatalogItems)
	}
	want := fmt.Sprintf("kept %d of the tools; the server offered more (MaxCatalogItems = %d per kind)", MaxCatalogItems, MaxCatalogItems)
	if !warned(cat, want) {
		t.Errorf("want the warning %q, got %v", want, cat.Warnings)
	}
	if grew > maxListingHeap {
		t.Errorf("listing %d small tools grew the heap %d MiB", MaxCatalogItems, grew>>20)
	}
}

func TestEndlessFreshCursorsStopAtMaxListingBytesInBoundedMemory(t *testing.T) {
	cat, grew := listEndless(t, "endless-big-tools")
	// The items that fit, counted the way the fixture sends them.
	desc := strings.Repeat("d", endlessBigDescription)
	fit, size := 0, 0
	for ; ; fit++ {
		n := len(endlessTool(fit/endlessPage, fit%endlessPage, desc))
		if size+n > MaxListingBytes {
			break
		}
		size += n
	}
	if n := cat.Count(KindTool); n != fit {
		t.Errorf("kept %d tools, want the %d that fit in MaxListingBytes", n, fit)
	}
	want := fmt.Sprintf("kept %d of the tools, %s of JSON; the server offered more (MaxListingBytes = %d per kind)", fit, render.HumanBytes(int64(size)), MaxListingBytes)
	if !warned(cat, want) {
		t.Errorf("want the warning %q, got %v", want, cat.Warnings)
	}
	if grew > maxListingHeap {
		t.Errorf("listing %d MiB of tools grew the heap %d MiB", MaxListingBytes>>20, grew>>20)
	}
}

// TestHowlLsListingOfEndlessToolsStopsAtMaxListingBytesOnDisk: `howl ls`
// keeps a listing's items in a temp file, not a catalog. A server that
// never stops offering large tools fills that file no further than the
// catalog's bound, and says so as the catalog does.
func TestHowlLsListingOfEndlessToolsStopsAtMaxListingBytesOnDisk(t *testing.T) {
	rt := startRuntime(t, fixture("endless-big-tools"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l, err := rt.Listing(ctx, "endless-big-tools")
	if err != nil {
		t.Fatalf("the listing must end by itself: %v", err)
	}
	defer l.Close()
	if l.store == nil {
		t.Fatal("the listing kept no store of its items")
	}
	if l.store.size > MaxListingBytes {
		t.Fatalf("the listing's temp file holds %d bytes, want at most MaxListingBytes (%d)", l.store.size, MaxListingBytes)
	}
	found := false
	for _, w := range l.Warnings {
		found = found || (w.Kind == KindTool && strings.Contains(w.Reason, fmt.Sprintf("MaxListingBytes = %d per kind", MaxListingBytes)))
	}
	if !found || len(l.Items) == 0 {
		t.Errorf("kept %d items with warnings %v, want the tools that fit and a warning naming MaxListingBytes", len(l.Items), l.Warnings)
	}
}
