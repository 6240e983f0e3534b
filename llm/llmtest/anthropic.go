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
	if t.Raw != nil {
		return writeRaw(w, t)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range t.Header {
		w.Header().Set(k, v)
	}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": "llmtest", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": t.InputTokens, "output_tokens": 1}}})
	index := 0
	deltas := &pacer{t: t, r: r}
	// block writes one content block: its deltas as the pacer writes
	// them, then the unpaced ones (a thinking block's signature).
	block := func(start map[string]any, ds []map[string]any, unpaced ...map[string]any) bool {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range ds {
			if !deltas.write(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}) {
				return false
			}
		}
		for _, d := range unpaced {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return true
	}
	// of is s as deltas of type typ, s under key.
	of := func(typ, key, s string) []map[string]any {
		var ds []map[string]any
		for _, p := range t.deltas(s) {
			ds = append(ds, map[string]any{"type": typ, key: p})
		}
		return ds
	}
	if t.Reasoning != "" && !block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, of("thinking_delta", "thinking", t.Reasoning),
		map[string]any{"type": "signature_delta", "signature": "llmtest-signature"}) {
		return false
	}
	if t.Text != "" {
		if t.Stall {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": split(t.Text)[0]}})
			<-r.Context().Done()
			return false
		}
		if !block(map[string]any{"type": "text", "text": ""}, of("text_delta", "text", t.Text)) {
			return false
		}
	}
	for _, tc := range t.ToolCalls {
		if !block(map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}, of("input_json_delta", "partial_json", tc.Arguments)) {
			return false
		}
	}
	if t.TextAfter != "" && !block(map[string]any{"type": "text", "text": ""}, of("text_delta", "text", t.TextAfter)) {
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
