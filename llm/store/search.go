package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// MaxSearchHits bounds one search.
const MaxSearchHits = 100

// Hit is one message matching a search.
type Hit struct {
	SessionID string    `json:"session_id"`
	Title     string    `json:"title"`
	Role      string    `json:"role"`
	At        time.Time `json:"at"`
	// Snippet is the matching text around the terms, marked with [ and ].
	Snippet string `json:"snippet"`
}

// SearchResult is a search's answer, coverage first.
type SearchResult struct {
	Coverage string `json:"coverage"`
	Query    string `json:"query"`
	Hits     []Hit  `json:"hits"`
}

// Search finds messages of every session matching the query's words (all
// of them, prefixes allowed), best matches first.
func (s *Store) Search(ctx context.Context, query string, limit int) (SearchResult, error) {
	if limit <= 0 || limit > MaxSearchHits {
		limit = MaxSearchHits
	}
	res := SearchResult{Query: query, Hits: []Hit{}}
	match := ftsQuery(query)
	if match == "" {
		return res, fmt.Errorf("search for %q has no words: give at least one word", query)
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`, match).Scan(&total); err != nil {
		return res, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT m.session_id, s.title, m.role, m.created_at, snippet(messages_fts, 0, '[', ']', '…', 12)
		FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN sessions s ON s.id = m.session_id
		WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
	if err != nil {
		return res, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var at int64
		if err := rows.Scan(&h.SessionID, &h.Title, &h.Role, &at, &h.Snippet); err != nil {
			return res, err
		}
		h.At = time.Unix(0, at).UTC()
		res.Hits = append(res.Hits, h)
	}
	res.Coverage = fmt.Sprintf("showing %d of %d matching messages", len(res.Hits), total)
	return res, rows.Err()
}

// ftsQuery turns free text into an FTS5 query: each word quoted (so no
// word is read as an operator) and prefix-matched.
func ftsQuery(q string) string {
	var terms []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	}) {
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	return strings.Join(terms, " ")
}
