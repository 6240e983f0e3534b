package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// MaxCheckedLine bounds the messages from a server that howl checks for an
// answer mcp-go cannot parse (a copy of each is kept while it passes). An
// answer longer than this that does not parse is not caught: its call
// waits for the no-progress timeout, as every call of a silent server does.
const MaxCheckedLine = 1 << 20

// parseFailure is what stands in for msg, a message from a server that
// answers a request but that mcp-go's transports would drop because it does
// not parse (100 000 nested arrays, a NaN, a truncated line): a JSON-RPC
// parse error for the same id, so the call fails at once with the reason
// instead of waiting for the no-progress timeout. It is nil when msg
// parses, or when it answers nothing (a notification, a request, garbage).
func parseFailure(msg []byte) []byte {
	// The union of what mcp-go's stdio and HTTP transports decode a
	// message into: when this decodes, so do theirs.
	var m struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      *mcpgo.RequestId           `json:"id"`
		Method  string                     `json:"method"`
		Error   *mcpgo.JSONRPCErrorDetails `json:"error"`
	}
	err := json.Unmarshal(msg, &m)
	if err == nil {
		return nil
	}
	id, isRequest := peekID(msg)
	if id == nil || isRequest {
		return nil
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    mcpgo.PARSE_ERROR,
		"message": fmt.Sprintf("howl could not parse the server's answer (%s): %v", render.HumanBytes(int64(len(msg))), err),
	}})
	return line
}

// peekID reads as much of msg as parses, looking for its id (a string or
// a number) and whether it has a method (a request or notification, not
// an answer). The id is nil when none was found before msg stopped
// parsing; a method that comes only after that point is not seen, so such
// a broken request counts as an answer to the id it carries.
func peekID(msg []byte) (id json.RawMessage, hasMethod bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			break
		}
		switch key {
		case "method":
			hasMethod = true
		case "id":
			var rid mcpgo.RequestId
			if json.Unmarshal(v, &rid) == nil && !rid.IsNil() {
				id = v
			}
		}
	}
	return id, hasMethod
}

// MaxEventDataRuns bounds the runs of data lines in one event of an event
// stream that other lines split (an "id:" line or a comment between two
// "data:" lines). mcp-go joins an event's data lines by copying all it
// holds once per line, so an event of n lines costs n times its size: an
// answer sent as 50 million one-byte data lines (within MaxMessageBytes)
// would take weeks. The guard hands mcp-go each run of consecutive data
// lines as one line (replyGuard.take), which costs one copy, but cannot
// join lines that other lines split. A server sends one data line per
// event, or one run of them; 16 runs is far more than any server splits
// an event into, and costs mcp-go at most 16 copies of the event.
const MaxEventDataRuns = 16

// replyGuard passes a server's output to mcp-go as it comes, and after
// each message that parseFailure flags adds the parse error standing in
// for it. On stdio a message is a line, passed unchanged; on an HTTP event
// stream (sse) it is the data of one event, which ends at a blank line,
// and each run of consecutive data lines is passed as one line (take).
type replyGuard struct {
	src  *bufio.Reader
	body io.Closer // the HTTP body, closed by Close
	sse  bool

	pre  []byte // what the next Read hands out before out
	out  []byte // what the next Read hands out
	next []byte // a parse error to hand out after the current message
	msg  []byte // the current message so far, up to MaxCheckedLine
	over bool   // the current message passed MaxCheckedLine: not checked
	// On an event stream: whether the next piece starts a line, and
	// whether the current line is a data line.
	lineStart, data bool
	// On an event stream: the bytes of the current line, and of the
	// current event's data, which mcp-go holds until they end; past
	// MaxMessageBytes the stream fails with err (bound.fail).
	line, size int
	eventData  bool // the current event has had a data line
	dataSeen   bool // and its data is not empty
	// On an event stream: a data line ended and its line break is held
	// back, to be handed out before a line that does not continue its run
	// (owed); and the current event's runs of data lines so far.
	owed  bool
	bare  bool // the data line mcp-go reads is "data:" so far
	runs  int
	bound *bodyBound
	err   error
}

