package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/howl-mcp/howl/llm"
)

// Session describes one stored conversation.
type Session struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Model is "provider/name" of the last turn.
	Model string `json:"model"`
	// Servers were enabled when the session was created.
	Servers  []string `json:"servers"`
	Messages int      `json:"messages"`
}

// ErrNotFound is a session id the store does not hold.
var ErrNotFound = errors.New("no such session")

// maxTitle bounds a title taken from a first question.
const maxTitle = 80

// TitleFrom makes a session title from its first question: the first line,
// clamped to 80 characters at a word boundary.
func TitleFrom(question string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(question), "\n", 2)[0])
	if line == "" {
		return "untitled"
	}
	if utf8.RuneCountInString(line) <= maxTitle {
		return line
	}
	r := []rune(line)[:maxTitle]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > maxTitle/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102") + "-" + hex.EncodeToString(b)
}

// ErrNoTurn is a session created without its first turn.
var ErrNoTurn = errors.New("a session is stored with its first turn, and there is none")

// Create stores a new session, titled from its first question, together
// with its first turn, in one transaction: a session exists only once its
// first turn does, so a write that fails (a full disk) leaves nothing
// behind. model is "provider/name"; servers were enabled for it.
func (s *Store) Create(ctx context.Context, title, model string, servers []string, first []llm.Message) (Session, error) {
	if len(first) == 0 {
		return Session{}, fmt.Errorf("creating a session: %w", ErrNoTurn)
	}
	now := s.now()
	if servers == nil {
		servers = []string{}
	}
	sv, _ := json.Marshal(servers)
	sess := Session{ID: newID(), Title: TitleFrom(title), Created: now, Updated: now, Model: model, Servers: servers}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Session{}, fmt.Errorf("creating a session: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, title, created_at, updated_at, model, servers) VALUES (?, ?, ?, ?, ?, ?)`,
		sess.ID, sess.Title, now.UnixNano(), now.UnixNano(), model, string(sv)); err != nil {
		return Session{}, fmt.Errorf("creating a session: %w", err)
	}
	if err := appendTurn(ctx, tx, sess.ID, first, now); err != nil {
		return Session{}, err
	}
	if err := tx.Commit(); err != nil {
		return Session{}, fmt.Errorf("creating a session: %w", err)
	}
	sess.Messages = len(first)
	for _, m := range first {
		if m.Model != "" {
			sess.Model = m.Model // as appendTurn records it
		}
	}
	return sess, nil
}

// AppendTurn stores one finished turn (the person's message, the model's
// answers, tool calls and results) in one transaction: all of it or none.
func (s *Store) AppendTurn(ctx context.Context, id string, msgs []llm.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing a turn of %s: %w", id, err)
	}
	defer tx.Rollback()
	if err := appendTurn(ctx, tx, id, msgs, s.now()); err != nil {
		return err
	}
	return tx.Commit()
}

// appendTurn writes a turn of session id inside tx, updated at now.
func appendTurn(ctx context.Context, tx *sql.Tx, id string, msgs []llm.Message, now time.Time) error {
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&exists); err != nil || exists == 0 {
		if err == nil {
			err = ErrNotFound
		}
		return fmt.Errorf("storing a turn of %s: %w", id, err)
	}
	var seq, turn int
	err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), -1) + 1, COALESCE(MAX(turn), -1) + 1 FROM messages WHERE session_id = ?`, id).Scan(&seq, &turn)
	if err != nil {
		return fmt.Errorf("storing a turn of %s: %w", id, err)
	}
	model := ""
	for i, m := range msgs {
		body, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("storing a turn of %s: %w", id, err)
		}
		at := m.Time
		if at.IsZero() {
			at = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages(session_id, seq, turn, role, body, search_text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			id, seq+i, turn, string(m.Role), string(body), searchText(m), at.UnixNano()); err != nil {
			return fmt.Errorf("storing a turn of %s: %w", id, err)
		}
		if m.Model != "" {
			model = m.Model
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, message_count = message_count + ?, model = CASE WHEN ? = '' THEN model ELSE ? END WHERE id = ?`,
		now.UnixNano(), len(msgs), model, model, id)
	if err != nil {
		return fmt.Errorf("storing a turn of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("storing a turn of %s: %w", id, ErrNotFound)
	}
	return nil
}

// searchText is what full-text search sees of a message: its text, and the
// names and arguments of tool calls (not the bulky results).
func searchText(m llm.Message) string {
	var b strings.Builder
	b.WriteString(m.Text)
	for _, c := range m.ToolCalls {
		b.WriteString("\n" + c.Name + " " + c.Arguments)
	}
	for _, r := range m.ToolResults {
		b.WriteString("\n" + r.Summary)
	}
	return b.String()
}

// List returns sessions newest first, with titles containing filter
// (case-insensitive) when it is not empty; limit 0 means all.
func (s *Store) List(ctx context.Context, filter string, limit int) ([]Session, error) {
	q := `SELECT id, title, created_at, updated_at, model, servers, message_count FROM sessions`
	var args []any
	if filter != "" {
		q += ` WHERE title LIKE ? ESCAPE '\'`
		args = append(args, "%"+strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(filter)+"%")
	}
	q += ` ORDER BY updated_at DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(...any) error }

func scanSession(r scanner) (Session, error) {
	var sess Session
	var created, updated int64
	var servers string
	if err := r.Scan(&sess.ID, &sess.Title, &created, &updated, &sess.Model, &servers, &sess.Messages); err != nil {
		return Session{}, err
	}
	sess.Created, sess.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	_ = json.Unmarshal([]byte(servers), &sess.Servers)
	return sess, nil
}

// Get returns one session's description.
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	sess, err := scanSession(s.db.QueryRowContext(ctx, `SELECT id, title, created_at, updated_at, model, servers, message_count FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %q: %w (list them with howl sessions list)", id, ErrNotFound)
	}
	return sess, err
}

// Latest returns the most recently updated session.
func (s *Store) Latest(ctx context.Context) (Session, error) {
	list, err := s.List(ctx, "", 1)
	if err != nil {
		return Session{}, err
	}
	if len(list) == 0 {
		return Session{}, fmt.Errorf("no sessions yet: %w", ErrNotFound)
	}
	return list[0], nil
}

// Load returns the exact conversation the model saw, message by message.
func (s *Store) Load(ctx context.Context, id string) (*llm.Conversation, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT body FROM messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", id, err)
	}
	defer rows.Close()
	conv := llm.NewConversation()
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var m llm.Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("loading %s: a stored message is unreadable: %w", id, err)
		}
		conv.Messages = append(conv.Messages, m)
	}
	return conv, rows.Err()
}

// Rename retitles a session.
func (s *Store) Rename(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("a session title cannot be empty")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return nil
}

// Delete removes a session and its messages.
func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Messages first, explicitly, so the search index's delete trigger runs
	// for each whatever the foreign-key settings.
	if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return tx.Commit()
}
