package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// RPCTrace is one request howl sent to a server and how it ended, emitted
// as EventTrace while tracing is on (SetTracing): what a person debugging
// a server wants to see beside its log.
type RPCTrace struct {
	Method string
	// Target is what the request names, when it names one: a tool or a
	// prompt, or a resource's URI.
	Target   string
	Duration time.Duration
	// Bytes is the size of the raw result; 0 when the request failed.
	Bytes int
	// Err is why it failed: the transport's error or the server's
	// JSON-RPC error, with its code.
	Err string
	// Cancelled: howl withdrew the request (the person cancelled it, or
	// howl was closing) before an answer came.
	Cancelled bool
	// Incoming: the server asked howl (elicitation, sampling, roots), and
	// Answer says what howl answered (accept, decline, 2 roots, ...).
	Incoming bool
	Answer   string

	// The bodies, set only while SetTraceBodies is on: the request's
	// params and the answer (the raw result, or the error object) as JSON,
	// each at most MaxTraceBodyBytes (see TraceRecord).
	At           time.Time
	ID           json.RawMessage
	Request      json.RawMessage
	Response     json.RawMessage
	RequestBytes int
	// ResponseBytes is the answer's size, errors included (Bytes counts
	// results only).
	ResponseBytes           int
	RequestCut, ResponseCut bool
}

// String is the trace as one line: "→ tools/call echo · 1.2ms · 70 B",
// or "→ resources/read demo://x · 3ms · failed: -32603 ...". Server text
// in it is sanitized.
func (t RPCTrace) String() string {
	took := " · " + t.Duration.Round(100*time.Microsecond).String()
	if t.Incoming {
		s := "← " + render.SanitizeLine(t.Method) + took
		if t.Err != "" {
			return s + " · howl answered with an error: " + render.SanitizeLine(t.Err)
		}
		return s + " · answered " + render.SanitizeLine(t.Answer)
	}
	s := "→ " + render.SanitizeLine(t.Method)
	if t.Target != "" {
		s += " " + render.SanitizeLine(t.Target)
	}
	s += took
	switch {
	case t.Cancelled:
		return s + " · cancelled"
	case t.Err != "":
		return s + " · failed: " + render.SanitizeLine(t.Err)
	}
	return s + " · " + render.HumanBytes(int64(t.Bytes))
}

// SetTracing turns request tracing on or off for every server. While it
// is on, each finished request is emitted as an EventTrace; while it is
// off, tracing costs one atomic load per request.
func (r *Runtime) SetTracing(on bool) { r.tracing.Store(on) }

// tracer is the trace hook of one server's transport.
func (r *Runtime) tracer(server string) traceFunc {
	return func(req transport.JSONRPCRequest, resp *transport.JSONRPCResponse, spooled int, err error, took time.Duration) {
		if !r.tracing.Load() {
			return
		}
		t := RPCTrace{Method: req.Method, Target: traceTarget(req.Params), Duration: took}
		if r.bodies.Load() {
			t.At = time.Now().Add(-took)
			t.ID, _ = json.Marshal(req.ID)
			t.Request, t.RequestBytes, t.RequestCut = traceJSON(req.Params)
			if resp != nil && resp.Error != nil {
				t.Response, t.ResponseBytes, t.ResponseCut = traceJSON(map[string]any{"error": resp.Error})
			} else if resp != nil {
				t.Response, t.ResponseBytes, t.ResponseCut = traceRaw(resp.Result)
			}
		}
		switch {
		case errors.Is(err, context.Canceled):
			t.Cancelled = true
		case errors.Is(err, context.DeadlineExceeded):
			t.Err = "no answer in time"
		case err != nil:
			t.Err = err.Error()
		case resp != nil && resp.Error != nil:
			t.Err = fmt.Sprintf("%d %s", resp.Error.Code, resp.Error.Message)
		case resp != nil:
			t.Bytes = len(resp.Result) + spooled
		}
		r.emit(Event{Kind: EventTrace, Server: server, Trace: &t})
	}
}

// traceAnswer traces howl's answer to a server's own request, started at
// start: answer says what howl answered, err why it could not; req and
// res are the request's params and howl's result, for the bodies (nil
// when not known).
func (r *Runtime) traceAnswer(server, method string, start time.Time, answer string, err error, req, res any) {
	if !r.tracing.Load() {
		return
	}
	t := RPCTrace{Method: method, Incoming: true, Duration: time.Since(start), Answer: answer}
	if err != nil {
		t.Err = err.Error()
	}
	if r.bodies.Load() {
		t.At = start
		if req != nil {
			t.Request, t.RequestBytes, t.RequestCut = traceJSON(req)
		}
		if err != nil {
			t.Response, t.ResponseBytes, t.ResponseCut = traceJSON(map[string]any{"error": map[string]any{"message": err.Error()}})
		} else if res != nil {
			t.Response, t.ResponseBytes, t.ResponseCut = traceJSON(res)
		}
	}
	r.emit(Event{Kind: EventTrace, Server: server, Trace: &t})
}

// traceFunc sees a request and its outcome once it has ended; spooled is
// the bytes of the result that stayed in the stdio transport's spool file
// (its body shows their placeholders).
type traceFunc func(req transport.JSONRPCRequest, resp *transport.JSONRPCResponse, spooled int, err error, took time.Duration)

// traceTarget is the tool, prompt or URI a request's params name. mcp-go
// passes typed params on initialize-era connections and a map of raw
// fields on 2026-07-28 ones (where it adds _meta).
func traceTarget(params any) string {
	var name, uri string
	switch p := params.(type) {
	case mcpgo.CallToolParams:
		name = p.Name
	case mcpgo.GetPromptParams:
		name = p.Name
	case mcpgo.ReadResourceParams:
		uri = p.URI
	case mcpgo.SubscribeParams:
		uri = p.URI
	case mcpgo.UnsubscribeParams:
		uri = p.URI
	case map[string]json.RawMessage:
		_ = json.Unmarshal(p["name"], &name)
		_ = json.Unmarshal(p["uri"], &uri)
	}
	return cmp.Or(name, uri)
}
