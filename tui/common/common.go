package common

import (
	"context"
	"io"
	"log"
	"strconv"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/theme"
)

// Common is shared by every component: services, theme, keymap and the
// few functions that touch the outside world. One value is built by New and
// handed to each child; nothing in tui reads globals.
type Common struct {
	// Ctx lives as long as the program; each request derives its own
	// context from it, so quitting cancels everything in flight.
	Ctx context.Context
	// RT is the MCP side. Only commands may call it.
	RT Runtime
	// Approvals are the tool definitions the person approved (nil: none
	// kept): a tool the server changed since is flagged in the catalog.
	Approvals *llm.Approvals
	Theme     *theme.Theme
	Styles    *theme.Styles
	Keys      *KeyMap
	// Images is how images are drawn.
	Images ImageMode
	// Clipboard receives what `y` copies.
	Clipboard Clipboard
	// DisplayPath shortens a file path for display (home as ~).
	DisplayPath func(string) string
	// Tick returns a command that delivers msg after d; tests stub it so no
	// timer runs and no spinner frame reaches a golden.
	Tick func(d time.Duration, msg tea.Msg) tea.Cmd
	// Clock is the clock (time.Now when nil); Now reads it.
	Clock func() time.Time
	// Log receives debug output (io.Discard unless HOWL_DEBUG is set).
	Log *log.Logger

	// ModelRT is what the chat's model calls (RT in production).
	ModelRT Runtime
	// Hidden are the servers `.mcp disable` hid from the chat, .list and
	// completion for this session. Only Update changes it; a turn copies it.
	Hidden map[string]bool
	// CompletionTimeout bounds each completion request.
	CompletionTimeout time.Duration
	// SwitchModel resolves `.model provider/name`; it runs in a command.
	SwitchModel func(ctx context.Context, spec string) (llm.Model, error)
	// Editor is the command ctrl+o runs on the draft ("" when $EDITOR is unset).
	Editor string
	// Terminal is what Run draws on, set by Run: the editor writes to it
	// itself (nil: to the program's output).
	Terminal io.Writer
	// Store keeps the chat's conversations (nil: not saved; StoreErr says
	// why). Only commands may call it.
	Store    SessionStore
	StoreErr error
	// Location is the time zone dates are shown in (time.Local when nil).
	Location *time.Location
	// Progress is the latest progress of the requests in flight, by owner:
	// the chat's tool blocks, the viewer and the status bar draw from it.
	// Only Update changes it.
	Progress *ProgressBoard
	// Subs are the resources the person follows (every server's). Only
	// Update changes them.
	Subs *Subscriptions
	// Writes lets Close wait for the turns being written.
	Writes *WriteGate

	nextID RequestID
}

// RequestID identifies one asynchronous request. Every id comes from one
// source (Common.NewID), so no two requests anywhere share one: an owner
// remembers the id it waits for, and a result with another id is stale.
type RequestID uint64

// NewID returns a fresh request id. Only Update calls it.
func (c *Common) NewID() RequestID {
	c.nextID++
	return c.nextID
}

// Owner names who waits for an asynchronous result: a pane, the root, or
// one dialog on the stack (DialogOwner).
type Owner string

// The panes' owners; each dialog gets its own when it is pushed.
const (
	OwnerRoot    Owner = "root"
	OwnerCatalog Owner = "catalog"
	OwnerViewer  Owner = "viewer"
	OwnerChat    Owner = "chat"
	OwnerLogs    Owner = "logs"
)

// DialogOwner is the owner of the dialog pushed with id.
func DialogOwner(id RequestID) Owner { return Owner("dialog:" + strconv.FormatUint(uint64(id), 10)) }

// Result is the envelope of every asynchronous answer: who asked (Owner),
// which of its requests it answers (ID), and the answer (Msg). The root
// delivers it to its owner wherever that is, a pane or any dialog of the
// stack, and drops it when the owner is gone.
type Result struct {
	Owner Owner
	ID    RequestID
	Msg   any
}

// Deliver wraps the message cmd produces in owner's envelope for id.
func Deliver(owner Owner, id RequestID, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg { return Result{Owner: owner, ID: id, Msg: cmd()} }
}

// defaultTick is Common.Tick outside tests.
func DefaultTick(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// WriteGate lets the program end without cutting a turn's write short:
// writes run under the read lock, and close takes the write lock, so it
// waits for those in flight; writes that start after it are skipped.
type WriteGate struct {
	mu     sync.RWMutex
	closed bool
}

// Do runs f unless the gate is closed.
func (g *WriteGate) Do(f func() tea.Msg) tea.Msg {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return nil
	}
	return f()
}

// Close waits for the writes in flight and refuses later ones.
func (g *WriteGate) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

func DiscardLogger() *log.Logger { return log.New(io.Discard, "", 0) }

// Now is the current time from the injectable clock.
func (c *Common) Now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock()
}

// PermissionGrace is how long a dialog that opens on its own (a
// permission, a question, trust) ignores keys: the person may be typing.
const PermissionGrace = 400 * time.Millisecond