var (
	lineBreak = []byte("\n")
	space     = []byte(" ")
	// runJoin joins the data lines of a run into one: a tab, where mcp-go
	// would put a line break. In JSON (every message mcp-go reads from an
	// event) both are whitespace between tokens, and both are invalid
	// inside a string, so the message means the same, or fails the same.
	runJoin = []byte("\t")
)

// guardLines guards a stdio server's stdout.
func guardLines(r io.Reader) *replyGuard {
	return &replyGuard{src: bufio.NewReaderSize(r, 64<<10), lineStart: true}
}

// guardEvents guards an HTTP response body that is an event stream.
func guardEvents(body io.ReadCloser) *replyGuard {
	g := guardLines(body)
	g.body, g.sse = body, true
	return g
}

// Read implements io.Reader.
func (g *replyGuard) Read(p []byte) (int, error) {
	for len(g.pre) == 0 && len(g.out) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		if g.next != nil {
			g.out, g.next = g.next, nil
			break
		}
		// A piece of a line, valid until the next ReadSlice: handed out
		// before that.
		piece, err := g.src.ReadSlice('\n')
		if len(piece) == 0 {
			if err == nil || err == bufio.ErrBufferFull {
				continue
			}
			if g.owed { // the last data line's break, so that mcp-go reads the line
				g.pre, g.owed = lineBreak, false
				break
			}
			return 0, err
		}
		g.out = g.take(piece)
	}
	n := copy(p, g.pre)
	g.pre = g.pre[n:]
	m := copy(p[n:], g.out)
	g.out = g.out[m:]
	return n + m, nil
}

// Close closes the HTTP body (mcp-go closes it to end a stream's read).
func (g *replyGuard) Close() error {
	if g.body == nil {
		return nil
	}
	return g.body.Close()
}

// take notes piece, the next piece of a line, checks the message that
// it ends, and returns what to hand out for it. On an event stream, a data
// line that continues a run (the line before was a data line too) is
// handed out as the rest of that line: its "data:" (and the one space
// after it that mcp-go drops) become runJoin, so mcp-go reads the run as
// one line and joins it once; a data line's break waits until the next
// line shows whether it continues the run. (A stream that ends in the
// middle of a line that continues a run loses the run's event with it:
// mcp-go drops an unfinished last line, which holds the whole run.)
func (g *replyGuard) take(piece []byte) []byte {
	ends := piece[len(piece)-1] == '\n'
	if !g.sse {
		g.keep(piece)
		if ends {
			g.check()
		}
		return piece
	}
	out := piece
	if g.lineStart {
		g.line = 0
	}
	g.line += len(piece)
	if g.lineStart {
		continues := g.owed
		if !bytes.HasPrefix(piece, []byte("data:")) && g.owed {
			g.pre, g.owed = lineBreak, false
		}
		switch {
		case len(bytes.TrimRight(piece, "\r\n")) == 0 && ends: // a blank line ends the event
			g.check()
			g.size, g.eventData, g.dataSeen, g.runs = 0, false, false, 0
		case bytes.HasPrefix(piece, []byte("data:")):
			raw := piece[len("data:"):]
			piece = bytes.TrimPrefix(raw, []byte(" "))
			// mcp-go joins a data line to the event's data only once the
			// data is not empty; and drops one space after "data:", so
			// while the line it reads is bare "data:", the rest of the
			// run goes after a space of its own.
			switch {
			case continues:
				g.pre, g.owed, out = nil, false, piece
				switch {
				case g.dataSeen:
					g.pre = runJoin
					g.keep(runJoin)
				case g.bare:
					g.pre = space
				}
				g.bare = g.bare && g.pre == nil && len(bytes.TrimRight(piece, "\r\n")) == 0
			default:
				if g.dataSeen {
					g.keep(lineBreak)
				}
				g.bare = len(bytes.TrimRight(raw, "\r\n")) == 0
			}
			if !continues {
				g.runs++
			}
			if g.eventData {
				g.size++ // each join is a byte in mcp-go, even after an empty data line
			}
			g.eventData = true
			g.data = true
		default:
			g.data = false
		}
	}
	if g.data {
		data := bytes.TrimRight(piece, "\r\n")
		g.size += len(data)
		g.keep(data)
		g.dataSeen = g.dataSeen || len(data) > 0
		if ends {
			out, g.owed = bytes.TrimRight(out, "\r\n"), true
		}
	}
	g.lineStart = ends
	switch {
	case g.line > MaxMessageBytes || g.size > MaxMessageBytes:
		// The piece is not handed out: mcp-go's read of the stream fails
		// with err, which ends the stream (and its request, if it is a
		// POST's), having held at most MaxMessageBytes of it.
		g.err, g.pre, out = g.bound.fail(errOverMaxMessageBytes), nil, nil
	case g.runs > MaxEventDataRuns:
		g.err, g.pre, out = g.bound.fail(errOverMaxEventDataRuns), nil, nil
	}
	return out
}

