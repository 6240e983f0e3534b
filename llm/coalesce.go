package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"sync"
	"unicode/utf8"
)

// The OpenAI SDK's stream accumulator appends every chunk's text to the
// whole reply so far (Content += delta.Content), so a reply streamed in n
// chunks costs CPU quadratic in its length: 4 MiB in 4-byte tokens, as a
// local server or a hostile endpoint can flood them, would copy terabytes.
// We may not patch the SDK; instead the response body of a streaming
// request merges the Chat Completions text chunks that have already
// arrived into one before the SDK reads them. A stream that trickles (a
// real model, token by token) reaches the SDK exactly as before: the body
// never waits for more data to merge. The same goes for a tool call's
// arguments (the SDK's Arguments += and fantasy's own arguments +=), for
// reasoning (reasoning_content, or reasoning as some servers name it:
// nothing gathers it, but parsing each chunk costs fantasy and the SDK
// 20 to 40 µs, some 40 s of CPU for a MaxReplyBytes flood), and on the
// Anthropic wire for text, thinking and signature deltas (Text +=,
// Thinking +=, Signature +=). Anthropic input_json deltas stay unmerged:
// the SDK appends them to a byte slice, a small cost that grows linearly.

// MaxMergedTextBytes bounds the text (or reasoning, thinking, arguments)
// of one merged chunk. 64 KiB makes the SDK's copying about 64 MiB for a
// MaxReplyBytes reply however fine the model's chunks, while the wrapper
// holds little on top of what it read.
const MaxMergedTextBytes = 64 << 10

const (
	// sseReadBytes is the size of one read from the response body.
	sseReadBytes = 32 << 10
	// sseReadAhead is how many reads the body's reader may hold ahead of
	// the SDK (at most sseReadAhead*sseReadBytes bytes).
	sseReadAhead = 4
	// sseMergeInput bounds how much already-read input one Read of the
	// SDK takes in to merge.
	sseMergeInput = 256 << 10
)

// MaxStreamEventBytes bounds one server-sent event of a model's stream:
// the provider libraries gather an event's "data:" lines until the blank
// line that ends it, so an endpoint that never sends one would grow their
// buffer without end. Twice MaxReplyBytes and a MiB: a whole reply's
// arguments in one escaped chunk fit.
const MaxStreamEventBytes = 2*MaxReplyBytes + 1<<20

// MaxErrorBodyBytes bounds what is read of an error response (status 400
// and up): the libraries read it whole to quote the provider's message.
const MaxErrorBodyBytes = 1 << 20

// coalescingTransport wraps base; the body of every text/event-stream
// response merges buffered text chunks (see coalescingBody), and the body
// of an error response is cut at MaxErrorBodyBytes.
type coalescingTransport struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t coalescingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	if resp.StatusCode >= 400 {
		resp.Body = cutBody{io.LimitReader(resp.Body, MaxErrorBodyBytes), resp.Body}
		return resp, nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		resp.Body = newCoalescingBody(r.Context(), resp.Body)
	}
	return resp, nil
}

// cutBody reads a body up to a bound and closes the whole of it.
type cutBody struct {
	io.Reader
	io.Closer
}

// coalescingBody reads body ahead in its own goroutine (it ends when the
// body fails, ends or is closed, or the request's context ends), and hands the reader what has arrived,
// with consecutive text chunks merged (sseMerger).
type coalescingBody struct {
	body   io.ReadCloser
	reads  chan []byte
	done   chan struct{}
	once   sync.Once
	rerr   error // the body's error; set before reads is closed
	ended  bool
	err    error
	merger sseMerger
}

func newCoalescingBody(ctx context.Context, body io.ReadCloser) *coalescingBody {
	c := &coalescingBody{body: body, reads: make(chan []byte, sseReadAhead), done: make(chan struct{})}
	go c.pump(ctx)
	return c
}

