package mcp

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/howl-mcp/howl/render"
)

// Search limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
	// MaxHitDescription clamps each hit's description, so one verbose
	// server cannot crowd the result.
	MaxHitDescription = 512
	// MaxResultWarnings bounds the warnings a search or listing carries.
	MaxResultWarnings = 10
)

// SearchHit is one ranked item.
type SearchHit struct {
	// Server is set in a search of every server (SearchCatalogs).
	Server      string   `json:"server,omitempty"`
	Kind        Kind     `json:"kind"`
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MIMEType    string   `json:"mime_type,omitempty"`
	Audience    []string `json:"audience,omitempty"`
	Score       float64  `json:"score"`
}

// SearchResult is what mcp_search_<server> and `howl search` return.
// Coverage serializes first: a consumer that cuts the tail still learns
// how much it is looking at.
type SearchResult struct {
	Coverage    string      `json:"coverage"`
	Server      string      `json:"server"`
	Query       string      `json:"query"`
	Shown       int         `json:"shown"`
	Matches     int         `json:"matches"`
	CatalogSize int         `json:"catalog_size"`
	Warnings    []Warning   `json:"warnings,omitempty"`
	Results     []SearchHit `json:"results"`
}

// searchIndex is a BM25 index over a catalog, built on its first search
// and kept with it (a catalog is replaced, not changed, when its server's
// list changes, so the index is built once per catalog version). Terms
// are numbered and each has a postings list of the items it occurs in: an
// index of one map per item took 1.15 s to build at 100,000 items, and a
// search read every item's map for every query term.
type searchIndex struct {
	termID map[string]int32
	terms  []string    // by id
	post   [][]posting // by term id: the items the term occurs in, in order
	length []float64   // by item: its weighted term count
	avgLen float64
	sorted []string // every distinct term, sorted, for prefix matches
}

// posting is one item a term occurs in, with its weighted frequency.
type posting struct {
	doc int32
	tf  float64
}

// Field weights: a hit in the name says more than one in a description.
const (
	weightName  = 3.0
	weightTitle = 2.0
	weightDesc  = 1.0
	weightURI   = 1.0
	bm25K1      = 1.2
	bm25B       = 0.75
	// prefixCredit is what a query term earns when it only prefixes a term.
	prefixCredit = 0.5
)

func (c *Catalog) searchIndex() *searchIndex {
	c.idxOnce.Do(func() { c.idx = buildSearchIndex(c) })
	return c.idx
}

func buildSearchIndex(c *Catalog) *searchIndex {
	idx := &searchIndex{termID: map[string]int32{}, length: make([]float64, len(c.Items))}
	total := 0.0
	var doc []posting // this item's terms: (term id, weight), merged
	for d, it := range c.Items {
		doc = doc[:0]
		add := func(s string, w float64) {
			tokenize(s, func(t string) {
				id, ok := idx.termID[t]
				if !ok {
					id = int32(len(idx.terms))
					idx.termID[t] = id
					idx.terms = append(idx.terms, t)
					idx.post = append(idx.post, nil)
				}
				for i := range doc {
					if doc[i].doc == id {
						doc[i].tf += w
						return
					}
				}
				doc = append(doc, posting{id, w})
			})
		}
		add(it.Name, weightName)
		if it.ID != it.Name {
			add(it.ID, weightURI)
		}
		add(it.Title, weightTitle)
		add(it.Description, weightDesc)
		add(it.MIMEType, weightURI)
		l := 0.0
		for _, p := range doc { // here p.doc is the term, p.tf its weight
			idx.post[p.doc] = append(idx.post[p.doc], posting{int32(d), p.tf})
			l += p.tf
		}
		idx.length[d] = l
		total += l
	}
	if len(c.Items) > 0 {
		idx.avgLen = total / float64(len(c.Items))
	}
	idx.sorted = slices.Clone(idx.terms)
	slices.Sort(idx.sorted)
	return idx
}

// tokenize calls fn with each of Tokenize(s)'s words. An ASCII string (all
// of a generated catalog, most of any) is split without converting it to
// runes, and a word without capitals is a substring of s, not a copy.
func tokenize(s string, fn func(string)) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for _, t := range Tokenize(s) {
				fn(t)
			}
			return
		}
	}
	start, upper := -1, false
	flush := func(end int) {
		if start >= 0 {
			if upper {
				fn(strings.ToLower(s[start:end]))
			} else {
				fn(s[start:end])
			}
		}
		start, upper = -1, false
	}
	var prev byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		isUpper := c >= 'A' && c <= 'Z'
		switch {
		case isUpper || c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if isUpper && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9') {
				flush(i)
			}
			if start < 0 {
				start = i
			}
			upper = upper || isUpper
		default:
			flush(i)
		}
		prev = c
	}
	flush(len(s))
}

