package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// howl reads a stdio server's messages with a transport of its own, under
// mcp-go's client, because mcp-go's stdio transport holds each line many
// times: it reads a line as a string, converts it to bytes once to see what
// it is and again to decode it, and copies the result out of it, and the
// client then parses a typed copy of the result that howl throws away
// (howl reads the raw result, item by item). On a 50 MiB blob that was the
// 67 MiB line eight times over (381 MiB), and on a 100,000-item listing
// most of the time. lineTransport reads each line once, spooling a long
// one to a temp file so that it is held in memory once, at its exact size
// (or, for a blob read through mcp_read_, not at all: spooledline.go); it
// checks the line with one pass of render's JSON scanner and hands out
// the result as a subslice of the line. It is mcp-go's transport in every
// other way: same routing by id, same handling of notifications and of
// the server's own requests, same errors.

// MaxMessageBytes bounds one message a server sends: a stdio line, and
// over HTTP one event's data (or line) of an event stream, or a JSON body
// (replyguard.go). A 50 MiB blob (render.MaxDecodedBlob, the largest howl
// decodes) is 67 MiB of base64; a longer message is dropped as it is read
// (over HTTP, with the rest of its stream), and a request it answers
// fails with a message saying so.
const MaxMessageBytes = 96 << 20

// spoolLineBytes is the size past which a line being read goes to a temp
// file instead of a growing buffer, to be read back at its exact size
// once it ends: a growing buffer holds a line about twice at its peak.
const spoolLineBytes = 1 << 20

// peekLineBytes is how much of a line over MaxMessageBytes is kept to
// find the id of the request it answers.
const peekLineBytes = 64 << 10

type lineTransport struct {
	in       *bufio.Reader  // the server's stdout
	out      io.WriteCloser // the server's stdin
	logger   *slog.Logger
	spoolDir string // where long lines are spooled ("" keeps them in memory)

	mu        sync.Mutex
	pending   map[string]pendingRequest
	sent      uint64 // requests written, for pendingRequest.sent
	onNotify  func(mcpgo.JSONRPCNotification)
	onRequest transport.RequestHandler
	ctx       context.Context

	startOnce sync.Once
	done      chan struct{} // closed when reading stopped or Close was called
	doneOnce  sync.Once
	closeOnce sync.Once
}

// newLineTransport reads the server's messages from in and writes howl's
// to out. Long lines are spooled under spoolDir (created if need be).
func newLineTransport(in io.Reader, out io.WriteCloser, logger *slog.Logger, spoolDir string) *lineTransport {
	return &lineTransport{
		in: bufio.NewReaderSize(in, 64<<10), out: out, logger: logger, spoolDir: spoolDir,
		pending: map[string]pendingRequest{}, ctx: context.Background(),
		done: make(chan struct{}),
	}
}

// Start starts reading; ctx is the context the server's requests are
// handled in. The reader ends when the server's stdout ends (the child
// exits, or Close's reaping closes it).
func (t *lineTransport) Start(ctx context.Context) error {
	t.startOnce.Do(func() {
		t.mu.Lock()
		t.ctx = ctx
		t.mu.Unlock()
		go t.readLoop()
	})
	return nil
}

func (t *lineTransport) closeDone() { t.doneOnce.Do(func() { close(t.done) }) }

// Close stops every request waiting and closes the server's stdin.
func (t *lineTransport) Close() error {
	t.closeDone()
	var err error
	t.closeOnce.Do(func() { err = t.out.Close() })
	return err
}

// GetSessionId is empty: stdio has no sessions.
func (t *lineTransport) GetSessionId() string { return "" }

// SetNotificationHandler sets who gets the server's notifications.
func (t *lineTransport) SetNotificationHandler(h func(mcpgo.JSONRPCNotification)) {
	t.mu.Lock()
	t.onNotify = h
	t.mu.Unlock()
}

// SetRequestHandler sets who answers the server's own requests.
func (t *lineTransport) SetRequestHandler(h transport.RequestHandler) {
	t.mu.Lock()
	t.onRequest = h
	t.mu.Unlock()
}

