// Package llmtest provides scripted model endpoints for tests: HTTP servers
// that speak the real wire formats (OpenAI Chat Completions and Anthropic
// Messages, streamed as server-sent events), answer from a script, and record
// every request in one provider-neutral shape. Point a real provider at one
// and the production code path runs unchanged, as net/http/httptest does for
// handlers.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/howl-mcp/howl/render"
)

// Turn is what the scripted model does for one request.
type Turn struct {
	// Reasoning is streamed first (Anthropic thinking, reasoning_content
	// on the OpenAI wire), then Text, then the ToolCalls.
	Reasoning string
	Text      string
	ToolCalls []ToolCall
	// TextAfter is a second text block, after the tool calls, as
	// Anthropic models may write. Anthropic wire only.
	TextAfter string
	// InputTokens and OutputTokens are reported as usage.
	InputTokens, OutputTokens int64
	// Truncated ends the turn at the output token limit.
	Truncated bool
	// Status, when neither 0 nor 200, answers with this HTTP status, the
	// Header and the provider's error envelope around ErrorMessage
	// (ErrorType is its type, e.g. "rate_limit_error").
	Status       int
	Header       map[string]string
	ErrorMessage string
	ErrorType    string
	// Stall streams the first piece of Text, then holds the response open
	// until the client goes away.
	Stall bool
	// Repeat streams Text this many times over, like a model stuck
	// repeating itself, stopping early when the client goes away (see
	// Server.Abandoned). OpenAI wire only.
	Repeat int
	// ChunkBytes, when set, streams Reasoning, Text, TextAfter and each
	// call's Arguments as deltas of at most ChunkBytes bytes (cut on
	// character boundaries) written back to back with no flush between
	// them, as a fast local model floods its tokens.
	ChunkBytes int
	// Pace, when set, streams those deltas one at a time, each flushed,
	// and waits for a value from Pace before writing each delta after the
	// turn's first, so a test can see each delta arrive before the next is
	// sent. With ChunkBytes, deltas of that size. (Anthropic's one
	// signature delta is not paced.)
	Pace <-chan struct{}
	// Raw, when set, is the whole stream, written in place of the
	// script's: each string one server-sent event as written (its "event:"
	// and "data:" lines), followed by a blank line. A hostile or broken
	// endpoint's wire.
	Raw []string
}

// writeRaw writes t.Raw as the response's events, flushed.
func writeRaw(w http.ResponseWriter, t Turn) bool {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range t.Raw {
		if _, err := io.WriteString(w, e+"\n\n"); err != nil {
			return false
		}
	}
	return http.NewResponseController(w).Flush() == nil
}

// ToolCall is one call the scripted model makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Message is one message of a recorded request.
type Message struct {
	Role        string
	Text        string
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// ToolResult is one tool result the model received.
type ToolResult struct {
	CallID  string
	Content string
	IsError bool
}

// Request is one recorded request, parsed from either wire format.
type Request struct {
	Path     string
	Header   http.Header
	Model    string
	Stream   bool
	System   string
	Messages []Message
	// Tools are the declared function names, in order.
	Tools []string
	// Functions are the declarations as received (OpenAI requests only).
	Functions []Function
	// Body is the raw request body.
	Body []byte
}

// Function is one declaration as a model received it.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// FunctionsJSON is the declarations received, serialized as howl
// measures its own (mcp.DeclarationJSON: a compact JSON array of name,
// description, parameters), so the two sizes compare byte for byte.
func (r Request) FunctionsJSON() []byte {
	if len(r.Functions) == 0 {
		return []byte("[]")
	}
	b, _ := render.Marshal(r.Functions)
	return b
}

// ToolResults returns the tool results of the request's last message.
func (r Request) ToolResults() []ToolResult {
	if len(r.Messages) == 0 {
		return nil
	}
	var out []ToolResult
	for i := len(r.Messages) - 1; i >= 0 && len(r.Messages[i].ToolResults) > 0; i-- {
		out = append(r.Messages[i].ToolResults, out...)
	}
	return out
}

// Script answers request number n (0-based).
type Script func(n int, req Request) Turn

// Sequence scripts the turns in order; a request past the end gets a 500.
func Sequence(turns ...Turn) Script {
	return func(n int, _ Request) Turn {
		if n < len(turns) {
			return turns[n]
		}
		return Turn{Status: http.StatusInternalServerError, ErrorMessage: fmt.Sprintf("llmtest: the script has %d turns; request %d is past its end", len(turns), n+1), ErrorType: "server_error"}
	}
}

// Server is a scripted model endpoint.
type Server struct {
	// URL is the base URL to give the provider: ".../v1" for OpenAI (the
	// Chat Completions base URL), the server root for Anthropic.
	URL string
	srv *httptest.Server

	mu        sync.Mutex
	reqs      []Request
	busy      time.Duration
	abandoned int
}

// Abandoned is how many responses the client went away from before the
// server had written them to the end (a Stall, or a Repeat cut short).
func (s *Server) Abandoned() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.abandoned
}