// Tokenize lowercases s and splits it into words at non-alphanumerics and
// camelCase humps: "listTools_v2" -> list, tools, v2.
func Tokenize(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// Search ranks the catalog's items of every kind against query with BM25
// over name, title, description and URI. An empty query lists the catalog
// in order. limit defaults to DefaultSearchLimit and is clamped to
// MaxSearchLimit; the clamp is stated in the coverage line.
func Search(cat *Catalog, query string, limit int) (SearchResult, error) {
	if limit < 0 {
		return SearchResult{}, fmt.Errorf("limit %d is negative: pass 1..%d, or omit it for %d", limit, MaxSearchLimit, DefaultSearchLimit)
	}
	clamped := ""
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	if limit > MaxSearchLimit {
		clamped = fmt.Sprintf(" (limit %d clamped to %d)", limit, MaxSearchLimit)
		limit = MaxSearchLimit
	}
	res := SearchResult{Server: cat.Server, Query: query, CatalogSize: len(cat.Items)}
	res.Warnings = boundWarnings(cat.Warnings)

	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	terms := contentTerms(Tokenize(query))
	if len(terms) == 0 {
		hits = make([]scored, 0, min(len(cat.Items), limit))
		for i := range cat.Items[:min(len(cat.Items), limit)] {
			hits = append(hits, scored{i, 0})
		}
		res.Matches = len(cat.Items)
	} else {
		idx := cat.searchIndex()
		n := float64(len(cat.Items))
		scores := make([]float64, len(cat.Items))
		matched := make([]int32, len(cat.Items))
		seen := make([]int, len(cat.Items)) // the last query term (1-based) each item matched
		for q, qt := range terms {
			for term, credit := range idx.expand(qt) {
				post := idx.post[term]
				df := float64(len(post))
				idf := math.Log(1 + (n-df+0.5)/(df+0.5))
				for _, p := range post {
					f := p.tf
					norm := f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*idx.length[p.doc]/idx.avgLen))
					scores[p.doc] += credit * idf * norm
					if seen[p.doc] != q+1 {
						seen[p.doc] = q + 1
						matched[p.doc]++
					}
				}
			}
		}
		for d, s := range scores {
			if s > 0 {
				// Items matching every query term outrank partial matches.
				s *= float64(matched[d]) / float64(len(terms))
				hits = append(hits, scored{d, s})
			}
		}
		better := func(a, b scored) bool {
			if a.score != b.score {
				return a.score > b.score
			}
			return cat.Items[a.i].ID < cat.Items[b.i].ID
		}
		// Only the first limit are shown: keep those, not a sorted copy of
		// every match (a word every generated item shares matches 100,000).
		res.Matches = len(hits)
		hits = topN(hits, limit, better)
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	res.Shown = len(hits)
	res.Results = make([]SearchHit, 0, len(hits))
	for _, h := range hits {
		it := cat.Items[h.i]
		res.Results = append(res.Results, SearchHit{
			Kind: it.Kind, ID: it.ID, Name: it.Name, Title: it.Title,
			Description: clampText(it.Description, MaxHitDescription),
			MIMEType:    it.MIMEType, Audience: it.Audience,
			Score: math.Round(h.score*1000) / 1000,
		})
	}
	what := "matches for " + fmt.Sprintf("%q", query)
	if len(terms) == 0 {
		what = "items (empty query lists the catalog in order)"
	}
	res.Coverage = fmt.Sprintf("showing %d of %d %s in a catalog of %d items%s", res.Shown, res.Matches, what, res.CatalogSize, clamped)
	if res.Shown < res.Matches {
		res.Coverage += fmt.Sprintf("; narrow the query or raise limit (max %d) to see more", MaxSearchLimit)
	}
	if len(cat.Warnings) > 0 {
		res.Coverage += fmt.Sprintf("; %d listing warnings: the catalog may be incomplete", len(cat.Warnings))
	}
	return res, nil
}

// stopwords are English function words that a query in plain language
// ("tool to book a table") carries and nearly every description shares:
// left in, they make almost the whole catalog "match". A fixed list of
// thirty-odd words is data, not a job for a dependency.
var stopwords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`a an and any are as at be by can do for from how i in is it me my
		of on or that the this to what which with you your`) {
		set[w] = true
	}
	return set
})

// contentTerms drops the stopwords from query terms, unless nothing else
// is left (a search for "the" or "it" still searches).
func contentTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		if !stopwords()[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// expand maps a query term to the index terms it matches: itself at full
// credit, and (for terms of 3+ characters) the terms it prefixes.
func (idx *searchIndex) expand(qt string) map[int32]float64 {
	out := map[int32]float64{}
	if id, ok := idx.termID[qt]; ok {
		out[id] = 1
	}
	if len([]rune(qt)) >= 3 {
		i := sort.SearchStrings(idx.sorted, qt)
		for ; i < len(idx.sorted) && strings.HasPrefix(idx.sorted[i], qt); i++ {
			if idx.sorted[i] != qt {
				out[idx.termID[idx.sorted[i]]] = prefixCredit
			}
		}
	}
	return out
}

// topN returns the n best of xs, best first, by better (a strict order).
func topN[T any](xs []T, n int, better func(a, b T) bool) []T {
	var top []T
	for _, x := range xs {
		if len(top) == n && !better(x, top[n-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(x, top[i]) })
		if len(top) < n {
			top = append(top, x)
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = x
	}
	return top
}

// boundWarnings keeps at most MaxResultWarnings and says how many were left out.
func boundWarnings(ws []Warning) []Warning {
	if len(ws) <= MaxResultWarnings {
		return ws
	}
	out := append([]Warning(nil), ws[:MaxResultWarnings-1]...)
	return append(out, Warning{Reason: fmt.Sprintf("%d more warnings not shown (%d of %d shown)", len(ws)-(MaxResultWarnings-1), MaxResultWarnings-1, len(ws))})
}

// clampText cuts s to at most n bytes at a rune boundary, marking the cut
// with shown-of-total.
func clampText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := render.RuneBoundary(s, n)
	return s[:cut] + fmt.Sprintf("… [%d of %d bytes]", cut, len(s))
}
