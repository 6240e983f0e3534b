package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
)

// Listing is a server's catalog as `howl ls` shows it once: the kinds
// listed, what went wrong, and every item, each kept as the JSON the
// server sent (checked and parsed once as it arrived, parsed again when
// it is shown) rather than as a CatalogItem, and kept in a temp file, not
// in memory. At 120,000 items the parsed catalog, the pages it was
// gathered from and its index were five times the client memory of a
// client that keeps the items' bytes in memory; a Listing holds the
// items' ids in memory and nothing more of them. It is not cached
// (Catalog is what later questions use). Close removes its file.
type Listing struct {
	Server   string
	Listed   []Kind
	Warnings []Warning
	// Failed are the kinds whose listing failed (see Catalog.Failed).
	Failed []Kind
	// Items are deduplicated as a Catalog's are, in listing order.
	Items []*ListedItem
	store *pageStore
}

// Close removes the listing's temp file; its items can no longer be read.
func (l *Listing) Close() error {
	if l.store == nil {
		return nil
	}
	return l.store.close()
}

// ListedItem is one item of a Listing: its id, and where its JSON is.
// It is small (48 bytes; 120,000 of them are 5.8 MB).
type ListedItem struct {
	ID string
	// Off marks a tool the person switched off (CatalogItem.Off).
	Off bool
	// n and at are the length and place of the item's JSON in src.store.
	n      int32
	at     int64
	src    *itemSource
	parsed *CatalogItem // when the item came from a cached Catalog
}

// itemSource is what the items of one kind of one listing share.
type itemSource struct {
	server string
	kind   Kind
	store  *pageStore
}

// Kind is the item's kind.
func (it *ListedItem) Kind() Kind {
	if it.parsed != nil {
		return it.parsed.Kind
	}
	return it.src.kind
}

// Server is the name of the item's server.
func (it *ListedItem) Server() string {
	if it.parsed != nil {
		return it.parsed.Server
	}
	return it.src.server
}

// Item parses the item (again: it parsed when it was listed).
func (it *ListedItem) Item() (CatalogItem, error) {
	var c CatalogItem
	if it.parsed != nil {
		c = *it.parsed
	} else {
		var err error
		if c, err = it.src.store.parse(it); err != nil {
			return c, err
		}
	}
	c.Off = c.Off || it.Off
	return c, nil
}

