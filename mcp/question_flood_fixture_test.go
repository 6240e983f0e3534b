package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// floodArgs are the arguments of the question-flood fixture's "flood" tool.
type floodArgs struct {
	// Method is what the server asks: sampling/createMessage,
	// elicitation/create or roots/list.
	Method string `json:"method"`
	N      int    `json:"n"`
	// ReadAfter: the server reads none of howl's answers until it has
	// written every question (a flooder that does not listen).
	ReadAfter bool `json:"read_after"`
	// ReplyAt is how many answers end the call (N when 0); "tally"
	// then waits for all N.
	ReplyAt int `json:"reply_at"`
	// Detach answers the call at once and asks afterwards: questions
	// tied to no request of howl's.
	Detach bool `json:"detach"`
	// Size pads each question's text to about that many bytes.
	Size int `json:"size"`
}

// floodTally is what the "flood" tool answers once howl has answered
// every question: how many answers of each kind came back ("decline",
// "result", "error -32000", ...), and one message per error code.
type floodTally struct {
	Answered int               `json:"answered"`
	Outcomes map[string]int    `json:"outcomes"`
	Errors   map[string]string `json:"errors"`
}

// floodQuestion is one server->client request of the flood.
func floodQuestion(method string, i, size int) []byte {
	params := map[string]any{}
	text := fmt.Sprintf("question %d", i)
	text += strings.Repeat("x", max(size-len(text), 0))
	switch method {
	case string(mcpgo.MethodSamplingCreateMessage):
		params = map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}}}
	case string(mcpgo.MethodElicitationCreate):
		params = map[string]any{"message": text + ": your name?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("flood-%d", i), "method": method, "params": params})
	return b
}

// serveQuestionFlood is a server whose "flood" tool asks howl n questions
// as fast as it can write them, and answers the call with the tally once
// reply_at of them have an answer; its "tally" tool answers once all n do.
// One flood per fixture process. "flood" with detach and "log_flood" are
// for measuring the TUI by hand: a config entry whose command is the mcp
// test binary (go test -c), args ["-test.run=^$"] and env
// HOWL_TEST_FIXTURE=question-flood, then `.call question-flood ...`.
func serveQuestionFlood() int {
	s := server.NewMCPServer("question-flood", "1.0", server.WithToolCapabilities(false), server.WithLogging())
	s.AddTool(mcpgo.NewTool("flood", mcpgo.WithString("method"), mcpgo.WithNumber("n"), mcpgo.WithBoolean("read_after"), mcpgo.WithNumber("reply_at"), mcpgo.WithBoolean("detach"), mcpgo.WithNumber("size")), nil)
	s.AddTool(mcpgo.NewTool("tally"), nil)
	s.AddTool(mcpgo.NewTool("log_flood", mcpgo.WithNumber("n"), mcpgo.WithNumber("size")), nil)
	// ask_many asks n questions in one 2026-07-28 input-required result.
	s.AddTool(mcpgo.NewTool("ask_many", mcpgo.WithNumber("n")), func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		b := server.NewInputRequestBuilder("")
		for i := range req.GetInt("n", 0) {
			b.Elicit(fmt.Sprintf("q%d", i), mcpgo.ElicitationParams{Message: fmt.Sprintf("question %d", i),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
		}
		return b.ToolResult(), nil
	})
	var (
		mu               sync.Mutex
		floodID, tallyID json.RawMessage
		args             floodArgs
		tally            floodTally
		written          = make(chan struct{})
	)
	reply := func(id json.RawMessage) {
		b, _ := json.Marshal(tally)
		res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": string(b)}}}})
		writeLine(res)
	}
	return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
		switch {
		case method == "tools/call":
			var p struct {
				Name      string    `json:"name"`
				Arguments floodArgs `json:"arguments"`
			}
			_ = json.Unmarshal(params, &p)
			if p.Name == "ask_many" {
				return nil // mcp-go's server answers it
			}
			if p.Name == "log_flood" {
				return logFlood(id, params)
			}
			mu.Lock()
			defer mu.Unlock()
			if p.Name == "tally" {
				if tally.Answered == args.N {
					reply(id)
				} else {
					tallyID = id
				}
				return []byte{}
			}
			floodID, args = id, p.Arguments
			if args.ReplyAt == 0 {
				args.ReplyAt = args.N
			}
			tally = floodTally{Outcomes: map[string]int{}, Errors: map[string]string{}}
			if args.Detach {
				reply(floodID)
				args.ReplyAt = -1
			}
			go func() {
				for i := range p.Arguments.N {
					writeLine(floodQuestion(p.Arguments.Method, i, p.Arguments.Size))
				}
				close(written)
			}()
			return []byte{} // answered once every question is
		case method == "" && strings.HasPrefix(string(id), `"flood-`):
			mu.Lock()
			w := args.ReadAfter
			mu.Unlock()
			if w {
				<-written
			}
			var answer struct {
				Result *struct {
					Action string `json:"action"`
				} `json:"result"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal(params, &answer)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case answer.Error != nil:
				k := fmt.Sprintf("error %d", answer.Error.Code)
				tally.Outcomes[k]++
				tally.Errors[k] = answer.Error.Message
			case answer.Result != nil && answer.Result.Action != "":
				tally.Outcomes[answer.Result.Action]++
			default:
				tally.Outcomes["result"]++
			}
			tally.Answered++
			if tally.Answered == args.ReplyAt {
				reply(floodID)
			}
			if tally.Answered == args.N && tallyID != nil {
				reply(tallyID)
			}
			return []byte{}
		}
		return nil
	}, nil)
}

// logFlood answers a "log_flood" call at once, then sends n log messages,
// each a short line and one of size bytes.
func logFlood(id, params json.RawMessage) []byte {
	var p struct {
		Arguments struct {
			N    int `json:"n"`
			Size int `json:"size"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	go func() {
		long := strings.Repeat("x", p.Arguments.Size)
		for i := range p.Arguments.N {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
				"params": map[string]any{"level": "info", "logger": "flood", "data": fmt.Sprintf("flood %d\n%s", i, long)}})
			writeLine(b)
		}
	}()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "flooding"}}}})
	return b
}