// keep adds b to the current message's copy while it is within
// MaxCheckedLine.
func (g *replyGuard) keep(b []byte) {
	switch {
	case g.over:
	case len(g.msg)+len(b) > MaxCheckedLine:
		g.over, g.msg = true, nil
	default:
		g.msg = append(g.msg, b...)
	}
}

// check flags the message just ended, and starts the next.
func (g *replyGuard) check() {
	if !g.over {
		if fail := parseFailure(bytes.TrimRight(g.msg, "\r\n")); fail != nil {
			if g.sse {
				g.next = append(append([]byte("event: message\ndata: "), fail...), "\n\n"...)
			} else {
				g.next = append(fail, '\n')
			}
		}
	}
	g.over, g.data = false, false
	if cap(g.msg) > 64<<10 {
		g.msg = nil // a big message's copy is not kept for the next
	}
	g.msg = g.msg[:0]
}

// guardTransport puts a replyGuard on the event-stream responses mcp-go
// reads as streams, where answers to requests come on streamable HTTP and
// legacy SSE. An answer sent as application/json that does not parse
// already fails its call. Every body stops being read past a bound:
// MaxMessageBytes of one message (an event, or the whole body), or
// MaxErrorBodyBytes of a body mcp-go reads whole only to put into an
// error or to drop; mcp-go would read it all into memory, however long.
type guardTransport struct {
	base http.RoundTripper
	// legacySSE: the transport is legacy HTTP+SSE, whose POST responses
	// mcp-go reads whole, whatever their status or content type.
	legacySSE bool
}

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		bound, _ := req.Context().Value(bodyBoundKey{}).(*bodyBound)
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		events := mt == "text/event-stream"
		switch {
		case resp.StatusCode >= 400,
			// mcp-go puts the whole body into its error (an event
			// stream, not JSON, cannot be an answer), or drops it.
			events && !t.streams(req, resp), t.legacySSE && req.Method != http.MethodGet:
			resp.Body = &errorBody{ReadCloser: resp.Body, left: MaxErrorBodyBytes}
		case events:
			g := guardEvents(resp.Body)
			g.bound = bound
			resp.Body = g
		default:
			resp.Body = &boundedBody{ReadCloser: resp.Body, left: MaxMessageBytes, bound: bound}
		}
	}
	return resp, err
}

// streams reports whether mcp-go reads resp, an event stream, as a
// stream: streamable HTTP reads a 200 or 202 (a POST's answers, the GET
// stream) and legacy SSE its GET stream's 200. Any other it reads whole
// (io.ReadAll) into an error.
func (t guardTransport) streams(req *http.Request, resp *http.Response) bool {
	if t.legacySSE {
		return req.Method == http.MethodGet && resp.StatusCode == http.StatusOK
	}
	return resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusAccepted
}

