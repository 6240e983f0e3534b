package common

import (
	"context"
	"io"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/store"
)

// SessionStore is what the TUI asks of the conversation database.
// *store.Store implements it. Only tea.Cmds call it, never Update or View:
// tests pass an implementation that fails on any use from either.
type SessionStore interface {
	Create(ctx context.Context, title, model string, servers []string, first []llm.Message) (store.Session, error)
	AppendTurn(ctx context.Context, id string, msgs []llm.Message) error
	List(ctx context.Context, filter string, limit int) ([]store.Session, error)
	Get(ctx context.Context, id string) (store.Session, error)
	Load(ctx context.Context, id string) (*llm.Conversation, error)
	Rename(ctx context.Context, id, title string) error
	Delete(ctx context.Context, id string) error
	Search(ctx context.Context, query string, limit int) (store.SearchResult, error)
	Export(ctx context.Context, id string, w io.Writer) error
}

var _ SessionStore = (*store.Store)(nil)