// SendRequest writes a request and waits for its answer, ctx's end, or
// the end of the connection.
func (t *lineTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	select {
	case <-t.done:
		return nil, transport.ErrTransportClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	key := req.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	p := pendingRequest{ch: ch, method: req.Method}
	if s, ok := ctx.Value(rawSinkKey{}).(*rawSink); ok && s.streamsBlobs {
		p.sink = s
	}
	t.mu.Lock()
	t.sent++
	p.sent = t.sent
	t.pending[key] = p
	t.mu.Unlock()
	forget := func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}
	if _, err := t.out.Write(append(b, '\n')); err != nil {
		forget()
		return nil, fmt.Errorf("failed to write request: %w", err)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-t.done:
		select { // an answer that came just before the end still counts
		case resp := <-ch:
			return resp, nil
		default:
		}
		// Still pending, so that waitingOn names it: the exit watcher may
		// ask only after this request has returned and before its caller
		// has said what it was (stdioTap's lost). The transport is
		// closed, and pending goes with it.
		return nil, transport.ErrTransportClosed
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// SendNotification writes a notification.
func (t *lineTransport) SendNotification(ctx context.Context, n mcpgo.JSONRPCNotification) error {
	select {
	case <-t.done:
		return transport.ErrTransportClosed
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("failed to marshal notification: %w", err)
	}
	if _, err := t.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("failed to write notification: %w", err)
	}
	return nil
}

func (t *lineTransport) readLoop() {
	defer t.closeDone() // requests still waiting fail with ErrTransportClosed
	for {
		line, long, err := t.readLine()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				t.logger.Error("Error reading from stdout", "err", err)
			}
			return
		}
		if len(line) > 0 {
			t.dispatch(line, long)
		}
	}
}

// readLine reads one line, without its line ending, into a slice of its
// own. A line over spoolLineBytes is spooled to a temp file and read back
// at its exact size, unless it answers a request that streams its blobs:
// then the line is its short copy, and long holds the blobs the copy left
// in the file (see spooledline.go). A line over MaxMessageBytes is
// dropped, and the request it answers (if its id is near its start) fails
// with a message saying so.
func (t *lineTransport) readLine() (line []byte, long *spooledStrings, err error) {
	var head []byte
	var spool *os.File
	var compactor *lineCompactor
	n := 0
	dropSpool := func() {
		if spool != nil {
			spool.Close() // unlinked: closing it is its end
			spool = nil
		}
	}
	defer dropSpool()
	for {
		piece, err := t.in.ReadSlice('\n')
		if len(head) < peekLineBytes && n < peekLineBytes {
			head = append(head, piece[:min(len(piece), peekLineBytes-len(head))]...)
		}
		n += len(piece)
		switch {
		case n > MaxMessageBytes:
			line = nil
			dropSpool()
		case spool != nil:
			if _, werr := spool.Write(piece); werr != nil {
				return nil, nil, fmt.Errorf("spooling a %s message to %s: %w", render.HumanBytes(int64(n)), spool.Name(), werr)
			}
			compactor.feed(piece)
		case line == nil && err != bufio.ErrBufferFull:
			line = bytes.Clone(piece) // the usual case: the whole line at once
		case len(line)+len(piece) > spoolLineBytes && t.spoolDir != "":
			if spool = t.startSpool(line, piece); spool == nil {
				line = append(line, piece...) // no spool: keep it in memory
			} else {
				if t.anyStreams() {
					compactor = newLineCompactor(spool)
					compactor.feed(line)
					compactor.feed(piece)
				}
				line = nil
			}
		default:
			if len(line)+len(piece) > cap(line) {
				// Double: append grows a long slice by a quarter, which
				// allocated five times a 1 MiB line on the way to it.
				line = slices.Grow(line, max(len(line), len(piece)))
			}
			line = append(line, piece...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, nil, err // a last line without its newline is dropped, as mcp-go does
		}
		break
	}
	if n > MaxMessageBytes {
		t.tooLong(head, n)
		return nil, nil, nil
	}
	if spool != nil {
		if compact, long, ok := compactor.result(); ok && t.wantsShortCopy(compact) {
			spool = nil // long owns the file now
			return compact, long, nil
		}
		line = make([]byte, n)
		if m, err := spool.ReadAt(line, 0); m < n {
			return nil, nil, fmt.Errorf("reading back a spooled %s message: %w", render.HumanBytes(int64(n)), err)
		}
	}
	return bytes.TrimRight(line, "\r\n"), nil, nil
}

// anyStreams reports whether a request waiting reads its blobs from the
// spool file: a line read while none does is not compacted (it could
// only answer one that is waiting already).
func (t *lineTransport) anyStreams() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.pending {
		if p.sink != nil {
			return true
		}
	}
	return false
}

