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