// pump reads the body until it fails or ends, the reader closes it, or
// ctx ends (a caller that stops reading may cancel without closing).
func (c *coalescingBody) pump(ctx context.Context) {
	defer close(c.reads)
	buf := make([]byte, sseReadBytes)
	// event counts the bytes since the last blank line (a blank line cut
	// across two reads counts toward the next event: one event more).
	event := 0
	for {
		n, err := c.body.Read(buf)
		if i := max(bytes.LastIndex(buf[:n], []byte("\n\n")), bytes.LastIndex(buf[:n], []byte("\n\r\n"))); i >= 0 {
			event = n - i
		} else if event += n; event > MaxStreamEventBytes {
			c.rerr = brokenEndpoint("", fmt.Sprintf("the model's endpoint sent one stream event of over %d bytes without ending it", MaxStreamEventBytes))
			return
		}
		if n > 0 {
			select {
			case c.reads <- bytes.Clone(buf[:n]):
			case <-c.done:
				return
			case <-ctx.Done():
				c.rerr = ctx.Err()
				return
			}
		}
		if err != nil {
			c.rerr = err
			return
		}
	}
}

// take adds one read to the merger; false when the body has ended.
func (c *coalescingBody) take(b []byte, ok bool) bool {
	if !ok {
		c.ended, c.err = true, c.rerr
		if c.err == nil {
			c.err = io.ErrUnexpectedEOF
		}
		return false
	}
	c.merger.in = append(c.merger.in, b...)
	return true
}

// Read implements io.Reader: it waits only when it has nothing to give.
func (c *coalescingBody) Read(p []byte) (int, error) {
	for len(c.merger.out) == 0 {
		if c.ended {
			return 0, c.err
		}
		b, ok := <-c.reads
		if c.take(b, ok) {
		more: // what has already been read, without waiting for more
			for len(c.merger.in) < sseMergeInput {
				select {
				case b, ok := <-c.reads:
					if !c.take(b, ok) {
						break more
					}
				default:
					break more
				}
			}
		}
		c.merger.merge(c.ended)
	}
	n := copy(p, c.merger.out)
	c.merger.out = c.merger.out[n:]
	if len(c.merger.out) == 0 {
		c.merger.out = nil
	}
	return n, nil
}

// Close implements io.Closer; it ends the read-ahead goroutine.
func (c *coalescingBody) Close() error {
	err := c.body.Close()
	c.once.Do(func() { close(c.done) })
	return err
}

// sseMerger rewrites a text/event-stream: consecutive events that are
// each one "data:" line holding a mergeable Chat Completions chunk (text,
// reasoning or one call's arguments), or an "event: content_block_delta"
// line and one "data:" line holding an Anthropic text, thinking or
// signature delta (textChunk), of one kind and place, become one event;
// every other byte passes unchanged.
type sseMerger struct {
	in, out []byte
	// raw: the bytes up to the end of the current event pass unchanged
	// (it began in input that was passed on before it was whole); nl says
	// the last byte passed was a newline.
	raw, nl bool
}

// merge moves in to out: whole events, merged where they may be, and the
// start of an event that cannot merge; at the end of the stream, all.
func (m *sseMerger) merge(end bool) {
	in := m.in
	var run textRun
	for len(in) > 0 {
		if m.raw {
			i, whole := 1, true
			if !m.nl || in[0] != '\n' {
				if i = bytes.Index(in, []byte("\n\n")) + 2; i < 2 {
					i, whole = len(in), false
				}
			}
			m.out = append(m.out, in[:i]...)
			m.nl, m.raw = in[i-1] == '\n', !whole
			in = in[i:]
			continue
		}
		i := bytes.Index(in, []byte("\n\n"))
		if i < 0 {
			break
		}
		event := in[:i+2]
		in = in[i+2:]
		if run.like(event[:i]) {
			continue
		}
		c, ok := parseTextChunk(event[:i])
		if ok && run.add(c, event) {
			continue
		}
		m.out = run.flush(m.out)
		if ok {
			run.add(c, event)
		} else {
			m.out = append(m.out, event...)
		}
	}
	m.out = run.flush(m.out)
	if len(in) > 0 && (end || !mayBeTextChunk(in)) {
		// Pass on what may not be held: the event's end passes raw too.
		m.out = append(m.out, in...)
		m.raw, m.nl = true, in[len(in)-1] == '\n'
		in = nil
	}
	m.in = append(m.in[:0], in...)
}

// anthropicDeltaLine is the line that starts every Anthropic event that
// may merge.
const anthropicDeltaLine = "event: content_block_delta\n"

