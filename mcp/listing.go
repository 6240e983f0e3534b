package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// Listing is a server's catalog as `howl ls` shows it once: the kinds
// listed, what went wrong, and every item, each kept as the JSON the
// server sent (checked and parsed once as it arrived, parsed again when
// it is shown) rather than as a CatalogItem. At 120,000 items the parsed
// catalog, the pages it was gathered from and its index were five times
// the client memory of a client that keeps the items' bytes; a Listing
// keeps the bytes, and is not cached (Catalog is what later questions use).
type Listing struct {
	Server   string
	Listed   []Kind
	Warnings []Warning
	// Failed are the kinds whose listing failed (see Catalog.Failed).
	Failed []Kind
	// Items are deduplicated as a Catalog's are, in listing order.
	Items []*ListedItem
}

// ListedItem is one item of a Listing.
type ListedItem struct {
	Kind   Kind
	Server string
	ID     string
	// Off marks a tool the person switched off (CatalogItem.Off).
	Off    bool
	parsed *CatalogItem // when the item came from a cached Catalog
	raw    []byte       // else the server's JSON of it
}

// Item parses the item (again: it parsed when it was listed).
func (it *ListedItem) Item() (CatalogItem, error) {
	var c CatalogItem
	if it.parsed != nil {
		c = *it.parsed
	} else {
		var err error
		if c, err = parseItem(it.Server, it.Kind, it.raw); err != nil {
			return c, err
		}
	}
	c.Off = c.Off || it.Off
	return c, nil
}

// NewListedItem is a ListedItem of a parsed item.
func NewListedItem(it *CatalogItem) *ListedItem {
	return &ListedItem{Kind: it.Kind, Server: it.Server, ID: it.ID, parsed: it}
}

// MarshalJSON writes the item as its CatalogItem, HTML unescaped (as
// howl's JSON output is).
func (it *ListedItem) MarshalJSON() ([]byte, error) {
	c, err := it.Item()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// KnownCount is how many items of kind the listing holds; ok is false
// when the kind's listing failed (see Catalog.KnownCount).
func (l *Listing) KnownCount(kind Kind) (n int, ok bool) {
	if slices.Contains(l.Failed, kind) {
		return 0, false
	}
	for _, it := range l.Items {
		if it.Kind == kind {
			n++
		}
	}
	return n, true
}

// Listing lists the server for one showing: from its cached catalog when
// there is one, else every kind and page afresh, keeping each item's
// bytes, not caching what it listed.
func (r *Runtime) Listing(ctx context.Context, name string) (*Listing, error) {
	conn, err := r.Conn(name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	cached := r.servers[name].catalog
	r.mu.Unlock()
	if cached != nil {
		l := &Listing{Server: cached.Server, Listed: cached.Listed, Warnings: cached.Warnings, Failed: cached.Failed, Items: make([]*ListedItem, len(cached.Items))}
		items := make([]ListedItem, len(cached.Items))
		for i := range cached.Items {
			it := &cached.Items[i]
			items[i] = ListedItem{Kind: it.Kind, Server: it.Server, ID: it.ID, parsed: it}
			l.Items[i] = &items[i]
		}
		return l, nil
	}
	want := conn.listedKinds()
	results := make([]*kindListing, len(want))
	var wg sync.WaitGroup
	for i, k := range want {
		wg.Go(func() {
			l := &kindListing{kind: k, lean: true}
			conn.listMore(ctx, l, nil)
			results[i] = l
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("listing %s: %w", name, ctx.Err())
	}
	l := &Listing{Server: name, Listed: want}
	n := 0
	for _, kl := range results {
		for _, p := range kl.listed {
			n += len(p)
		}
	}
	// The items stay in the pages they were kept in; Items points at them.
	l.Items = make([]*ListedItem, 0, n)
	seen := make(map[itemKey]struct{}, n)
	var dups []Warning
	for i, kl := range results {
		for _, p := range kl.listed {
			for j := range p {
				it := &p[j]
				k := itemKey{it.Kind, it.ID}
				if _, dup := seen[k]; dup {
					dups = append(dups, duplicateWarning(it.Kind, it.ID))
					continue
				}
				seen[k] = struct{}{}
				l.Items = append(l.Items, it)
			}
		}
		l.Warnings = append(l.Warnings, kl.warns...)
		if kl.failed {
			l.Failed = append(l.Failed, want[i])
		}
	}
	l.Warnings = append(l.Warnings, dups...)
	return l, nil
}

// keepLean keeps the items of one page that passed (keep) as a page of
// ListedItems whose bytes are copied into one slice of exactly their
// size: a page's line, which holds more than its items, is not kept
// alive by them.
func (l *kindListing) keepLean(server string, elems [][]byte, keep []int, ids []string) {
	size := 0
	for _, i := range keep {
		size += len(elems[i])
	}
	arena := make([]byte, 0, size)
	page := make([]ListedItem, len(keep))
	for j, i := range keep {
		start := len(arena)
		arena = append(arena, elems[i]...)
		page[j] = ListedItem{Kind: l.kind, Server: server, ID: ids[j], raw: arena[start:len(arena):len(arena)]}
	}
	l.listed = append(l.listed, page)
}