// waitingOn is the method of the oldest request still waiting for its
// answer, or that the connection's end failed, the stream of list
// changes aside; "" when none is. The exit watcher asks it the moment
// the server's process ends: a request the end failed may by then have
// given up on its own (its caller cancelled it when the server was
// failed), or returned and not yet said what it was, and so never say
// it.
func (t *lineTransport) waitingOn() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	method, first := "", uint64(0)
	for _, p := range t.pending {
		if p.method != string(mcpgo.MethodSubscriptionsListen) && (method == "" || p.sent < first) {
			method, first = p.method, p.sent
		}
	}
	return method
}

// pendingRequest is a request waiting for its answer; sink is set when
// the request reads its blobs from the spool file (rawSink.streamsBlobs).
type pendingRequest struct {
	ch   chan *transport.JSONRPCResponse
	sink *rawSink
	// method and sent (the order it was written in) say what the server
	// was doing when it died (waitingOn).
	method string
	sent   uint64
}

// wantsShortCopy reports whether a line's short copy is a result answering
// a request that reads its blobs from the spool file. A result asking for
// input (2026-07-28) is mcp-go's to act on, placeholders and all, so it
// is read whole.
func (t *lineTransport) wantsShortCopy(compact []byte) bool {
	m, err := parseMembers(compact)
	if err != nil || m.method != nil || m.result == nil || m.errDetail != nil && string(m.errDetail) != "null" || asksForInput(m.result) {
		return false
	}
	var id mcpgo.RequestId
	if json.Unmarshal(m.id, &id) != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pending[id.String()].sink != nil
}

// startSpool moves a line being read to a new temp file, unlinked as it
// is made (a howl killed mid-line leaves nothing); nil when the file
// cannot be made (the line then stays in memory).
func (t *lineTransport) startSpool(head, piece []byte) *os.File {
	if err := os.MkdirAll(t.spoolDir, 0o700); err != nil {
		return nil
	}
	f, err := createUnlinkedTemp(t.spoolDir, "line-*.tmp")
	if err != nil {
		return nil
	}
	if _, err := f.Write(head); err == nil {
		if _, err = f.Write(piece); err == nil {
			return f
		}
	}
	f.Close()
	return nil
}

// tooLong fails the request a dropped message answered, when its head
// names one.
func (t *lineTransport) tooLong(head []byte, n int) {
	id, isRequest := peekID(head)
	var rid mcpgo.RequestId
	if id == nil || isRequest || json.Unmarshal(id, &rid) != nil {
		t.logger.Warn("dropped a message over MaxMessageBytes", "bytes", n, "max", MaxMessageBytes)
		return
	}
	t.deliver(transport.NewJSONRPCErrorResponse(rid, mcpgo.INTERNAL_ERROR, fmt.Sprintf(
		"the server's answer is %s, over the %d-byte MaxMessageBytes bound on one message, and was dropped: ask for less (a smaller resource, a page, a narrower call)",
		render.HumanBytes(int64(n)), MaxMessageBytes), nil), nil)
}

// members are the members of one JSON-RPC message, as subslices of its line.
type members struct {
	id, method, result, errDetail []byte
}

// parseMembers finds a message's members.
func parseMembers(line []byte) (members, error) {
	var m members
	err := render.ObjectMembers(line, func(k string, v []byte) bool {
		switch k {
		case "id":
			m.id = v
		case "method":
			m.method = v
		case "result":
			m.result = v
		case "error":
			m.errDetail = v
		}
		return true
	})
	return m, err
}