// mayBeTextChunk says whether tail, the start of an event not yet whole,
// may be held to merge: a "data:" line not longer than the merge bound,
// perhaps after anthropicDeltaLine (the SDK cannot read an event before
// its blank line either).
func mayBeTextChunk(tail []byte) bool {
	if len(tail) > MaxMergedTextBytes || bytes.IndexByte(tail, '\r') >= 0 {
		return false
	}
	if len(tail) < len(anthropicDeltaLine) && anthropicDeltaLine[:len(tail)] == string(tail) {
		return true
	}
	tail = bytes.TrimPrefix(tail, []byte(anthropicDeltaLine))
	if nl := bytes.IndexByte(tail, '\n'); nl >= 0 && nl != len(tail)-1 {
		return false
	}
	const prefix = "data:"
	if len(tail) < len(prefix) {
		return prefix[:len(tail)] == string(tail)
	}
	return bytes.HasPrefix(tail, []byte(prefix))
}

// textChunk is a Chat Completions chunk that only adds text to one place:
// one choice, index 0, no finish reason, usage or logprobs, and a delta
// that is one string of chatDeltaFields (and perhaps the role), or one
// tool call of an index and a function of only a string arguments. Or,
// when anthropic is set, an Anthropic content_block_delta event whose
// delta is a text_delta, thinking_delta or signature_delta: its type and
// its string (text, thinking, signature), nothing else.
type textChunk struct {
	top, choice, delta map[string]json.RawMessage
	// call and function are the tool call whose arguments it adds.
	call, function map[string]json.RawMessage
	// field is the key of the added string: content, reasoning_content,
	// reasoning, arguments, text, thinking or signature; chunks of a run
	// have the same.
	field     string
	content   string
	anthropic bool
}

// anthropicDeltaFields are the Anthropic deltas that merge, and the key
// of the string each adds: the SDK's accumulator appends each to the
// block's whole string so far.
var anthropicDeltaFields = map[string]string{`"text_delta"`: "text", `"thinking_delta"`: "thinking", `"signature_delta"`: "signature"}

// chatDeltaFields are the strings a Chat Completions delta may add that
// merge, one to a chunk: the reply's text and its reasoning, under either
// name. fantasy's openaicompat reads a chunk's reasoning_content, or its
// reasoning when that is empty, opens the reasoning at the first chunk
// with either key and closes it at the first with text or tool calls: a
// run holds one key only, so merged it reads the same.
var chatDeltaFields = map[string]bool{"content": true, "reasoning_content": true, "reasoning": true}

// contentField is the top-level field that holds c's text (the one that
// differs between chunks of a run).
func (c textChunk) contentField() string {
	if c.anthropic {
		return "delta"
	}
	return "choices"
}

// infoField says whether top-level field k of c says nothing about its
// content, so chunks of a run may differ in it (Chat Completions only).
func (c textChunk) infoField(k string) bool {
	return !c.anthropic && (k == "usage" || chunkInfoFields[k])
}

// chunkInfoFields are top-level fields of a chunk that say nothing about
// its content; a merged chunk keeps the first one's.
var chunkInfoFields = map[string]bool{"object": true, "created": true, "system_fingerprint": true, "service_tier": true, "obfuscation": true}

var jsonNull = []byte("null")

// parseTextChunk reads event (without its blank line) as a textChunk.
// (A key twice is looked for last: most chunks that do not merge, such
// as a call's start or the last chunk, fail sooner.)
func parseTextChunk(event []byte) (textChunk, bool) {
	if data, ok := bytes.CutPrefix(event, []byte(anthropicDeltaLine+"data:")); ok {
		c, ok := parseAnthropicText(data)
		return c, ok && uniqueKeys(data)
	}
	data, ok := bytes.CutPrefix(event, []byte("data:"))
	if !ok {
		return textChunk{}, false
	}
	c, ok := parseChatChunk(data)
	return c, ok && uniqueKeys(data)
}

