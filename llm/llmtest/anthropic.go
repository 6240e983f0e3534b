package llmtest

import (
	"encoding/json"
	"net/http"
)

// NewAnthropic starts a scripted Anthropic endpoint: POST /v1/messages,
// answered as a Messages SSE stream (message_start, content blocks for
// thinking, text and tool_use with their deltas, message_delta with the stop
// reason and usage, message_stop). Its URL is the server root, as the SDK's
// base URL.
func NewAnthropic(script Script) *Server {
	s := newServer(script, "/v1/messages", parseAnthropic, writeAnthropic)
	s.URL = s.srv.URL
	return s
}

func parseAnthropic(body []byte) (Request, error) {
	var in struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	req := Request{Model: in.Model, Stream: in.Stream, System: contentText(in.System)}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	for _, m := range in.Messages {
		msg := Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Text = s
			req.Messages = append(req.Messages, msg)
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return Request{}, err
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Text += b.Text
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
			case "tool_result":
				msg.ToolResults = append(msg.ToolResults, ToolResult{CallID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError})
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

func writeAnthropic(w http.ResponseWriter, r *http.Request, t Turn) bool {
	if t.Status != 0 && t.Status != http.StatusOK {
		typ := t.ErrorType
		if typ == "" {
			typ = "invalid_request_error"
		}
		writeError(w, t, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": t.ErrorMessage}})
		return true
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range t.Header {
		w.Header().Set(k, v)
	}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": "llmtest", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": t.InputTokens, "output_tokens": 1}}})
	index := 0
	// block writes one content block; with ChunkBytes, its deltas are
	// written back to back without flushing, or paced by Pace if paced.
	block := func(start map[string]any, deltas []map[string]any, paced bool) bool {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		write := sse
		if t.ChunkBytes > 0 && t.Pace == nil {
			write = sseUnflushed
		}
		for i, d := range deltas {
			if paced && t.Pace != nil && i > 0 {
				select {
				case <-t.Pace:
				case <-r.Context().Done():
					return false
				}
			}
			if write(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}) != nil || r.Context().Err() != nil {
				return false
			}
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return true
	}
	textDeltas := func(s string) []map[string]any {
		ps := split(s)
		if t.ChunkBytes > 0 {
			ps = pieces(s, t.ChunkBytes)
		}
		var ds []map[string]any
		for _, p := range ps {
			ds = append(ds, map[string]any{"type": "text_delta", "text": p})
		}
		return ds
	}
	if t.Reasoning != "" {
		var ds []map[string]any
		for _, p := range split(t.Reasoning) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": "llmtest-signature"})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds, false)
	}
	if t.Text != "" {
		pieces := split(t.Text)
		if t.Stall {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": pieces[0]}})
			<-r.Context().Done()
			return false
		}
		if !block(map[string]any{"type": "text", "text": ""}, textDeltas(t.Text), true) {
			return false
		}
	}
	for _, tc := range t.ToolCalls {
		var ds []map[string]any
		for _, p := range split(tc.Arguments) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		block(map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}, ds, false)
	}
	if t.TextAfter != "" && !block(map[string]any{"type": "text", "text": ""}, textDeltas(t.TextAfter), false) {
		return false
	}
	stop := "end_turn"
	switch {
	case len(t.ToolCalls) > 0:
		stop = "tool_use"
	case t.Truncated:
		stop = "max_tokens"
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": t.OutputTokens}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
	return true
}