// Busy is the total time the server spent answering (parsing requests and
// writing streams), so a benchmark can leave the stand-in's own cost out.
func (s *Server) Busy() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// newServer starts a scripted server; write answers one request and
// reports whether it wrote the answer to the end.
func newServer(script Script, path string, parse func([]byte) (Request, error), write func(http.ResponseWriter, *http.Request, Turn) bool) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		defer func() {
			s.mu.Lock()
			s.busy += time.Since(start)
			s.mu.Unlock()
		}()
		if r.URL.Path != path {
			http.Error(w, `{"error":{"message":"llmtest: no route `+r.URL.Path+`","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		req, err := parse(body)
		if err != nil {
			http.Error(w, `{"error":{"message":"llmtest: unparsable request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		req.Path, req.Header, req.Body = r.URL.Path, r.Header.Clone(), body
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		if !write(w, r, script(n, req)) {
			s.mu.Lock()
			s.abandoned++
			s.mu.Unlock()
		}
	}))
	return s
}

// sse writes one server-sent event and flushes it; an error says the
// client went away.
func sse(w http.ResponseWriter, event string, data any) error {
	if err := sseUnflushed(w, event, data); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// sseUnflushed writes one server-sent event, leaving it in the
// response's buffer.
func sseUnflushed(w http.ResponseWriter, event string, data any) error {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	_, err := fmt.Fprintf(w, "data: %s\n\n", b)
	return err
}

// pieces cuts s into deltas of at most n bytes, on character boundaries
// (a character longer than n is a delta of its own).
func pieces(s string, n int) []string {
	var out []string
	for s != "" {
		i := min(n, len(s))
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// deltas cuts s as t streams it: pieces of ChunkBytes, or split.
func (t Turn) deltas(s string) []string {
	if t.ChunkBytes > 0 {
		return pieces(s, t.ChunkBytes)
	}
	return split(s)
}

// pacer writes the deltas of one turn: back to back without flushing
// when they flood (ChunkBytes without Pace), else flushed, each after
// the first waiting for Pace when it is set.
type pacer struct {
	t    Turn
	r    *http.Request
	sent int
}

// write writes one delta event; false when the client went away.
func (p *pacer) write(w http.ResponseWriter, event string, data any) bool {
	if p.t.Pace != nil && p.sent > 0 {
		select {
		case <-p.t.Pace:
		case <-p.r.Context().Done():
			return false
		}
	}
	p.sent++
	write := sse
	if p.t.ChunkBytes > 0 && p.t.Pace == nil {
		write = sseUnflushed
	}
	return write(w, event, data) == nil && p.r.Context().Err() == nil
}

// split cuts s into up to three pieces, so text arrives as several deltas.
func split(s string) []string {
	if len(s) < 6 {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	r := []rune(s)
	a, b := len(r)/3, 2*len(r)/3
	return []string{string(r[:a]), string(r[a:b]), string(r[b:])}
}

func writeError(w http.ResponseWriter, t Turn, body any) {
	for k, v := range t.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(t.Status)
	_ = json.NewEncoder(w).Encode(body)
}