// parseChatChunk reads data, the data line of a Chat Completions chunk,
// as a textChunk.
func parseChatChunk(data []byte) (textChunk, bool) {
	if bytes.ContainsAny(data, "\r\n") {
		return textChunk{}, false
	}
	var c textChunk
	if json.Unmarshal(data, &c.top) != nil || c.top == nil {
		return textChunk{}, false
	}
	if u, ok := c.top["usage"]; ok && !bytes.Equal(u, jsonNull) {
		return textChunk{}, false
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(c.top["choices"], &choices) != nil || len(choices) != 1 {
		return textChunk{}, false
	}
	c.choice = choices[0]
	for k, v := range c.choice {
		var ok bool
		switch k {
		case "index":
			ok = string(v) == "0"
		case "delta":
			ok = json.Unmarshal(v, &c.delta) == nil
		case "finish_reason", "logprobs":
			ok = bytes.Equal(v, jsonNull)
		default:
			ok = false
		}
		if !ok {
			return textChunk{}, false
		}
	}
	if c.delta == nil || len(c.choice["index"]) == 0 {
		return textChunk{}, false
	}
	if _, ok := c.delta["tool_calls"]; ok {
		return parseArguments(c)
	}
	for k, v := range c.delta {
		var s string
		if (k != "role" && (!chatDeltaFields[k] || c.field != "")) || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return textChunk{}, false
		}
		if k != "role" {
			c.field, c.content = k, s
		}
	}
	return c, c.field != ""
}

// parseArguments reads c, a chunk whose delta has tool_calls, as a
// textChunk: the delta holds only one tool call, of an index and a
// function holding only a string arguments.
func parseArguments(c textChunk) (textChunk, bool) {
	var calls []map[string]json.RawMessage
	if len(c.delta) != 1 || json.Unmarshal(c.delta["tool_calls"], &calls) != nil || len(calls) != 1 {
		return textChunk{}, false
	}
	c.call, c.field = calls[0], "arguments"
	if len(c.call) != 2 || len(c.call["index"]) == 0 || json.Unmarshal(c.call["function"], &c.function) != nil || len(c.function) != 1 {
		return textChunk{}, false
	}
	v := c.function["arguments"]
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &c.content) != nil {
		return textChunk{}, false
	}
	return c, true
}

// parseAnthropicText reads data, the data line of a content_block_delta
// event, as a textChunk: type content_block_delta, an index, a delta of a
// type in anthropicDeltaFields and its string, nothing else; other
// top-level fields must be the same in all the chunks of a run
// (textRun.add).
func parseAnthropicText(data []byte) (textChunk, bool) {
	if bytes.ContainsAny(data, "\r\n") {
		return textChunk{}, false
	}
	c := textChunk{anthropic: true}
	if json.Unmarshal(data, &c.top) != nil || c.top == nil ||
		string(c.top["type"]) != `"content_block_delta"` || len(c.top["index"]) == 0 ||
		json.Unmarshal(c.top["delta"], &c.delta) != nil || len(c.delta) != 2 {
		return textChunk{}, false
	}
	c.field = anthropicDeltaFields[string(c.delta["type"])]
	v := c.delta[c.field]
	if c.field == "" || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &c.content) != nil {
		return textChunk{}, false
	}
	return c, true
}

// uniqueKeys says whether no object in data, valid JSON, has a key twice:
// which of two a reader takes is its own choice, so such a chunk passes
// as it came rather than be rewritten with one.
func uniqueKeys(data []byte) bool {
	type frame struct {
		keys    map[string]bool // nil in an array
		wantKey bool
	}
	var stack []frame
	// done ends a value: in an object, a key comes next.
	done := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		t, err := dec.Token()
		if err != nil {
			return err == io.EOF
		}
		n := len(stack)
		switch t {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:n-1]
			done()
			continue
		}
		if n > 0 && stack[n-1].wantKey {
			k, _ := t.(string)
			if stack[n-1].keys[k] {
				return false
			}
			stack[n-1].keys[k], stack[n-1].wantKey = true, false
			continue
		}
		done()
	}
}

// textRun is consecutive text chunks being merged into the first.
type textRun struct {
	first textChunk
	raw   []byte // the first event as read, for a run of one
	text  []byte
	n     int
	// before and after are the last chunk added, around its content: a
	// chunk that is the same but for its content joins without parsing
	// (most servers repeat one template; parsing each was most of the cost).
	before, after []byte
}

