// Package store keeps conversations in SQLite (modernc.org/sqlite, pure
// Go): sessions, their messages with tool calls and the bounded results the
// model saw (spill files are referenced by path, never copied), full-text
// search over every session's text (FTS5), and export to Markdown.
//
// Writes are durable and atomic per turn: a turn is one transaction, so a
// crash or kill loses at most the turn being written and never leaves the
// database corrupt (WAL journal, synchronous=NORMAL, checked by a test that
// kills writers in a loop). Several howl processes may share one database:
// SQLite serializes the writers, and a busy timeout makes them wait rather
// than fail.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/howl-mcp/howl/mcp"
)

// BusyTimeout is how long a writer waits for another process's transaction.
const BusyTimeout = 10 * time.Second

// Store is an open conversation database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// Clock stamps sessions and turns (time.Now when nil; tests step it
	// to order sessions without sleeping).
	Clock func() time.Time
}

// now is the time from the store's clock, in UTC.
func (s *Store) now() time.Time {
	if s.Clock != nil {
		return s.Clock().UTC()
	}
	return time.Now().UTC()
}

// DefaultPath is howl.db in howl's data dir (mcp.DataDir): $HOWL_DATA_DIR,
// else $XDG_DATA_HOME/howl, else ~/.local/share/howl.
func DefaultPath() (string, error) {
	d, err := mcp.DataDir()
	if err != nil {
		return "", fmt.Errorf("no place for the session database: %w", err)
	}
	return filepath.Join(d, "howl.db"), nil
}

// Open opens (creating if needed) the database at path and runs every
// forward migration it lacks. The file is created 0600 before SQLite opens
// it, so its journal files (which take its mode) are private too.
func Open(ctx context.Context, path string) (*Store, error) {
	name, err := dsn(path)
	if err != nil {
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session database directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	f.Close()
	_ = os.Chmod(path, 0o600) // an older howl's database may be wider
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating %s: %w", path, err)
	}
	return s, nil
}

// dsn is the driver's name for the database at path: a file: URI whose
// path is percent-encoded (a ?, # or % in a directory name stays part of
// the path instead of starting SQLite's query or fragment), with howl's
// connection settings as its query. A Windows path becomes file:///C:/...
func dsn(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return fileURI(filepath.ToSlash(abs)), nil
}

// fileURI is the file: URI of an absolute slash-separated path
// ("/home/x/howl.db", or "C:/Users/x/howl.db" on Windows) with howl's
// connection settings as its query.
func fileURI(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	q := url.Values{
		"_pragma": {
			fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()),
			"journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(1)",
		},
		"_txlock": {"immediate"},
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Path is where the database lives.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// migrations are applied in order, each in its own transaction; the schema
// version is the number applied. Never edit one that has shipped: add more.
var migrations = []string{
	// 1: sessions and messages, with full-text search over message text.
	`CREATE TABLE sessions (
		id TEXT PRIMARY KEY,
		title TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		model TEXT NOT NULL DEFAULT '',
		servers TEXT NOT NULL DEFAULT '[]'
	);
	CREATE TABLE messages (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		turn INTEGER NOT NULL,
		role TEXT NOT NULL,
		body TEXT NOT NULL,
		search_text TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		UNIQUE(session_id, seq)
	);
	CREATE VIRTUAL TABLE messages_fts USING fts5(search_text, content='messages', content_rowid='id');
	CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
		INSERT INTO messages_fts(rowid, search_text) VALUES (new.id, new.search_text);
	END;
	CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
		INSERT INTO messages_fts(messages_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text);
	END;`,
	// 2: listing sessions newest first, and counting messages, without scans.
	`CREATE INDEX sessions_updated ON sessions(updated_at DESC);
	ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
	UPDATE sessions SET message_count = (SELECT count(*) FROM messages WHERE messages.session_id = sessions.id);`,
}

// SchemaVersion is the version Open migrates to.
var SchemaVersion = len(migrations)

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	for {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var v int
		err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (0)`)
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		if v >= len(migrations) {
			tx.Rollback()
			if v > len(migrations) {
				return fmt.Errorf("the database is at schema version %d, newer than this howl (%d): upgrade howl", v, len(migrations))
			}
			return nil
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, v+1); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
}

// Version reports the schema version of the open database.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

// Check runs SQLite's integrity check and returns its verdict ("ok").
func (s *Store) Check(ctx context.Context) (string, error) {
	var res string
	err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res)
	return res, err
}