// errOverMaxMessageBytes is why a message over HTTP was not read.
var errOverMaxMessageBytes = fmt.Errorf("the server sent a message over the %d-byte MaxMessageBytes bound on one message (%s), and howl stopped reading it: ask for less (a smaller resource, a page, a narrower call)",
	MaxMessageBytes, render.HumanBytes(MaxMessageBytes))

// errOverMaxEventDataRuns is why an event split into many runs of data
// lines was not read.
var errOverMaxEventDataRuns = fmt.Errorf("the server split one event of its event stream into more than %d runs of data lines, which other lines separate (MaxEventDataRuns), and howl stopped reading it: the server should send each message as consecutive data lines, with no other line among them",
	MaxEventDataRuns)

// bodyBound carries, from the bodies of one request's responses to the
// request (httpTap.SendRequest), that a message was over a bound
// (MaxMessageBytes, MaxEventDataRuns): mcp-go reports such a stream's end
// as "unexpected nil response".
type bodyBound struct{ over atomic.Pointer[error] }

type bodyBoundKey struct{}

// withBodyBound marks ctx so that the responses of the requests made with
// it report a message over a bound to the bound returned.
func withBodyBound(ctx context.Context) (context.Context, *bodyBound) {
	b := &bodyBound{}
	return context.WithValue(ctx, bodyBoundKey{}, b), b
}

// fail notes a message over a bound, err saying which, and returns err;
// b may be nil (a response to no request of howl's).
func (b *bodyBound) fail(err error) error {
	if b != nil {
		b.over.CompareAndSwap(nil, &err)
	}
	return err
}

// get is the error of the first message over a bound a body noted, else
// nil.
func (b *bodyBound) get() error {
	if err := b.over.Load(); err != nil {
		return *err
	}
	return nil
}

// boundedBody is a response body that is one message (application/json,
// or an error's text): past MaxMessageBytes its reads fail.
type boundedBody struct {
	io.ReadCloser
	left  int64
	bound *bodyBound
	err   error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if b.left -= int64(n); b.left < 0 {
		b.err = b.bound.fail(errOverMaxMessageBytes)
		return 0, b.err
	}
	return n, err
}

// MaxErrorBodyBytes bounds what howl reads of an HTTP error status's body
// (4xx, 5xx), and of any body mcp-go reads whole only to put into its
// error or to drop (guardTransport): the error is for a person to read,
// and a JSON-RPC error travels in a 200 anyway.
const MaxErrorBodyBytes = 64 << 10

// errorBody is a body up to MaxErrorBodyBytes; a longer
// one ends in a note naming the bound.
type errorBody struct {
	io.ReadCloser
	left int64
	tail *strings.Reader // the note, once the body passed the bound
}

func (b *errorBody) Read(p []byte) (int, error) {
	if b.tail != nil {
		return b.tail.Read(p)
	}
	if b.left == 0 {
		var one [1]byte
		if _, err := io.ReadFull(b.ReadCloser, one[:]); err != nil {
			return 0, io.EOF
		}
		b.tail = strings.NewReader(fmt.Sprintf("… (the body goes on past the %d-byte MaxErrorBodyBytes bound and was not read)", MaxErrorBodyBytes))
		return b.tail.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// guardedClient is hc (a default client when nil) for the server whose
// configured url is server: its transport behind a guardTransport
// (legacySSE for the legacy HTTP+SSE transport), and its requests and
// redirects kept to server's origin (originGuard, serverRedirects).
func guardedClient(hc *http.Client, server string, legacySSE bool) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	g := *hc
	g.Transport = guardTransport{base: originGuard{base: base, server: server, want: originOf(server)}, legacySSE: legacySSE}
	g.CheckRedirect = serverRedirects(server)
	return &g
}