// template keeps data (an added chunk's event, without its blank line)
// as the template when its content key occurs once, directly before raw.
func (r *textRun) template(data []byte, raw json.RawMessage) {
	r.before, r.after = nil, nil
	// A field's key cannot occur unescaped in a string, nor inside
	// another field's key.
	key := []byte(`"` + r.first.field + `":`)
	if bytes.Count(data, key) != 1 {
		return
	}
	at := bytes.Index(data, key) + len(key)
	if bytes.HasPrefix(data[at:], raw) {
		r.before, r.after = data[:at], data[at+len(raw):]
	}
}

// like adds data when it is the template with another string as content.
func (r *textRun) like(data []byte) bool {
	if r.n == 0 || r.before == nil || len(data) < len(r.before)+len(r.after)+2 ||
		!bytes.HasPrefix(data, r.before) || !bytes.HasSuffix(data, r.after) {
		return false
	}
	lit := data[len(r.before) : len(data)-len(r.after)]
	text, ok := jsonString(lit)
	if !ok || len(r.text)+len(text) > MaxMergedTextBytes {
		return false
	}
	r.text = append(r.text, text...)
	r.n++
	return true
}

// jsonString reads lit as exactly one JSON string.
func jsonString(lit []byte) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, false
	}
	inner := lit[1 : len(lit)-1]
	plain := utf8.Valid(inner)
	for _, b := range inner {
		if b == '"' || b == '\\' || b < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return inner, true
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// add joins c (read as event) to the run; false when it may not: another
// kind (text, arguments, thinking...), tool call, id or model, a role the
// first did not have, other unknown fields, or more than
// MaxMergedTextBytes of text.
func (r *textRun) add(c textChunk, event []byte) bool {
	if r.n == 0 {
		r.first, r.raw, r.text, r.n = c, event, append(r.text[:0], c.content...), 1
		r.template(event[:len(event)-2], c.textRaw())
		return true
	}
	if c.anthropic != r.first.anthropic || c.field != r.first.field || len(r.text)+len(c.content) > MaxMergedTextBytes ||
		!bytes.Equal(c.call["index"], r.first.call["index"]) {
		return false
	}
	if role, ok := c.delta["role"]; ok && !bytes.Equal(role, r.first.delta["role"]) {
		return false
	}
	for k, v := range c.top {
		if k != c.contentField() && !c.infoField(k) && !bytes.Equal(v, r.first.top[k]) {
			return false
		}
	}
	for k := range r.first.top {
		if _, ok := c.top[k]; !ok && k != c.contentField() && !c.infoField(k) {
			return false
		}
	}
	r.text = append(r.text, c.content...)
	r.n++
	r.template(event[:len(event)-2], c.textRaw())
	return true
}

// flush appends the run to out as one event and empties it.
func (r *textRun) flush(out []byte) []byte {
	switch r.n {
	case 0:
		return out
	case 1:
		out = append(out, r.raw...)
	default:
		if r.first.anthropic {
			out = append(out, anthropicDeltaLine...)
		}
		out = append(out, "data: "...)
		out = append(out, r.first.merged(string(r.text))...)
		out = append(out, "\n\n"...)
	}
	r.n, r.raw, r.before, r.after = 0, nil, nil, nil
	return out
}

// textRaw is c's text as it was read (a JSON string).
func (c textChunk) textRaw() json.RawMessage {
	if c.function != nil {
		return c.function[c.field]
	}
	return c.delta[c.field]
}

// merged is c with text as its content, as JSON.
func (c textChunk) merged(text string) []byte {
	delta, top := maps.Clone(c.delta), maps.Clone(c.top)
	if c.function != nil {
		function, call := maps.Clone(c.function), maps.Clone(c.call)
		function[c.field] = marshalRaw(text)
		call["function"] = marshalRaw(function)
		delta["tool_calls"] = marshalRaw([]json.RawMessage{marshalRaw(call)})
	} else {
		delta[c.field] = marshalRaw(text)
	}
	if c.anthropic {
		top["delta"] = marshalRaw(delta)
		return marshalRaw(top)
	}
	choice := maps.Clone(c.choice)
	choice["delta"] = marshalRaw(delta)
	top["choices"] = marshalRaw([]json.RawMessage{marshalRaw(choice)})
	return marshalRaw(top)
}

// marshalRaw is v as JSON; v is made of strings and raw JSON read from
// the stream, so it cannot fail.
func marshalRaw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
