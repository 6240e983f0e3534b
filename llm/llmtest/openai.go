package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewOpenAI starts a scripted OpenAI-compatible endpoint: POST
// /v1/chat/completions, answered as a Chat Completions SSE stream (role
// chunk, reasoning_content and content deltas, tool-call deltas, a
// finish_reason chunk, a usage chunk, [DONE]). Its URL ends in /v1.
func NewOpenAI(script Script) *Server {
	s := newServer(script, "/v1/chat/completions", parseOpenAI, writeOpenAI)
	s.URL = s.srv.URL + "/v1"
	return s
}

func parseOpenAI(body []byte) (Request, error) {
	var in struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function Function `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	req := Request{Model: in.Model, Stream: in.Stream}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
		req.Functions = append(req.Functions, t.Function)
	}
	for _, m := range in.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			req.System += text
			continue
		case "tool":
			// Consecutive tool messages are one turn of results.
			res := ToolResult{CallID: m.ToolCallID, Content: text}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
				req.Messages[n-1].ToolResults = append(req.Messages[n-1].ToolResults, res)
			} else {
				req.Messages = append(req.Messages, Message{Role: "tool", ToolResults: []ToolResult{res}})
			}
			continue
		}
		msg := Message{Role: m.Role, Text: text}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// contentText reads a content that is a string or an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func writeOpenAI(w http.ResponseWriter, r *http.Request, t Turn) bool {
	if t.Status != 0 && t.Status != http.StatusOK {
		typ := t.ErrorType
		if typ == "" {
			typ = "invalid_request_error"
		}
		writeError(w, t, map[string]any{"error": map[string]any{"message": t.ErrorMessage, "type": typ, "param": nil, "code": nil}})
		return true
	}
	if t.Raw != nil {
		return writeRaw(w, t)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range t.Header {
		w.Header().Set(k, v)
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1, "model": "llmtest",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	deltas := &pacer{t: t, r: r}
	for _, p := range t.deltas(t.Reasoning) {
		if !deltas.write(w, "", chunk(map[string]any{"reasoning_content": p}, nil)) {
			return false
		}
	}
	text := t.deltas(t.Text)
	for range max(t.Repeat, 1) {
		if r.Context().Err() != nil { // the client went away: buffers may still take writes
			return false
		}
		for i, p := range text {
			if !deltas.write(w, "", chunk(map[string]any{"content": p}, nil)) {
				return false
			}
			if t.Stall && i == 0 {
				<-r.Context().Done()
				return false
			}
		}
	}
	for i, tc := range t.ToolCalls {
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil))
		for _, p := range t.deltas(tc.Arguments) {
			if !deltas.write(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)) {
				return false
			}
		}
	}
	finish := "stop"
	switch {
	case len(t.ToolCalls) > 0:
		finish = "tool_calls"
	case t.Truncated:
		finish = "length"
	}
	sse(w, "", chunk(map[string]any{}, finish))
	sse(w, "", map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1, "model": "llmtest", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": t.InputTokens, "completion_tokens": t.OutputTokens, "total_tokens": t.InputTokens + t.OutputTokens}})
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	return true
}
