package mcp

import (
	"encoding/json"
	"time"
)

// MaxTraceBodyBytes bounds each body a full trace keeps (a request's
// params, an answer, a notification's params). A longer body is kept as a
// JSON string of its first MaxTraceBodyBytes bytes, marked cut, with its
// full size: a 10 MB resource read costs the trace 1 MiB, not 10.
const MaxTraceBodyBytes = 1 << 20

// SetTraceBodies turns on keeping the bodies of traced messages: each
// EventTrace then carries the request's params and the answer as JSON, and
// each EventNotification its params (Event.Body). It costs one encoding
// of each params value; it matters only while tracing is on.
func (r *Runtime) SetTraceBodies(on bool) { r.bodies.Store(on) }

// traceJSON encodes v as a trace body: the JSON, its full size, and
// whether it was cut to MaxTraceBodyBytes.
func traceJSON(v any) (json.RawMessage, int, bool) {
	if v == nil {
		return nil, 0, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"howl_error": "the body could not be encoded: " + err.Error()})
	}
	return traceRaw(b)
}

// traceRaw keeps raw JSON as a trace body, cut to MaxTraceBodyBytes (then
// a JSON string of the bytes kept, so the record stays JSON).
func traceRaw(raw []byte) (json.RawMessage, int, bool) {
	if len(raw) == 0 {
		return nil, 0, false
	}
	if len(raw) <= MaxTraceBodyBytes {
		return json.RawMessage(append([]byte(nil), raw...)), len(raw), false
	}
	// A rune cut in two becomes U+FFFD: the string is still JSON.
	s, _ := json.Marshal(string(raw[:MaxTraceBodyBytes]))
	return s, len(raw), true
}

// traceBody is a notification's params as a trace body, nil while bodies
// are off.
func (r *Runtime) traceBody(params any) json.RawMessage {
	if !r.tracing.Load() || !r.bodies.Load() {
		return nil
	}
	b, _, _ := traceJSON(params)
	return b
}

// Directions of a TraceRecord.
const (
	// TraceSent is howl's request and the server's answer.
	TraceSent = "sent"
	// TraceReceived is the server's request (elicitation, sampling,
	// roots) and howl's answer.
	TraceReceived = "received"
	// TraceNotification is a notification the server sent.
	TraceNotification = "notification"
)

// TraceRecord is one traced message with its bodies: what `howl
// --trace=full` prints (one per line) and what the TUI's protocol view
// shows, timing, size and direction first. Request is the params howl (or
// the server) sent; Response the answer's result or error object. A body
// over MaxTraceBodyBytes is a JSON string of its first bytes, with its
// *_cut flag set and its full size in *_bytes.
type TraceRecord struct {
	Server        string          `json:"server"`
	Direction     string          `json:"direction"`
	Method        string          `json:"method"`
	Target        string          `json:"target,omitempty"`
	ID            json.RawMessage `json:"id,omitempty"`
	At            time.Time       `json:"at"`
	DurationMS    float64         `json:"duration_ms"`
	Outcome       string          `json:"outcome"`
	Error         string          `json:"error,omitempty"`
	RequestBytes  int             `json:"request_bytes"`
	ResponseBytes int             `json:"response_bytes"`
	RequestCut    bool            `json:"request_cut,omitempty"`
	ResponseCut   bool            `json:"response_cut,omitempty"`
	Request       json.RawMessage `json:"request,omitempty"`
	Response      json.RawMessage `json:"response,omitempty"`
}

// Record is the trace as a TraceRecord of server.
func (t RPCTrace) Record(server string) TraceRecord {
	rec := TraceRecord{Server: server, Direction: TraceSent, Method: t.Method, Target: t.Target, ID: t.ID, At: t.At,
		DurationMS: float64(t.Duration.Microseconds()) / 1000, Outcome: "ok", Error: t.Err,
		RequestBytes: t.RequestBytes, ResponseBytes: t.ResponseBytes, RequestCut: t.RequestCut, ResponseCut: t.ResponseCut,
		Request: t.Request, Response: t.Response}
	if t.Incoming {
		rec.Direction = TraceReceived
		if t.Err == "" {
			rec.Outcome = t.Answer
		}
	}
	switch {
	case t.Cancelled:
		rec.Outcome = "cancelled"
	case t.Err != "":
		rec.Outcome = "error"
	}
	return rec
}

// NotificationRecord is a notification the server sent, with its params
// (Event.Body), as a TraceRecord.
func NotificationRecord(server, method string, body json.RawMessage, at time.Time) TraceRecord {
	// Params are an object: a string is a body cut to MaxTraceBodyBytes.
	cut := len(body) > 0 && body[0] == '"'
	return TraceRecord{Server: server, Direction: TraceNotification, Method: method, At: at, Outcome: "ok",
		RequestBytes: len(body), RequestCut: cut, Request: body}
}