// dispatch routes one line: a notification to the handler, a request to
// the request handler, an answer to the request waiting for it. A line
// that does not parse is dropped, unless it answers a request: then a
// parse error stands in for it, so the call fails at once with the reason.
// long, when not nil, goes with the answer to its request's sink, and is
// closed if it cannot.
func (t *lineTransport) dispatch(line []byte, long *spooledStrings) {
	m, err := parseMembers(line)
	if err != nil {
		long.Close()
		fail := parseFailure(line)
		if fail == nil {
			return // a notification, a request or garbage: mcp-go drops it too
		}
		t.dispatch(fail, nil)
		return
	}
	if string(m.id) == "null" {
		m.id = nil
	}
	if m.method != nil || m.id == nil {
		long.Close() // only an answer streams its blobs
		long = nil
	}
	switch {
	case m.method != nil && m.id == nil:
		var n mcpgo.JSONRPCNotification
		if json.Unmarshal(line, &n) != nil {
			return
		}
		t.mu.Lock()
		h := t.onNotify
		t.mu.Unlock()
		if h != nil {
			h(n)
		}
	case m.method != nil:
		// The params stay raw: the request gate counts their bytes, and
		// mcp-go's client marshals them again to parse them anyway.
		var req struct {
			transport.JSONRPCRequest
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &req) == nil {
			r := req.JSONRPCRequest
			if len(req.Params) > 0 {
				r.Params = req.Params
			}
			t.handleRequest(r)
		}
	default:
		resp := &transport.JSONRPCResponse{JSONRPC: mcpgo.JSONRPC_VERSION, Result: m.result}
		if json.Unmarshal(m.id, &resp.ID) != nil {
			long.Close()
			return
		}
		if m.errDetail != nil && string(m.errDetail) != "null" {
			resp.Error = &mcpgo.JSONRPCErrorDetails{}
			if json.Unmarshal(m.errDetail, resp.Error) != nil {
				long.Close()
				return
			}
		}
		t.deliver(resp, long)
	}
}

// deliver hands an answer to the request waiting for it, and long, if
// any, to that request's sink; long is closed when no sink takes it.
func (t *lineTransport) deliver(resp *transport.JSONRPCResponse, long *spooledStrings) {
	key := resp.ID.String()
	t.mu.Lock()
	p, ok := t.pending[key]
	delete(t.pending, key)
	if ok && long != nil && p.sink != nil {
		p.sink.setLong(long)
		long = nil
	}
	t.mu.Unlock()
	long.Close()
	if ok {
		p.ch <- resp // buffered: never blocks
	}
}

// handleRequest answers a request of the server's on a goroutine of its
// own, as mcp-go's transport does (the request gate bounds how many).
func (t *lineTransport) handleRequest(req transport.JSONRPCRequest) {
	t.mu.Lock()
	h, ctx := t.onRequest, t.ctx
	t.mu.Unlock()
	if h == nil {
		t.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcpgo.METHOD_NOT_FOUND, "No request handler configured", nil))
		return
	}
	go func() {
		if err := ctx.Err(); err != nil {
			t.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcpgo.INTERNAL_ERROR, err.Error(), nil))
			return
		}
		resp, err := h(ctx, req)
		switch {
		case err != nil:
			t.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcpgo.INTERNAL_ERROR, err.Error(), nil))
		case resp != nil:
			t.respond(*resp)
		}
	}()
}

func (t *lineTransport) respond(resp transport.JSONRPCResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		t.logger.Error("Error marshaling response", "err", err)
		return
	}
	if _, err := t.out.Write(append(b, '\n')); err != nil {
		t.logger.Error("Error writing response", "err", err)
	}
}

// standIn replaces the result of an answer whose raw result howl keeps
// (rawSink) with an empty object before mcp-go's client parses it: howl
// discards the client's typed parse of such a result, which on a big
// answer cost a full decode and a copy of every string in it (a 64 MiB
// text over HTTP: 2.7 s). A result that asks for input (2026-07-28) is
// the client's to act on, and stays, unless it asks for too much at once
// (refuseManyInputs). Every transport's tap calls it (the HTTP ones
// through httpStandIn), after the trace has counted the real result.
func standIn(ctx context.Context, resp *transport.JSONRPCResponse) {
	refuseManyInputs(resp)
	if resp == nil || resp.Error != nil || len(resp.Result) == 0 {
		return
	}
	if s, ok := ctx.Value(rawSinkKey{}).(*rawSink); ok && !s.typed && !asksForInput(resp.Result) {
		resp.Result = json.RawMessage(`{}`)
	}
}

// spoolDir is where long stdio lines are spooled: under the cache
// directory, private to the person, or the system's temp directory when
// there is none.
func spoolDir(cacheDir string) string {
	if cacheDir == "" {
		return os.TempDir()
	}
	return filepath.Join(cacheDir, "spool")
}
