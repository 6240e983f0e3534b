package mcp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

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

// searchIndex is a BM25 index over a catalog, built on first search.
type searchIndex struct {
	docs   []map[string]float64 // weighted term frequency per item
	length []float64
	avgLen float64
	df     map[string]int
	terms  []string // every distinct term, sorted, for prefix matches
	// post lists the items holding each term, in catalog order, so a
	// query visits only the items that match it.
	post map[string][]int
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
	idx := &searchIndex{df: map[string]int{}, post: map[string][]int{}}
	total := 0.0
	for _, it := range c.Items {
		tf := map[string]float64{}
		add := func(s string, w float64) {
			for _, t := range Tokenize(s) {
				tf[t] += w
			}
		}
		add(it.Name, weightName)
		if it.ID != it.Name {
			add(it.ID, weightURI)
		}
		add(it.Title, weightTitle)
		add(it.Description, weightDesc)
		add(it.MIMEType, weightURI)
		l := 0.0
		for t, f := range tf {
			idx.df[t]++
			idx.post[t] = append(idx.post[t], len(idx.docs))
			l += f
		}
		idx.docs = append(idx.docs, tf)
		idx.length = append(idx.length, l)
		total += l
	}
	if len(c.Items) > 0 {
		idx.avgLen = total / float64(len(c.Items))
	}
	for t := range idx.df {
		idx.terms = append(idx.terms, t)
	}
	sort.Strings(idx.terms)
	return idx
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
		for i := range cat.Items {
			hits = append(hits, scored{i, 0})
		}
	} else {
		idx := cat.searchIndex()
		n := float64(len(cat.Items))
		scores := make([]float64, len(cat.Items))
		matched := make([]int, len(cat.Items))
		for _, qt := range terms {
			expanded := idx.expand(qt)
			seen := make([]bool, len(cat.Items))
			for term, credit := range expanded {
				idf := math.Log(1 + (n-float64(idx.df[term])+0.5)/(float64(idx.df[term])+0.5))
				for _, d := range idx.post[term] {
					f := idx.docs[d][term]
					norm := f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*idx.length[d]/idx.avgLen))
					scores[d] += credit * idf * norm
					if !seen[d] {
						seen[d] = true
						matched[d]++
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
		slices.SortStableFunc(hits, func(a, b scored) int {
			if a.score != b.score {
				return cmp.Compare(b.score, a.score)
			}
			return strings.Compare(cat.Items[a.i].ID, cat.Items[b.i].ID)
		})
	}
	res.Matches = len(hits)
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
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and any are as at be by can do for from how i in is it me my
		of on or that the this to what which with you your`) {
		stopwords[w] = true
	}
}

// contentTerms drops the stopwords from query terms, unless nothing else
// is left (a search for "the" or "it" still searches).
func contentTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		if !stopwords[t] {
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
func (idx *searchIndex) expand(qt string) map[string]float64 {
	out := map[string]float64{}
	if _, ok := idx.df[qt]; ok {
		out[qt] = 1
	}
	if len([]rune(qt)) >= 3 {
		i := sort.SearchStrings(idx.terms, qt)
		for ; i < len(idx.terms) && strings.HasPrefix(idx.terms[i], qt); i++ {
			if idx.terms[i] != qt {
				out[idx.terms[i]] = prefixCredit
			}
		}
	}
	return out
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