// NewListedItem is a ListedItem of a parsed item.
func NewListedItem(it *CatalogItem) *ListedItem {
	return &ListedItem{ID: it.ID, parsed: it}
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
		if it.Kind() == kind {
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
	cached := r.slotOf(name).catalog
	r.mu.Unlock()
	if cached != nil {
		l := &Listing{Server: cached.Server, Listed: cached.Listed, Warnings: cached.Warnings, Failed: cached.Failed, Items: make([]*ListedItem, len(cached.Items))}
		items := make([]ListedItem, len(cached.Items))
		for i := range cached.Items {
			it := &cached.Items[i]
			items[i] = ListedItem{ID: it.ID, parsed: it}
			l.Items[i] = &items[i]
		}
		return l, nil
	}
	want := conn.listedKinds()
	store := newPageStore(spoolDir(r.opts.CacheDir))
	results := make([]*kindListing, len(want))
	var wg sync.WaitGroup
	for i, k := range want {
		wg.Go(func() {
			l := &kindListing{kind: k, src: &itemSource{server: name, kind: k, store: store}}
			conn.listMore(ctx, l, nil)
			results[i] = l
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		store.close()
		return nil, fmt.Errorf("listing %s: %w", name, ctx.Err())
	}
	if err := r.endedErr(name, conn); err != nil { // it died while it was listed
		store.close()
		return nil, err
	}
	l := &Listing{Server: name, Listed: want, store: store}
	n := 0
	for _, kl := range results {
		for _, p := range kl.listed {
			n += len(p)
		}
	}
	// The items stay in the pages they were kept in; Items points at them.
	l.Items = make([]*ListedItem, 0, n)
	var dups []Warning
	for i, kl := range results {
		// One kind's ids at a time: a kind's items share a kind.
		size := 0
		for _, p := range kl.listed {
			size += len(p)
		}
		seen := make(map[string]struct{}, size)
		for _, p := range kl.listed {
			for j := range p {
				it := &p[j]
				if _, dup := seen[it.ID]; dup {
					dups = append(dups, duplicateWarning(kl.kind, it.ID))
					continue
				}
				seen[it.ID] = struct{}{}
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

// keepLean keeps the items of one page that passed (keep) in l's store,
// one write a page, and as a page of ListedItems.
func (l *kindListing) keepLean(elems [][]byte, keep []int, ids []string) {
	size := 0
	for _, i := range keep {
		size += len(elems[i])
	}
	page := make([]ListedItem, len(keep))
	b := make([]byte, 0, size)
	for j, i := range keep {
		page[j] = ListedItem{ID: ids[j], n: int32(len(elems[i])), at: int64(len(b)), src: l.src}
		b = append(b, elems[i]...)
	}
	at := l.src.store.add(b)
	for j := range page {
		page[j].at += at
	}
	l.listed = append(l.listed, page)
}

// pageStore holds the JSON of a Listing's items: in an unlinked temp file
// under dir (createUnlinkedTemp), read back a block at a time while the
// reads follow one another, or in memory when no file can be made. Its size is bounded by the bounds
// on a listing (MaxListingBytes a kind).
type pageStore struct {
	dir  string
	mu   sync.Mutex
	f    *os.File
	size int64
	mem  [][]byte // the pages, when there is no file
	err  error    // why there is no file
	// buf holds the bytes of the file from bufAt, read ahead.
	buf   []byte
	bufAt int64
}

// pageStoreBlock is how much of the file one read brings in.
const pageStoreBlock = 256 << 10

func newPageStore(dir string) *pageStore { return &pageStore{dir: dir} }

// add stores one page's items and returns where they start.
func (s *pageStore) add(b []byte) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil && s.err == nil {
		if s.err = os.MkdirAll(s.dir, 0o700); s.err == nil {
			// Unlinked at once: a listing cut short (howl killed) leaves
			// no file behind.
			s.f, s.err = createUnlinkedTemp(s.dir, "listing-*.tmp")
		}
	}
	if s.f != nil {
		if _, err := s.f.WriteAt(b, s.size); err == nil {
			at := s.size
			s.size += int64(len(b))
			return at
		}
		s.err = fmt.Errorf("writing %s: the listing is kept in memory from here", s.f.Name())
	}
	// In memory: a page's items at (its index, 0) of a space of its own.
	s.mem = append(s.mem, b)
	return int64(len(s.mem)-1)<<32 | 1<<62
}

// parse parses the JSON of it, reading it back.
func (s *pageStore) parse(it *ListedItem) (CatalogItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, err := s.read(it.at, int(it.n))
	if err != nil {
		return CatalogItem{}, fmt.Errorf("reading back %s %q of the listing of %s: %w", it.src.kind, it.ID, it.src.server, err)
	}
	return parseItem(it.src.server, it.src.kind, raw) // copies what it keeps of raw
}

func (s *pageStore) read(at int64, n int) ([]byte, error) {
	if at&(1<<62) != 0 {
		page := s.mem[(at&^(1<<62))>>32]
		off := at & (1<<32 - 1)
		return page[off : off+int64(n)], nil
	}
	if s.f == nil {
		return nil, errors.New("the listing is closed")
	}
	if at >= s.bufAt && at+int64(n) <= s.bufAt+int64(len(s.buf)) {
		return s.buf[at-s.bufAt:][:n], nil
	}
	size := max(n, pageStoreBlock)
	if cap(s.buf) < size {
		s.buf = make([]byte, size)
	}
	s.buf = s.buf[:size]
	m, err := s.f.ReadAt(s.buf, at)
	if m < n {
		s.buf = s.buf[:0]
		return nil, err
	}
	s.buf, s.bufAt = s.buf[:m], at
	return s.buf[:n], nil
}

func (s *pageStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem, s.buf = nil, nil
	if s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	return f.Close() // the file has no name left: closing it is its end
}
