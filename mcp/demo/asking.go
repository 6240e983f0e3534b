package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Requests from the server to the client on stdio: elicitation/create,
// sampling/createMessage and roots/list, which clients before 2026-07-28
// answer (mcp-go sends them on a question tool's behalf, see questions.go).
// A request goes out through the connection's writer and waits for the
// response with its id, which the read loop hands over (see
// stdioConn.dispatch); when the asking handler's context ends first, the
// client is told with notifications/cancelled.

var (
	_ server.SessionWithElicitation = (*stdioSession)(nil)
	_ server.SessionWithSampling    = (*stdioSession)(nil)
	_ server.SessionWithRoots       = (*stdioSession)(nil)
)

// asker sends the session's requests and matches their responses.
type asker struct {
	mu      sync.Mutex
	send    func([]byte) // hands one line to the writer; nil until the connection starts
	next    int64
	pending map[string]chan askResponse
}

// askResponse is a response's result or error, undecoded.
type askResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// askIDPrefix starts the ids of the server's requests, so they cannot be
// mistaken for the numbers clients usually use.
const askIDPrefix = "demo-ask-"

// ask sends method with params to the client and decodes its result into out.
func (a *asker) ask(ctx context.Context, method string, params, out any) error {
	a.mu.Lock()
	if a.send == nil {
		a.mu.Unlock()
		return fmt.Errorf("demo server: cannot send %s before the connection starts", method)
	}
	a.next++
	id := askIDPrefix + strconv.FormatInt(a.next, 10)
	reply := make(chan askResponse, 1)
	a.pending[strconv.Quote(id)] = reply
	send := a.send
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, strconv.Quote(id))
		a.mu.Unlock()
	}()

	line, err := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("demo server: encoding %s: %w", method, err)
	}
	send(line)
	select {
	case r := <-reply:
		if r.Error != nil {
			return fmt.Errorf("the client answered %s with error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("the client's answer to %s does not decode: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		if cancel, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: string(mcp.MethodNotificationCancelled),
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": "the asking request ended"}}}}); err == nil {
			send(cancel)
		}
		return ctx.Err()
	}
}

// answer hands a response to the request waiting for it, reporting false
// when no request of this session has that id.
func (a *asker) answer(id string, line []byte) bool {
	a.mu.Lock()
	reply, ok := a.pending[id]
	delete(a.pending, id)
	a.mu.Unlock()
	if !ok {
		return false
	}
	var r askResponse
	if err := json.Unmarshal(line, &r); err != nil || (r.Result == nil && r.Error == nil) {
		r = askResponse{Error: &struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{mcp.PARSE_ERROR, fmt.Sprintf("a response that is neither a result nor an error: %.200s", line)}}
	}
	reply <- r
	return true
}

// RequestElicitation implements server.SessionWithElicitation.
func (s *stdioSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := s.asker.ask(ctx, string(mcp.MethodElicitationCreate), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// RequestSampling implements server.SessionWithSampling.
func (s *stdioSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := s.asker.ask(ctx, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots implements server.SessionWithRoots.
func (s *stdioSession) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := s.asker.ask(ctx, string(mcp.MethodListRoots), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
